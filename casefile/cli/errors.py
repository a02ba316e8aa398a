"""An error as the command line says it: the domain's message, and its remedy as a flag.

The domain and the service word their errors without any front end's flags; a
:class:`~casefile.errors.Remedy` names the action option that would help, and this module
finds that option's flag in the action table.
"""

from __future__ import annotations

from casefile.actions.table import ACTIONS
from casefile.errors import CasefileError, Remedy

#: where a remedy's place is, for a command line
_PLACES = {"cases": "see `casefile cases`"}


def flag_of(option: str) -> str:
    """The flag of an action option, as the table spells it (``rebalance`` → ``--rebalance``)."""
    for spec in ACTIONS:
        for candidate in spec.options:
            if candidate.name == option and candidate.flag is not None:
                return candidate.flag
    return "--" + option.replace("_", "-")


def error_line(error: CasefileError) -> str:
    """The one line ``casefile: error:`` prints."""
    remedy = error.remedy
    if remedy is None:
        return str(error)
    if remedy.place is not None:
        return f"{error} ({_PLACES.get(remedy.place, remedy.does)})"
    if remedy.option is None:
        return f"{error}; {remedy.does}"
    return f"{error}; {flag_of(remedy.option)} {remedy.does}"


def flag_hint(remedy: Remedy | None) -> str:
    """Which flag takes a remedy whose words are already said (a failed run's stored reason
    says what to do; the CLI adds how): `` (--trust-host)``."""
    if remedy is None or remedy.option is None:
        return ""
    return f" ({flag_of(remedy.option)})"
