"""The command tests share the telemetry tests' known log."""

from tests.telemetry.conftest import known_log, known_log_file

__all__ = ["known_log", "known_log_file"]
