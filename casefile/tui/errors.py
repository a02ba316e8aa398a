"""An error as the TUI says it: the domain's message, and its remedy in the TUI's words.

A remedy names an action option; the TUI names the dialog field that sets it (its label in
the action table), or the screen where a place is. No command-line flag reaches the screen.
"""

from __future__ import annotations

from casefile.actions.table import ACTIONS
from casefile.errors import CasefileError, Remedy

#: where a remedy's place is, on the TUI
_PLACES = {"cases": "the case list (b) shows them"}


#: options of dialogs that are not rows of the action table yet: the probe dialog's
_OTHER_FIELDS = {"trust_host": "Trust a new host key"}


def field_of(option: str) -> str | None:
    """The label of the dialog field that sets an action option; None if no dialog has one."""
    if option in _OTHER_FIELDS:
        return _OTHER_FIELDS[option]
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


def control_hint(remedy: Remedy | None) -> str:
    """Which field takes a remedy whose words are already said (a failed run's stored reason
    says what to do; the TUI adds where): ``(the field “Trust a new host key”)``."""
    if remedy is None or remedy.option is None:
        return ""
    field = field_of(remedy.option)
    return f" (the field “{field}”)" if field else ""
