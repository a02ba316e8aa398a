"""An error as the TUI says it: the domain's message, and its remedy in the TUI's words.

A remedy names an action option; the TUI names the dialog field that sets it (its label in
the action table), or the screen where a place is. No command-line flag reaches the screen.
"""

from __future__ import annotations

from casefile.actions.table import ACTIONS
from casefile.errors import CasefileError

#: where a remedy's place is, on the TUI
_PLACES = {"cases": "the case list (b) shows them"}


def field_of(option: str) -> str | None:
    """The label of the dialog field that sets an action option; None if no dialog has one."""
    for spec in ACTIONS:
        for candidate in spec.options:
            if candidate.name == option and candidate.form:
                return candidate.label.split(" (")[0].split(":")[0]
    return None


def error_text(error: CasefileError) -> str:
    """What a notification says about a refused action."""
    remedy = error.remedy
    if remedy is None:
        return str(error)
    if remedy.place is not None:
        return f"{error} ({_PLACES.get(remedy.place, remedy.does)})"
    field = field_of(remedy.option) if remedy.option is not None else None
    if field is None:
        return f"{error}; {remedy.does}"
    return f"{error}; the field “{field}” {remedy.does}"
