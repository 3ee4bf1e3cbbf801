"""The command tests share fixtures with the card and telemetry tests: a card writer and a
telemetry log whose figures are known."""

from tests.cards.conftest import write_json
from tests.telemetry.conftest import known_log, known_log_file

__all__ = ["known_log", "known_log_file", "write_json"]
