"""The CLI fixtures of tests/cli (in-process ``casefile``, a fresh SQLite database each)."""

from tests.cli.conftest import cli, cli_registry

__all__ = ["cli", "cli_registry"]
