"""Every user action, defined once: its options, their validation, whether it writes, and its
outcome. The front ends (CLI, TUI, and any later one) derive their commands, dialogs, keys and
gates from :data:`~casefile.actions.table.ACTIONS`; see ``docs/architecture.md``."""
