"""Errors that casefile raises, translated at each boundary.

The tree::

    CasefileError                 anything casefile raises on purpose; the CLI prints
    │                             ``str(error)`` as one line and exits non-zero
    ├── InvalidEvent              a payload that does not match its event type's schema
    ├── DomainError               a command that the case's current state refuses
    │                             (unknown hypothesis, prior too large, retired target …)
    ├── RuleError                 a rule or playbook file that cannot be loaded
    ├── StoreError                the database could not do what was asked
    │   ├── ConcurrencyError      another writer appended at the expected seq first
    │   └── CaseNotFound          no case with that id (or no case directory at that path)
    ├── IntegrityError            a hash chain or artifact digest that does not verify
    ├── ImportRefused             a case directory that cannot be imported, with file:line
    ├── PluginError               a probe or playbook that is not installed or failed to load
    └── RunnerError               a probe could not be started where it was asked to run
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from difflib import get_close_matches


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean X?)`` when one known name is close to a misspelt one, else ``""``:
    every "no such probe / playbook / hypothesis" message ends with it, so a typo is one
    glance from its fix instead of a search through the list."""
    names = list(known)
    # case and the separator typed aside ("NVIDIA-SMI-Q", "smi_q")
    typed = name.casefold().replace("_", "-")
    folded = {n.casefold().replace("_", "-"): n for n in names}
    # a name given short ("topo" for nvidia-smi-topo) is one part of the name it means
    parts = [n for f, n in folded.items() if typed and typed in f.split("-")]
    if len(parts) == 1:
        return f" (did you mean {parts[0]}?)"
    near = get_close_matches(typed, list(folded), n=1, cutoff=0.75)
    return f" (did you mean {folded[near[0]]}?)" if near else ""


@dataclass(frozen=True)
class Remedy:
    """What would let a refused request through, in the domain's words; each front end names
    it in its own (the CLI as a flag, the TUI as a field of its dialog or a screen).

    ``option`` is an option of the action refused, by its name in the action table
    (``rebalance``, ``force``); ``place`` a place to look instead (``cases``: the list of
    cases). ``does`` says what taking it does.
    """

    does: str
    option: str | None = None
    place: str | None = None


class CasefileError(Exception):
    """Base class: every error meant for a user has a one-line message, in the domain's words
    (no front end's flags); ``title`` names what was refused and ``remedy`` what would help."""

    def __init__(
        self, *args: object, title: str | None = None, remedy: Remedy | None = None
    ) -> None:
        super().__init__(*args)
        self.title = title
        self.remedy = remedy


class InvalidEvent(CasefileError):
    """A payload that does not validate against its event type."""


class DomainError(CasefileError):
    """A command that the case's current state does not allow."""


class RuleError(CasefileError):
    """A rule or playbook definition that cannot be used."""


class StoreError(CasefileError):
    """The event store failed; the original exception is chained."""


class ConcurrencyError(StoreError):
    """An append lost the race for its expected ``seq``."""

    def __init__(self, case_id: str, expected_seq: int) -> None:
        super().__init__(
            f"case {case_id}: another writer appended after seq {expected_seq} first; "
            "re-read and retry"
        )
        self.case_id = case_id
        self.expected_seq = expected_seq


class CaseNotFound(StoreError):
    """No case with the given id or path."""


#: where to look for the cases there are
SEE_CASES = Remedy("the cases in the database", place="cases")


class IntegrityError(CasefileError):
    """A stored event or artifact does not match its hash."""

    def __init__(self, message: str, seq: int | None = None, artifact: str | None = None) -> None:
        super().__init__(message)
        self.seq = seq
        self.artifact = artifact


class ImportRefused(CasefileError):
    """A case directory that cannot be imported; the message names file, line and problem."""


class PluginError(CasefileError):
    """A plugin that is missing or could not be loaded."""


class RunnerError(CasefileError):
    """A probe that could not be started where it was asked to run."""
