"""The command tests share fixtures with the card, telemetry and lint tests: a card writer,
a telemetry log whose figures are known, a session cache folder and the planted corpus's
index."""

from tests.cards.conftest import write_json
from tests.lint.conftest import lint_cache, planted_index
from tests.telemetry.conftest import known_log, known_log_file

__all__ = ["known_log", "known_log_file", "lint_cache", "planted_index", "write_json"]
