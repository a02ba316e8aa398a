"""What an A/B costs where the case states what it would change back.

An experiment's ``cost`` is what making its change takes (the principle is written above the
playbook's first ``[[experiment]]``). For a few changes that depends on what the case says: going
back to the previous version of a framework or a collective library is a package install and a
rerun, while going back to the previous driver or CUDA toolkit is a reinstall and a reboot. The
same A/B, one rule, has the cost of the thing the case says was upgraded, so the next steps put
the cheap revert where it belongs without a second rule that reads the same change.

In TOML, beside ``cost`` (which holds where no entry applies)::

    cost = "expensive"
    cost_when = [{ intake = "after-upgrade", answers = ["framework"], cost = "moderate" }]

The first entry whose intake question's answer in force is one of its ``answers`` gives the cost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from casefile.domain.rule_loading import intake_answers_of
from casefile.errors import RuleError

COSTS = ("instant", "cheap", "moderate", "expensive", "intrusive")


@dataclass(frozen=True)
class CostWhen:
    """A cost that holds while an intake question's answer in force is one of ``answers``."""

    intake: str
    answers: tuple[str, ...]
    cost: str


def cost_when_from(raw: Any, label: str) -> tuple[CostWhen, ...]:
    """``cost_when`` entries, checked; whether the questions and answers exist is the
    playbook's to check (as for ``requires``)."""
    if not isinstance(raw, list):
        raise RuleError(
            f"{label}: 'cost_when' must be a list of {{ intake, answers, cost }} tables"
        )
    out = []
    for entry in raw:
        found = intake_answers_of(entry)
        if found is None:
            raise RuleError(
                f"{label}: each of 'cost_when' needs 'intake' (a question id), 'answers' (a "
                "non-empty list) and 'cost'"
            )
        cost = entry.get("cost")
        if cost not in COSTS:
            raise RuleError(f"{label}: a 'cost_when' cost must be one of {', '.join(COSTS)}")
        out.append(CostWhen(*found, str(cost)))
    return tuple(out)


def cost_under(
    default: str, entries: Sequence[CostWhen], answer_of: Callable[[str], str | None]
) -> str:
    """The cost that holds under the answers in force (``answer_of``: a question's answer, or
    None): the first entry that applies, else ``default``."""
    for entry in entries:
        if answer_of(entry.intake) in entry.answers:
            return entry.cost
    return default
