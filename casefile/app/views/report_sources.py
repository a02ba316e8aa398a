"""Everything a postmortem report reads from a case, as views of one fold.

The report folds the case once, with its history, up to a seq, and derives every section from
that fold: the status view for where the case ended, the captured trajectory (one step per
event, the steps the replay view is built from, never refolded) for how it got there, and the
numbers only the belief engine computes (decisive evidence, contributions, the next step after
a pivot, the probe that separates two hypotheses) through :class:`CaseSteps`. So its numbers
are the ones ``status`` and ``replay`` show at the same seq, and the report package reads no
fold, ranking or scoring of its own.

The stored events come whole (:class:`Event`): a report cites each claim's events by seq and
hash and quotes what they recorded.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from casefile.app.views.names import names_table
from casefile.app.views.status import StatusView, build_status
from casefile.app.views.steps import DecisiveRow
from casefile.app.views.steps_at import CaseSteps
from casefile.app.views.warning_groups import WarningRow, warning_rows
from casefile.domain.collector import collector_paused
from casefile.domain.events import Event as Event
from casefile.errors import DomainError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from casefile.domain.beliefs import Projection
    from casefile.domain.beliefs.evidence import EvidenceState
    from casefile.domain.beliefs.question import QuestionState
    from casefile.domain.beliefs.ranking import Candidate
    from casefile.domain.beliefs.tree import QuestionSnapshot


@dataclass(frozen=True, slots=True)
class NodeView:
    """One hypothesis of a question's tree: where it hangs and what hangs under it."""

    id: str
    parent_id: str | None
    children: tuple[str, ...]  # in proposal order


@dataclass(frozen=True, slots=True)
class QuestionView:
    """One question as the case stands: its tree, its leader and every confidence."""

    id: str
    text: str
    tops: tuple[str, ...]  # open top-level hypotheses in proposal order, then the catch-all
    leader: str
    nodes: Mapping[str, NodeView]  # every hypothesis (retired ones too), in proposal order
    confidences: Mapping[str, float]
    depths: Mapping[str, int]  # hypothesis → its depth in the tree (top level: 0)


def strongest_rival(question: QuestionView, hypothesis: str) -> str | None:
    """The hypothesis that competes hardest with ``hypothesis``: the likeliest one that is
    neither it, nor above it (a class it belongs to), nor under it, at any depth; the
    catch-all counts. A cause deep in the tree is weighed against its siblings too: thermal
    degradation's rival is the power cap beside it at 41 %, not the runner-up among the
    top-level classes at 3 %. Ties go to the one proposed first."""
    nodes = question.nodes
    above: set[str] = set()
    node = nodes.get(hypothesis)
    while node is not None and node.parent_id is not None:
        above.add(node.parent_id)
        node = nodes.get(node.parent_id)
    under = {hypothesis}
    pending = [hypothesis]
    while pending:
        found = nodes.get(pending.pop())
        if found is not None:
            under.update(found.children)
            pending.extend(found.children)
    catch_all = question.tops[-1:] if question.tops and question.tops[-1] not in nodes else ()
    rivals = [h for h in (*nodes, *catch_all) if h not in above and h not in under]
    if not rivals:
        return None
    confidences = question.confidences
    return max(rivals, key=lambda h: (confidences.get(h, 0.0), -rivals.index(h)))


class EvidenceView(NamedTuple):
    """One piece of evidence as folded: the numbers it applied and where it came from (a
    named tuple: a long case holds tens of thousands)."""

    id: str
    seq: int
    hash: str  # of its evidence.assessed event
    question_id: str
    kind: str
    reliability: float
    likelihoods: Mapping[str, float]
    otherwise: float
    superseded_by: str | None
    rationale: str


#: The pivots of a step that changed no leader.
_NO_PIVOTS: Mapping[str, tuple[str, str]] = MappingProxyType({})


class TrajectoryStep(NamedTuple):
    """The case right after one event: every question's confidences, and what moved.

    A named tuple, as the fold's own step is: a long case has one per event, and a tuple is
    built in a fraction of a frozen dataclass's time.
    """

    seq: int
    type: str
    pivots: Mapping[str, tuple[str, str]]  # question → (old leader, new leader)
    changed: frozenset[str]  # questions whose confidences this event moved
    #: question → hypothesis → confidence; steps that changed nothing share one mapping
    confidences: Mapping[str, Mapping[str, float]]
    surprise_bits: float | None
    raised: tuple[WarningRow, ...]
    cleared: tuple[WarningRow, ...]


@dataclass(frozen=True, slots=True)
class CaseFold:
    """The fold's records a report reads: questions, evidence, probe runs and readings."""

    questions: Mapping[str, QuestionView]
    hypothesis_question: Mapping[str, str]  # hypothesis → its question
    evidence: tuple[EvidenceView, ...]  # in the order it was folded
    observations: Mapping[int, Mapping[str, Any]]  # observation seq → its record, as folded
    probe_runs: Mapping[int, Mapping[str, Any]]  # probe run seq → its record, as folded
    set_asides: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class ReportSources:
    """One case up to ``upto`` (``None``: its head), for a report."""

    case_id: str
    upto: int | None
    events: tuple[Event, ...]  # every event from the first, in seq order
    status: StatusView
    names: Mapping[str, str]  # hypothesis id → its wording, catch-alls included
    fold: CaseFold
    trajectory: tuple[TrajectoryStep, ...]
    decisive: tuple[DecisiveRow, ...]  # every active evidence, most decisive first
    #: rankings and scores at any step of this fold (it keeps the fold: read it where the
    #: fold lives, the thread that asked the service)
    steps: CaseSteps


def build_report_sources(
    case_id: str, projection: Projection, offered: Sequence[Candidate], upto: int | None
) -> ReportSources:
    """The report's view of ``projection``, case ``case_id`` folded from its first event with
    its history; ``offered`` are the steps its playbooks offer (``candidates.offers``)."""
    if projection.base_seq != 0 or not projection.events:
        raise DomainError(f"case {case_id}: the report needs the whole history, not a snapshot")
    steps = CaseSteps(projection, offered)
    with collector_paused():  # one row per event and per evidence, all long-lived
        return ReportSources(
            case_id=case_id,
            upto=upto,
            events=tuple(projection.events),
            status=build_status(projection),
            names=names_table(projection),
            fold=CaseFold(
                questions={qid: _question(q) for qid, q in projection.questions.items()},
                hypothesis_question=dict(projection.hypothesis_question),
                evidence=tuple(_evidence(state) for state in projection.evidence.values()),
                observations=dict(projection.observations),
                probe_runs=dict(projection.probe_runs),
                set_asides=tuple(projection.set_asides),
            ),
            trajectory=_trajectory(projection),
            decisive=steps.decisive(),
            steps=steps,
        )


def _question(question: QuestionState) -> QuestionView:
    structure = question.structure
    return QuestionView(
        id=question.id,
        text=question.text,
        tops=tuple(structure.tops),
        leader=question.leader(),
        nodes={
            hid: NodeView(hid, node.parent_id, tuple(node.children))
            for hid, node in question.nodes.items()
        },
        confidences=question.confidences,
        depths={hid: structure.depth[i] for hid, i in structure.index.items()},
    )


def _evidence(state: EvidenceState) -> EvidenceView:
    return EvidenceView(
        state.id,
        state.seq,
        state.hash,
        state.question_id,
        state.kind,
        state.reliability,
        dict(state.likelihoods),
        state.otherwise,
        state.superseded_by,
        state.rationale,
    )


def _trajectory(projection: Projection) -> tuple[TrajectoryStep, ...]:
    # a step that changed no question holds the snapshots the step before held: one view of
    # confidences per snapshots mapping, not one per step (most steps change nothing)
    shared: dict[int, StepConfidences] = {}
    recent = RecentConfidences()
    out = []
    for step in projection.trajectory:
        snapshots = step.snapshots
        confidences = shared.get(id(snapshots))
        if confidences is None:
            confidences = shared[id(snapshots)] = StepConfidences(snapshots, recent)
        raised, cleared, pivots = step.raised, step.cleared, step.pivots
        out.append(
            TrajectoryStep(
                step.seq,
                step.type,
                dict(pivots) if pivots else _NO_PIVOTS,
                step.changed,
                confidences,
                step.surprise_bits,
                warning_rows(raised) if raised else (),
                warning_rows(cleared) if cleared else (),
            )
        )
    return tuple(out)


class RecentConfidences:
    """The confidences of the last few snapshots read: a reader passing over the steps in
    order asks for the same snapshot (and the one before) again and again."""

    KEPT = 16

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[int, tuple[QuestionSnapshot, Mapping[str, float]]] = {}

    def of(self, snap: QuestionSnapshot) -> Mapping[str, float]:
        held = self._kept.get(id(snap))
        if held is not None:
            return held[1]
        if len(self._kept) >= self.KEPT:
            del self._kept[next(iter(self._kept))]
        confidences = MappingProxyType(snap.passing_confidences())
        self._kept[id(snap)] = (snap, confidences)  # the snapshot held: its id is not reused
        return confidences


class StepConfidences(Mapping[str, Mapping[str, float]]):
    """question → hypothesis → confidence at one step, computed from the step's snapshots when
    read rather than copied for every step: a long case's trajectory holds tens of thousands of
    distinct snapshots, and a copy of each (with the snapshot's own cache it would fill) would
    be most of what the report's view holds beyond the fold (about 80 MB at 100,000 events)."""

    __slots__ = ("_recent", "_snapshots")

    def __init__(
        self, snapshots: Mapping[str, QuestionSnapshot], recent: RecentConfidences
    ) -> None:
        self._snapshots = snapshots
        self._recent = recent

    def __getitem__(self, qid: str) -> Mapping[str, float]:
        return self._recent.of(self._snapshots[qid])

    def __contains__(self, qid: object) -> bool:
        return qid in self._snapshots

    def __iter__(self) -> Iterator[str]:
        return iter(self._snapshots)

    def __len__(self) -> int:
        return len(self._snapshots)
