"""What a fold of a case's events knows: :class:`Projection`, and a :class:`Step` per event.

Kept apart from :mod:`casefile.domain.beliefs.projection`, which does the folding, because
many more modules read this state (views, scoring, ranking, the saved fold) than change it;
the queries here (a step by seq, the graph, confidences) read the state and never fold.
Everything is importable from ``projection`` too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from casefile.domain.beliefs.evidence import EvidenceState
from casefile.domain.beliefs.question import QuestionSnapshot, QuestionState, Surprise
from casefile.domain.beliefs.warnings import CaseWarning, WarningTracker
from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.events import GENESIS_HASH, Event
from casefile.errors import DomainError

#: An observation is flagged as surprising when the hypothesis that best explains it made it at
#: least this many bits likelier than the belief held just before did (log₂ max_h P(E|h) / P(E)).
#: Raw surprise (−log₂ P(E)) is shown too, but its scale depends on how finely the evidence's
#: outcomes are cut, so it is a poor threshold on its own.
SURPRISE_FLAG_BITS = 1.0


#: question → (depth, old leading leaf, new leading leaf): see :attr:`Step.pivot_depths`
PivotDepths = dict[str, tuple[int, str, str]]
NO_DEPTHS: PivotDepths = {}


class Step(NamedTuple):
    """The state right after one event: what replay shows for that step.

    A named tuple rather than a frozen dataclass: a long fold makes one per event, and frozen
    dataclasses pay for every field on construction.
    """

    seq: int
    type: str
    snapshots: dict[str, QuestionSnapshot]
    changed: frozenset[str]
    pivots: dict[str, tuple[str, str]]  # question → (old leader, new leader)
    surprise: Surprise | None
    raised: tuple[CaseWarning, ...]
    cleared: tuple[CaseWarning, ...]
    #: where the leader path (the leader, then the leading child at each depth down to the
    #: leading leaf) changed: depth 0 with every entry of ``pivots``, deeper where the leader
    #: at that depth changed under the same top-level leader (a pivot inside a subtree)
    pivot_depths: PivotDepths = NO_DEPTHS

    @property
    def surprise_bits(self) -> float | None:
        """−log₂ P(E) of the evidence this step recorded, under the belief just before."""
        return None if self.surprise is None else self.surprise.bits

    @property
    def unexpected_bits(self) -> float | None:
        return None if self.surprise is None else self.surprise.unexpected_bits


@dataclass
class Projection:
    """Everything a fold of a case's events knows.

    A projection either holds the whole history (``base_seq`` 0) or was restored from a saved
    fold (``fold_codec``) up to ``base_seq`` and continued from there: then ``events`` and
    ``trajectory`` hold only what came after ``base_seq``, and ``probe_runs`` and
    ``observations`` before it are small stubs (the keys views and commands read, no facts).

    Provenance: ``EvidenceState.hash``, each ``set_asides`` record's ``"hash"``, and
    ``probe_run_hashes`` / ``observation_hashes`` (seq → hash, kept apart so the payload
    dicts stay exactly the events' own) give the hash of the event each came from.
    """

    case_id: str = ""
    title: str = ""
    symptom: str | None = None
    events: list[Event] = field(default_factory=list)
    questions: dict[str, QuestionState] = field(default_factory=dict)
    hypothesis_question: dict[str, str] = field(default_factory=dict)
    evidence: dict[str, EvidenceState] = field(default_factory=dict)
    observations: dict[int, dict[str, Any]] = field(default_factory=dict)
    _probe_runs: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)
    trajectory: list[Step] = field(default_factory=list)
    warnings: WarningTracker = field(default_factory=WarningTracker)
    set_asides: list[dict[str, Any]] = field(default_factory=list)
    #: experiment id → the ``experiment.recorded`` payload with its ``seq`` and ``hash``
    experiments: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the case's environment as opened (``--env KEY=VALUE``): intake reads it
    environment: dict[str, str] = field(default_factory=dict)
    concluded: dict[str, Any] | None = None
    #: the hash of the case.concluded event (a restored fold holds no events to find it in)
    concluded_hash: str | None = None
    _graph: Any = None
    snapshots: dict[str, QuestionSnapshot] = field(default_factory=dict)
    base_seq: int = 0
    base_hash: str = GENESIS_HASH
    #: the last seq whose event changed a question (its tree, weights or evidence); what is
    #: derived from the beliefs alone (the decisive ranking) is kept under it, so a note or a
    #: probe run after it finds it instead of scoring every piece of evidence again. A
    #: restored fold starts at its own last seq, not knowing which event before it did.
    beliefs_seq: int = field(default=0, compare=False)
    _probe_run_hashes: dict[int, str] = field(default_factory=dict, repr=False)
    _observation_hashes: dict[int, str] = field(default_factory=dict, repr=False)
    #: what builds each field a restored fold fills when first read (see :meth:`restore_later`)
    _restorers: dict[str, Callable[[], Any]] = field(
        default_factory=dict, repr=False, compare=False
    )
    #: results derived from one step, which never change once that step is folded (see
    #: ``scoring``); keyed by (what, seq), bounded by whoever fills it
    _derived: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    #: indexes readers keep over what this fold has folded, updated as it grows rather than
    #: rebuilt per question (``commands._next_id``'s first free ids, the rules read and answers in
    #: force); never saved with a fold: a restored one builds them once, or starts them from
    #: the saved columns (``rules_read``, ``by_observation``, ``fact_names``)
    indexes: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: whether folding records a step per event (replay, pivots, surprise); a fold for the
    #: current state only (a one-shot status, a write) skips it: same state, a third faster
    keeps_trajectory: bool = True

    def restore_later(self, name: str, build: Callable[[], Any]) -> None:
        """Fill field ``name`` (``probe_runs``, ``probe_run_hashes`` or ``observation_hashes``)
        with ``build()`` when it is first read: a saved fold checks everything when restored,
        and a one-shot status never reads the stubs of a long case's probe runs."""
        self._restorers[name] = build

    def _restored(self, name: str) -> Any:
        build = self._restorers.pop(name, None)
        if build is not None:
            setattr(self, "_" + name, build())
        return getattr(self, "_" + name)

    @property
    def probe_runs(self) -> dict[int, dict[str, Any]]:
        """Probe run seq → its payload (a restored fold's: a stub of the keys views read)."""
        runs: dict[int, dict[str, Any]] = (
            self._restored("probe_runs") if self._restorers else self._probe_runs
        )
        return runs

    @probe_runs.setter
    def probe_runs(self, value: dict[int, dict[str, Any]]) -> None:
        self._restorers.pop("probe_runs", None)
        self._probe_runs = value

    @property
    def probe_run_hashes(self) -> dict[int, str]:
        """Probe run seq → the hash of its event."""
        hashes: dict[int, str] = (
            self._restored("probe_run_hashes") if self._restorers else self._probe_run_hashes
        )
        return hashes

    @probe_run_hashes.setter
    def probe_run_hashes(self, value: dict[int, str]) -> None:
        self._restorers.pop("probe_run_hashes", None)
        self._probe_run_hashes = value

    @property
    def observation_hashes(self) -> dict[int, str]:
        """Observation seq → the hash of its event."""
        hashes: dict[int, str] = (
            self._restored("observation_hashes") if self._restorers else self._observation_hashes
        )
        return hashes

    @observation_hashes.setter
    def observation_hashes(self, value: dict[int, str]) -> None:
        self._restorers.pop("observation_hashes", None)
        self._observation_hashes = value

    @property
    def last_seq(self) -> int:
        return self.events[-1].seq if self.events else self.base_seq

    @property
    def last_hash(self) -> str:
        """The hash of the last event folded (what the next event must chain to)."""
        return self.events[-1].hash if self.events else self.base_hash

    @property
    def event_count(self) -> int:
        """Events in the case so far, restored ones included (seqs run 1, 2, …)."""
        return self.last_seq

    def step_at(self, seq: int) -> Step | None:
        """The trajectory step of event ``seq``, or ``None`` if this projection does not hold
        it (a restored projection's trajectory starts after ``base_seq``)."""
        trajectory = self.trajectory
        if not trajectory:
            return None
        position = seq - trajectory[0].seq
        if 0 <= position < len(trajectory) and trajectory[position].seq == seq:
            return trajectory[position]
        # seqs not contiguous (a hand-built stream): search
        low, high = 0, len(trajectory)
        while low < high:
            middle = (low + high) // 2
            if trajectory[middle].seq < seq:
                low = middle + 1
            else:
                high = middle
        if low < len(trajectory) and trajectory[low].seq == seq:
            return trajectory[low]
        return None

    def held_step(self, seq: int | None) -> Step | None:
        """The step views should read for "the state right after ``seq``": ``None`` for the
        live state (``seq`` is ``None`` or the last seq, even with no trajectory), else the
        trajectory's step. Raises ``DomainError`` for a seq this projection does not hold."""
        if seq is None or seq == self.last_seq:
            return None
        step = self.step_at(seq)
        if step is None:
            first = self.trajectory[0].seq if self.trajectory else self.last_seq
            restored = f"; restored from a saved fold at {self.base_seq}" if self.base_seq else ""
            raise DomainError(
                f"seq {seq} is not a step of this case as held "
                f"(steps {first}–{self.last_seq}{restored})"
            )
        return step

    def adopt(self, sealed: Sequence[Event]) -> None:
        """Swap the last events folded for the same events as the store sealed them.

        A draft folds events sealed provisionally (their seq predicted, their hash not real);
        once appended, the store's events carry the same seqs, types and payloads and the real
        hashes, which the provenance fields then take. Raises ``DomainError`` if the sealed
        events are not the ones folded last (the fold would no longer describe the case).
        """
        count = len(sealed)
        if not count:
            return
        held = self.events[-count:]
        if len(held) != count or any(
            a.seq != b.seq or a.type != b.type or a.payload != b.payload
            for a, b in zip(held, sealed, strict=True)
        ):
            raise DomainError("the sealed events are not the events folded last")
        self.events[-count:] = list(sealed)
        for event in sealed:
            if event.type == "evidence.assessed":
                self.evidence[EvidenceAssessed.of(event.payload).evidence_id].hash = event.hash
            elif event.type == "probe.ran":
                self.probe_run_hashes[event.seq] = event.hash
            elif event.type == "observation.recorded":
                self.observation_hashes[event.seq] = event.hash
            elif event.type == "reading.set_aside":
                for record in reversed(self.set_asides):
                    if record["seq"] == event.seq:
                        record["hash"] = event.hash
                        break
        self._derived.clear()  # cached results carry hashes

    def confidences(self) -> dict[str, float]:
        """Every hypothesis's (and catch-all's) current confidence, across questions."""
        out: dict[str, float] = {}
        for question in self.questions.values():
            out.update(question.confidences)
        return out

    @property
    def graph(self) -> Any:
        """The networkx graph of questions, hypotheses, evidence, observations and probe runs.

        Built from the folded state on first use (and again after more events are folded), so
        folding a long case pays nothing for it until a view asks.
        """
        if self._graph is None:
            from casefile.domain.beliefs.graph import build_graph

            self._graph = build_graph(self)
        return self._graph

    def pivots(self) -> list[Step]:
        return [step for step in self.trajectory if step.pivots]
