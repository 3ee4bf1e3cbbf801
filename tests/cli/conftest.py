"""The lint fixtures (a session cache folder, the planted corpus's index) for CLI tests."""

from tests.lint.conftest import lint_cache, planted_index  # noqa: F401  (fixtures)
