"""What a case screen shows at one step: the hypothesis tree, warnings and next steps as the tool
held them right after event ``seq``, and one marked row per event for the timeline.

Everything is read from the trajectory a history fold captured (one snapshot per step), so
moving the focus to any step costs a lookup, never a refold: the TUI's replay scrubs through a
10,000-event case at the speed of a key press. :class:`BoardIndex` is the part worth computing
once per fold (which steps carry evidence, pivots, surprises and warnings, and the warnings
active after each step, kept as what each step changed); :func:`build_frame` turns it and a
step into immutable rows.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from casefile.app.views.common import CaseHeader, build_case_header
from casefile.app.views.names import names_table
from casefile.app.views.standing import UNLIKELY, Reached, standing
from casefile.app.views.steps import ProbeRow
from casefile.app.views.summaries import timeline_summary
from casefile.app.views.warning_groups import WarningRow
from casefile.app.views.warning_history import WarningHistory
from casefile.domain.beliefs.projection import SURPRISE_FLAG_BITS

if TYPE_CHECKING:
    from casefile.domain.beliefs import Projection
    from casefile.domain.beliefs.projection import Step
    from casefile.domain.events import Event

#: How many evidence steps a hypothesis's sparkline spans (the newest ones up to the focus).
SPARK_POINTS = 16

#: Marks a timeline row can carry, each with a glyph so meaning never rests on colour alone.
#: "pivot": the top-level leader changed; "subpivot": it held, but the leader inside its subtree
#: changed (one child of the same parent overtook another, at any depth).
MARK_GLYPHS = {
    "pivot": "◆",
    "subpivot": "◇",
    "surprise": "!",
    "set-aside": "⊘",
    "warning": "⚠",
    "evidence": "•",
}


@dataclass(frozen=True, slots=True)
class TimelineRow:
    """One event as the timeline lists it, with what happened to the belief there."""

    seq: int
    when: str
    actor: str
    type: str
    summary: str  # beside the type's label: the summary without the type said again
    hash: str
    marks: tuple[str, ...]  # among MARK_GLYPHS' keys, strongest first

    @property
    def glyphs(self) -> str:
        return "".join(MARK_GLYPHS[m] for m in self.marks)


@dataclass(frozen=True, slots=True)
class TreeRow:
    """One hypothesis (or a question's catch-all) at the focused step."""

    question: str
    id: str
    text: str
    depth: int
    confidence: float
    #: "open", "retired", "does not apply", "ruled out", "unlikely" or "catch-all" (ruled
    #: out: evidence drove it below the threshold; unlikely: it never reached it, see
    #: :mod:`casefile.app.views.standing`)
    status: str
    leader: bool  # the question's most likely top-level hypothesis
    runner_up: bool  # its strongest alternative
    trend: float  # change since the step before the latest evidence (0 when none)
    series: tuple[float, ...]  # confidence at each of the last evidence steps, oldest first
    #: with "does not apply": the answer that rules it out and its seq
    reason: str | None = None
    #: with "unlikely": the confidence it held before evidence (its prior), as the report says
    prior: float | None = None


@dataclass(frozen=True, slots=True)
class FrameQuestion:
    id: str
    text: str
    leader: str | None
    leader_text: str | None
    leader_confidence: float
    runner_up: str | None
    runner_up_text: str | None
    #: the leader has never been the subject of a measurement (a "never measured" warning)
    never_measured: bool


@dataclass(frozen=True, slots=True)
class Frame:
    """The whole case screen at one step (``seq``) of a case whose newest event is ``head``."""

    case: CaseHeader
    seq: int
    head: int
    questions: tuple[FrameQuestion, ...]
    tree: tuple[TreeRow, ...]
    warnings: tuple[WarningRow, ...]
    next_steps: tuple[ProbeRow, ...]
    pivot: bool  # the focused step changed a leader
    changes: Mapping[str, float] = field(default_factory=dict)  # hypothesis → change here
    #: built from the whole history (False: the quick first screen, without sparklines)
    history: bool = True

    @property
    def live(self) -> bool:
        return self.seq == self.head

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case.to_json(),
            "seq": self.seq,
            "head": self.head,
            "questions": [
                {
                    "id": q.id,
                    "text": q.text,
                    "leader": q.leader,
                    "leader_confidence": q.leader_confidence,
                    "runner_up": q.runner_up,
                    "never_measured": q.never_measured,
                }
                for q in self.questions
            ],
            "tree": [
                {
                    "question": r.question,
                    "id": r.id,
                    "confidence": r.confidence,
                    "status": r.status,
                    "leader": r.leader,
                    "trend": r.trend,
                }
                for r in self.tree
            ],
            "warnings": [w.to_json() for w in self.warnings],
            "next_steps": [p.to_json() for p in self.next_steps],
            "pivot": self.pivot,
        }


@dataclass
class BoardIndex:
    """Per-fold facts about every step, extended as the case grows (never rebuilt)."""

    #: evidence steps that moved a confidence (what sparklines and trends are made of:
    #: proposing or retiring a hypothesis reshapes the tree, it is not a measurement)
    evidence_seqs: list[int] = field(default_factory=list)
    pivot_seqs: list[int] = field(default_factory=list)
    #: steps where the leader changed inside a subtree, the top-level leader held
    subpivot_seqs: list[int] = field(default_factory=list)
    surprise_seqs: list[int] = field(default_factory=list)
    warning_seqs: list[int] = field(default_factory=list)  # steps that raised a warning
    #: the warnings active after each step, as what each step raised or cleared
    warning_history: WarningHistory = field(default_factory=WarningHistory)
    rows: list[TimelineRow] = field(default_factory=list)
    #: when each hypothesis first held the ruled-out threshold (ruled out vs unlikely)
    reached: Reached = field(default_factory=Reached)
    covered: int = 0  # the steps indexed so far

    def extend(self, projection: Projection) -> list[TimelineRow]:
        """Index the steps of ``projection`` not indexed yet; the timeline rows they add."""
        steps = projection.trajectory
        events = projection.events
        start = self.covered
        added: list[TimelineRow] = []
        for step, event in zip(steps[start:], events[start:], strict=True):
            added.append(self._index(step, event))
        self.rows.extend(added)
        self.covered = len(steps)
        return added

    def _index(self, step: Step, event: Event) -> TimelineRow:
        seq = step.seq
        marks: list[str] = []
        for qid in step.changed:
            snap = step.snapshots.get(qid)
            if snap is not None:  # not kept on the snapshot: a long case has tens of thousands
                self.reached.see(seq, step.type, qid, snap.passing_confidences())
        if step.pivots:
            self.pivot_seqs.append(seq)
            marks.append("pivot")
        elif step.pivot_depths:
            self.subpivot_seqs.append(seq)
            marks.append("subpivot")
        unexpected = step.unexpected_bits
        if unexpected is not None and unexpected >= SURPRISE_FLAG_BITS:
            self.surprise_seqs.append(seq)
            marks.append("surprise")
        if step.changed and step.type == "evidence.assessed":
            self.evidence_seqs.append(seq)
            marks.append("evidence")
        if step.raised or step.cleared:
            self.warning_history.record(
                seq, (w.key for w in step.cleared), (WarningRow.of(w) for w in step.raised)
            )
        if step.raised:
            self.warning_seqs.append(seq)
            codes = {w.code for w in step.raised}
            marks.append("set-aside" if codes == {"set-aside"} else "warning")
        return TimelineRow(
            seq=seq,
            when=event.when,
            actor=event.actor,
            type=event.type,
            summary=timeline_summary(event),
            hash=event.hash,
            marks=tuple(marks),
        )

    def warnings_at(self, seq: int) -> tuple[WarningRow, ...]:
        return self.warning_history.at(seq)

    def evidence_upto(self, seq: int, limit: int) -> list[int]:
        end = bisect_right(self.evidence_seqs, seq)
        return self.evidence_seqs[max(0, end - limit) : end]


def tail_rows(events: Iterable[Event]) -> list[TimelineRow]:
    """Timeline rows read straight from events, before any fold has marked them."""
    return [
        TimelineRow(e.seq, e.when, e.actor, e.type, timeline_summary(e), e.hash, ()) for e in events
    ]


def build_frame(
    projection: Projection,
    index: BoardIndex,
    seq: int,
    *,
    ranked: Callable[[int], Sequence[ProbeRow]] | None = None,
    names: Mapping[str, str] | None = None,
) -> Frame:
    """The screen right after event ``seq`` (clamped to the case), from captured snapshots.

    ``ranked(seq)`` ranks the probes on that step's belief (the service knows the playbooks'
    candidates); without it the frame has no next steps.
    """
    seq = max(1, min(seq, projection.last_seq))
    step = projection.step_at(seq)
    names = names if names is not None else names_table(projection)
    # a fold without its history (the quick first screen of a long case) shows the head
    # from the questions themselves, without sparklines or trends
    held = step is None and seq == projection.last_seq
    if held:
        warnings = tuple(WarningRow.of(w) for w in projection.warnings.all())
    else:
        warnings = index.warnings_at(seq)
    unmeasured = {w.question for w in warnings if w.code == "never-measured"}
    spark_seqs = index.evidence_upto(seq, SPARK_POINTS)
    series_steps = [s for s in (projection.step_at(q) for q in spark_seqs) if s is not None]
    before_latest = (
        projection.step_at(spark_seqs[-1] - 1) if spark_seqs and spark_seqs[-1] > 1 else None
    )
    # without the history there is no telling ruled out from unlikely: a quick first screen
    # keeps the old word, "ruled out", until the full frame replaces it
    reached = None if held else index.reached
    questions: list[FrameQuestion] = []
    tree: list[TreeRow] = []
    changes: dict[str, float] = {}
    if step is not None:
        snapshots = step.snapshots
    elif held:
        snapshots = {qid: q.snapshot() for qid, q in projection.questions.items()}
    else:
        snapshots = {}
    for qid, snap in snapshots.items():
        question = projection.questions.get(qid)
        confidences = snap.confidences
        structure = snap.structure
        tops = [t for t in structure.tops if t != structure.catch_all]
        ranked_tops = sorted(tops, key=lambda hid: -confidences.get(hid, 0.0))
        leader = snap.leader if snap.leader in confidences else None
        runner = next((hid for hid in ranked_tops if hid != leader), None)
        questions.append(
            FrameQuestion(
                id=qid,
                text=question.text if question is not None else qid,
                leader=leader,
                leader_text=names.get(leader) if leader else None,
                leader_confidence=confidences.get(leader, 0.0) if leader else 0.0,
                runner_up=runner,
                runner_up_text=names.get(runner) if runner else None,
                never_measured=qid in unmeasured,
            )
        )
        if step is not None and qid in step.changed:
            previous = projection.step_at(seq - 1) if seq > 1 else None
            old = previous.snapshots.get(qid) if previous is not None else None
            old_conf = old.confidences if old is not None else {}
            for hid, value in confidences.items():
                if value != old_conf.get(hid, 0.0):
                    changes[hid] = value - old_conf.get(hid, 0.0)
        tree.extend(
            _tree_rows(qid, snap, names, leader, runner, series_steps, before_latest, reached, seq)
        )
    return Frame(
        case=build_case_header(projection),
        seq=seq,
        head=projection.last_seq,
        questions=tuple(questions),
        tree=tuple(tree),
        warnings=warnings,
        next_steps=tuple(ranked(seq)) if ranked else (),
        pivot=bool(step is not None and step.pivots),
        changes=changes,
        history=not held,
    )


def _tree_rows(
    qid: str,
    snap: Any,
    names: Mapping[str, str],
    leader: str | None,
    runner: str | None,
    series_steps: Iterable[Step],
    before_latest: Step | None,
    reached: Reached | None,
    seq: int,
) -> list[TreeRow]:
    structure = snap.structure
    confidences = snap.confidences
    history = [s.snapshots.get(qid) for s in series_steps]
    before = before_latest.snapshots.get(qid) if before_latest is not None else None
    rows: list[TreeRow] = []

    def row(hid: str, depth: int, status: str, reason: str | None = None) -> TreeRow:
        value = confidences.get(hid, 0.0)
        series = tuple(h.confidences.get(hid, 0.0) for h in history if h is not None)
        trend = value - before.confidences.get(hid, 0.0) if before is not None else 0.0
        return TreeRow(
            question=qid,
            id=hid,
            text=names.get(hid, hid),
            depth=depth,
            confidence=value,
            status=status,
            leader=hid == leader,
            runner_up=hid == runner,
            trend=trend,
            series=series,
            reason=reason,
            prior=_prior(reached, hid, value) if status == UNLIKELY else None,
        )

    for position in _depth_first(structure.parent):
        hid = structure.ids[position]
        value = confidences.get(hid, 0.0)
        reason = structure.inapplicable[position]
        if structure.retired[position]:
            status = "retired"
        elif reason is not None:
            status = "does not apply"
        else:
            status = standing(value, reached is None or reached.by(hid, seq)) or "open"
        rows.append(row(hid, structure.depth[position], status, reason))
    rows.append(row(structure.catch_all, 0, "catch-all"))
    return rows


def _prior(reached: Reached | None, hid: str, value: float) -> float:
    """The prior an "unlikely" hypothesis is shown with: what it held before its first
    evidence, or its confidence where no evidence weighed it yet."""
    prior = reached.prior(hid) if reached is not None else None
    return value if prior is None else prior


def _depth_first(parent: Sequence[int]) -> list[int]:
    """Node indices with each node's children right under it, in proposal order (the
    structure lists parents before children, not subtrees together)."""
    children: dict[int, list[int]] = {}
    for node, up in enumerate(parent):
        children.setdefault(up, []).append(node)
    order: list[int] = []
    pending = list(reversed(children.get(-1, [])))
    while pending:
        node = pending.pop()
        order.append(node)
        pending.extend(reversed(children.get(node, [])))
    return order


@dataclass(frozen=True, slots=True)
class PreviewRow:
    id: str
    depth: int
    before: float
    after: float


@dataclass(frozen=True, slots=True)
class EvidencePreview:
    """What a piece of evidence would do to its question, before it is recorded."""

    question: str
    reliability: float
    rows: tuple[PreviewRow, ...]  # every node of the question, catch-all last
    leader_before: str | None
    leader_after: str | None


def preview_evidence(
    projection: Projection,
    likelihoods: Mapping[str, float],
    otherwise: float,
    reliability: float,
) -> EvidencePreview:
    """Bayes' rule on the belief held now: each leaf's probability times its tempered
    likelihood, renormalised (the fold works in quantised log scores, so the recorded numbers
    can differ in the last digits; the preview never touches the fold)."""
    from casefile.errors import DomainError

    questions = {projection.hypothesis_question.get(hid) for hid in likelihoods}
    if not likelihoods or None in questions:
        unknown = sorted(h for h in likelihoods if h not in projection.hypothesis_question)
        raise DomainError(f"no hypothesis {', '.join(unknown) or '(none given)'} in this case")
    if len(questions) != 1:
        raise DomainError("one piece of evidence bears on one question")
    qid = questions.pop()
    assert qid is not None
    question = projection.questions[qid]
    effect = question.effect(dict(likelihoods), otherwise, reliability)
    keys, probs = question.leaf_distribution
    named = effect.leaf_likelihoods
    weights = [
        p
        * (
            effect.catch_all_likelihood
            if key == question.catch_all_id
            else named.get(key, effect.base)
        )
        for key, p in zip(keys, probs, strict=True)
    ]
    total = sum(weights) or 1.0
    structure = question.structure
    after = structure.node_confidences([w / total for w in weights])
    before = question.confidences
    rows = [
        PreviewRow(hid, structure.depth[i], before.get(hid, 0.0), after.get(hid, 0.0))
        for i, hid in enumerate(structure.ids)
        if not structure.retired[i] and structure.inapplicable[i] is None
    ]
    catch_all = structure.catch_all
    rows.append(PreviewRow(catch_all, 0, before.get(catch_all, 0.0), after.get(catch_all, 0.0)))
    tops = [hid for hid in structure.tops if hid != catch_all]

    def leader(values: Mapping[str, float]) -> str | None:
        return max(tops, key=lambda hid: values.get(hid, 0.0)) if tops else None

    return EvidencePreview(qid, reliability, tuple(rows), leader(before), leader(after))
