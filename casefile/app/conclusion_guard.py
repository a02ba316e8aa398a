"""The honesty guard on a conclusion: is the named root cause ready to be called the cause?

A conclusion is held back when its root cause carries the "never measured" warning (it, an
ancestor or a descendant leads on calculated or reported evidence only), or when the
strongest hypothesis outside its line is within a factor of two of it. The refusal says
which, in plain words, and the next step that would separate the two. A front end may let
its user conclude anyway with an acknowledgement and its reason, which the conclusion event
records (``acknowledged``) and the report shows beside the conclusion.

Both functions take what they need as arguments: the status view the guard reads, the
service whose session appends the acknowledged conclusion.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casefile.app.views.steps import separation_line
from casefile.domain.beliefs.ranking import NO_SEPARATION
from casefile.errors import DomainError, did_you_mean

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.app.service import CaseService
    from casefile.app.views.common import HypothesisRow
    from casefile.app.views.status import StatusView
    from casefile.app.who import Who
    from casefile.domain.events import Event

#: a root cause must be at least this many times as likely as the strongest alternative
FACTOR = 2.0
NEVER_MEASURED = "never-measured"


@dataclass(frozen=True)
class Held:
    """Why a conclusion is held back: warnings in plain words, and what would settle it."""

    root_cause: str
    warnings: tuple[str, ...]
    #: the strongest hypothesis outside the root cause's line, and both confidences
    rival: str | None
    confidence: float
    rival_confidence: float | None
    next_step: str | None

    def message(self) -> str:
        """One line: the refusal, each warning, the next step, and how to conclude anyway."""
        parts = [f"not concluded: {self.root_cause} is not yet shown to be the cause"]
        parts += self.warnings
        if self.next_step:
            parts.append(f"next step that would separate them: {self.next_step}")
        parts.append("to conclude anyway, pass acknowledge with your reason")
        return "; ".join(parts)


def hold(status: StatusView, root_cause: str | None) -> Held | None:
    """What holds a conclusion naming ``root_cause`` back, or None when nothing does."""
    if root_cause is None:
        return None
    rows = {row.id: row for row in status.hypotheses}
    cause = rows.get(root_cause)
    if cause is None:
        return None  # the service refuses an unknown root cause in its own words
    line = _line(rows, root_cause)
    warnings: list[str] = []
    for warning in status.warnings:
        if warning.code == NEVER_MEASURED and warning.subject in line:
            warnings.append(
                f"never measured: {warning.message} (event {warning.seq}); "
                "measure it before calling it the cause"
            )
    rival = _rival(rows.values(), cause, line)
    rival_confidence = None if rival is None else rival.confidence
    if rival is not None and cause.confidence < FACTOR * rival.confidence:
        warnings.append(
            f"the runner-up {rival.id} ({rival.confidence:.1%}) is within a factor of "
            f"{FACTOR:g} of {root_cause} ({cause.confidence:.1%})"
        )
    if not warnings:
        return None
    return Held(
        root_cause,
        tuple(warnings),
        None if rival is None else rival.id,
        cause.confidence,
        rival_confidence,
        _next_step(status, cause.question),
    )


def _line(rows: dict[str, HypothesisRow], hid: str) -> set[str]:
    """A hypothesis, its ancestors and its descendants."""
    line = {hid}
    parent = rows[hid].parent
    while parent is not None and parent in rows:
        line.add(parent)
        parent = rows[parent].parent
    grew = True
    while grew:
        grew = False
        for row in rows.values():
            if row.parent in line and row.id not in line:
                line.add(row.id)
                grew = True
    return line


def _rival(
    rows: Iterable[HypothesisRow], cause: HypothesisRow, line: set[str]
) -> HypothesisRow | None:
    candidates = [
        row
        for row in rows
        if row.question == cause.question
        and row.id not in line
        and row.status == "open"
        and not row.id.endswith("/catch-all")
    ]
    return max(candidates, key=lambda row: (row.confidence, row.id), default=None)


def _next_step(status: StatusView, question: str) -> str | None:
    """The first ranked step on the question that tells the leader from the runner-up."""
    for group in status.next_step_groups:
        if group.question != question or group.separates.startswith(NO_SEPARATION):
            continue
        probes = ", ".join(f"{p.probe} ({p.cost})" for p in group.probes)
        load = group.load.replace("-", " ")
        where = f" {load}" if group.load != "any" else ""
        return f"rule {group.rule}{where} with {probes}: {separation_line(group.separates)}"
    return None


def conclude_acknowledged(
    service: CaseService,
    case_id: str,
    summary: str,
    root_cause: str | None,
    recommendations: Sequence[str],
    lessons: Sequence[str],
    acknowledged: str,
    who: Who,
) -> Event:
    """Record a conclusion the guard held back, with the acknowledgement and its reason."""
    from casefile.app.scrubbing import scrub_text
    from casefile.domain.event_types import new_event
    from casefile.domain.event_types.case import CaseConcluded

    if not acknowledged.strip():
        raise DomainError("an acknowledgement needs its reason")

    def decide(draft: Draft) -> int:
        if root_cause is not None and root_cause not in draft.projection.hypothesis_question:
            hint = did_you_mean(root_cause, draft.projection.hypothesis_question)
            raise DomainError(f"no hypothesis {root_cause!r} to name as the root cause{hint}")
        return draft.add(
            new_event(
                CaseConcluded,
                summary=scrub_text(summary),
                root_cause=root_cause or None,
                recommendations=list(recommendations),
                lessons=list(lessons),
                acknowledged=scrub_text(acknowledged),
            )
        )

    appended, _ = service.sessions.session(case_id, history=False).execute(decide, who)
    return appended[0]
