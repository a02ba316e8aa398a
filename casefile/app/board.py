"""A case held open for a screen: fold once, index every step, hand out immutable frames.

The terminal UI keeps one :class:`Board` per open case, inside the one thread that talks to the
service (see ``casefile/tui/backend.py``). The board holds the case's history session (every
step's snapshot), a :class:`~casefile.app.views.board.BoardIndex` extended as events arrive, and
a small cache of frames by seq, so replay scrubbing and live updates both cost a lookup plus the
rows of one frame. What leaves the board is a frozen view (frames, timeline rows as a tuple,
details); nothing a UI holds is ever written to again.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casefile.app.views.board import (
    BoardIndex,
    EvidencePreview,
    Frame,
    TimelineRow,
    build_frame,
    preview_evidence,
)
from casefile.app.views.steps_at import CaseSteps
from casefile.domain.event_types.hypothesis import (
    HypothesisProposed,
    HypothesisRefined,
    HypothesisReinstated,
    HypothesisRetired,
    PriorsRebalanced,
)

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.views import EventDetail, HypothesisDetail
    from casefile.app.views.steps import ProbeRow
    from casefile.domain.beliefs import Projection
    from casefile.domain.beliefs.ranking import Candidate

#: Frames kept by seq (a replay walks back and forth over a few of them).
FRAME_CACHE = 64
#: Cases longer than this open with a glance (head and newest rows) before the full fold.
GLANCE_AFTER = 20_000
#: The newest events a glance lists.
GLANCE_ROWS = 1_000


@dataclass(frozen=True, slots=True)
class BoardState:
    """What a screen needs after opening or refreshing a case."""

    case_id: str
    rows: tuple[TimelineRow, ...]
    pivots: tuple[int, ...]
    warnings: tuple[int, ...]  # steps that raised a warning
    frame: Frame  # at the head
    new_rows: int  # rows added by this refresh (all of them on open)
    rewritten: bool = False  # the history changed under the board, which started again
    integrity: tuple[str, ...] = ()
    #: only the newest events and the head, from the saved fold: the history is on its way
    partial: bool = False


#: The events that change what a hypothesis's detail shows of the node itself, by type.
_NODE_CHANGES: dict[str, type[HypothesisRefined | HypothesisRetired | HypothesisReinstated]] = {
    "hypothesis.refined": HypothesisRefined,
    "hypothesis.retired": HypothesisRetired,
    "hypothesis.reinstated": HypothesisReinstated,
}


class Board:
    """One case, folded with its history, for a long-lived front end (single-threaded)."""

    def __init__(self, service: CaseService, case_id: str) -> None:
        self.service = service
        self.case_id = case_id
        self._index = BoardIndex()
        self._frames: OrderedDict[int, Frame] = OrderedDict()
        self._offered: list[Candidate] | None = None
        self._names: dict[str, str] | None = None

    @property
    def projection(self) -> Projection:
        return self.service.sessions.session(self.case_id, history=True).projection

    def glance(self) -> BoardState:
        """A first screen for a long case, before its history is folded: the head as the
        saved fold (snapshot) knows it, and the newest :data:`GLANCE_ROWS` events. Replay,
        sparklines and markers come with :meth:`refresh`."""
        from casefile.app.views.board import tail_rows

        session = self.service.sessions.session(self.case_id, history=False)
        session.refresh()
        projection = session.projection
        head = projection.last_seq
        events = self.service.reader.events(self.case_id, after=max(0, head - GLANCE_ROWS))
        steps = CaseSteps(projection, self.service.reader.offers(projection))

        def ranked(_seq: int) -> tuple[ProbeRow, ...]:
            return steps.steps_at().probes

        frame = build_frame(projection, BoardIndex(), head, ranked=ranked)
        return BoardState(
            case_id=self.case_id,
            rows=tuple(tail_rows(events)),
            pivots=(),
            warnings=(),
            frame=frame,
            new_rows=len(events),
            integrity=tuple(self.service.reader.integrity_warnings(self.case_id)),
            partial=True,
        )

    def refresh(self) -> BoardState:
        """Fold what was appended since the last look (by anyone) and index it."""
        refreshed = self.service.sessions.session(self.case_id, history=True).refresh()
        if refreshed.rewritten:
            self._index = BoardIndex()
        before = self._index.covered
        added = self._index.extend(self.projection)
        if added or refreshed.rewritten or before == 0:
            self._frames.clear()
            self._offered = None
            self._names = None
        return self._state(len(added), rewritten=refreshed.rewritten)

    def _state(self, new_rows: int, *, rewritten: bool = False) -> BoardState:
        projection = self.projection
        return BoardState(
            case_id=self.case_id,
            rows=tuple(self._index.rows),
            # every change of leader, at any depth of the tree ([ and ] step through them)
            pivots=tuple(sorted({*self._index.pivot_seqs, *self._index.subpivot_seqs})),
            warnings=tuple(self._index.warning_seqs),
            frame=self.frame(projection.last_seq),
            new_rows=new_rows,
            rewritten=rewritten,
            integrity=tuple(self.service.reader.integrity_warnings(self.case_id)),
        )

    def frame(self, seq: int) -> Frame:
        """The screen right after event ``seq``: tree, warnings and next steps as they were."""
        projection = self.projection
        seq = max(1, min(seq, projection.last_seq))
        cached = self._frames.get(seq)
        if cached is not None:
            self._frames.move_to_end(seq)
            return cached
        if self._names is None:
            from casefile.app.views import names_table

            self._names = names_table(projection)
        frame = build_frame(projection, self._index, seq, ranked=self._ranked, names=self._names)
        self._frames[seq] = frame
        if len(self._frames) > FRAME_CACHE:
            self._frames.popitem(last=False)
        return frame

    def _ranked(self, seq: int) -> tuple[ProbeRow, ...]:
        projection = self.projection
        if self._offered is None:
            self._offered = self.service.reader.offers(projection)
        return CaseSteps(projection, self._offered).steps_at(seq).probes

    def event_detail(self, seq: int) -> EventDetail:
        return self.service.reader.event_detail(self.case_id, seq)

    def hypothesis_detail(self, hypothesis_id: str, seq: int | None = None) -> HypothesisDetail:
        """Why a confidence is what it is right after step ``seq`` (``None``: now), exactly as
        ``casefile hypothesis show --to SEQ`` says it.

        An earlier step is read from the captured trajectory (the bits of each evidence on
        that step's tree, the confidence of its snapshot): no refold. Only when the node itself
        changed after that step (reworded, re-prioritised, retired or reinstated) do its text,
        prior or status differ from today's; then, and only then, the case is folded up to it.
        """
        from casefile.app.views import build_hypothesis_detail
        from casefile.domain.beliefs.scoring import contributions, prior_log_odds_bits

        projection = self.projection
        if seq is None or seq >= projection.last_seq:
            return self.service.reader.hypothesis_detail(self.case_id, hypothesis_id)
        step = projection.step_at(seq)
        qid = projection.hypothesis_question.get(hypothesis_id) or hypothesis_id.rsplit("/", 1)[0]
        snapshot = step.snapshots.get(qid) if step is not None else None
        if snapshot is None or self._node_changed_after(hypothesis_id, qid, seq):
            return self.service.reader.hypothesis_detail(self.case_id, hypothesis_id, upto=seq)
        structure = snapshot.structure
        node = structure.index.get(hypothesis_id)
        if node is None and not hypothesis_id.endswith("/catch-all"):
            return self.service.reader.hypothesis_detail(self.case_id, hypothesis_id, upto=seq)
        children = (
            ()
            if node is None
            else tuple(structure.ids[i] for i, up in enumerate(structure.parent) if up == node)
        )
        return build_hypothesis_detail(
            projection,
            hypothesis_id,
            contributions=contributions(projection, hypothesis_id, seq),
            prior_log_odds_bits=prior_log_odds_bits(projection, hypothesis_id, seq),
            confidence=snapshot.confidences.get(hypothesis_id, 0.0),
            children=children,
            # whether it applied then: that step's answers, not today's
            does_not_apply=None if node is None else structure.inapplicable[node],
        )

    def _node_changed_after(self, hypothesis_id: str, question_id: str, seq: int) -> bool:
        """Whether anything after ``seq`` changed what the detail shows of the node itself."""
        for event in self.projection.events:
            if event.seq <= seq:
                continue
            node_change = _NODE_CHANGES.get(event.type)
            if node_change is not None:
                changed = node_change.of(event.payload).hypothesis_id == hypothesis_id
            elif event.type == "priors.rebalanced":  # shares moved
                changed = PriorsRebalanced.of(event.payload).question_id == question_id
            elif event.type == "hypothesis.proposed" and hypothesis_id.endswith("/catch-all"):
                # the catch-all gave up some of its prior
                changed = HypothesisProposed.of(event.payload).question_id == question_id
            else:
                changed = False
            if changed:
                return True
        return False

    def preview_evidence(
        self,
        likelihoods: dict[str, float],
        otherwise: float,
        kind: str,
        reliability: float | None,
        *,
        probe_run_seq: int | None = None,
        observation_seq: int | None = None,
        supersedes: str | None = None,
    ) -> EvidencePreview:
        """What recording this evidence now would do to its question (nothing is folded).

        The record's own command builds the event first and it is thrown away: whatever the
        case would refuse on record (a seq that is no probe run, evidence already superseded
        or on another question, a retired hypothesis) is refused here, in the same words."""
        from casefile.domain import commands
        from casefile.domain.kinds import DEFAULT_RELIABILITY

        commands.assess_evidence(
            self.projection,
            likelihoods,
            "preview",
            otherwise=otherwise,
            kind=kind,
            reliability=reliability,
            probe_run_seq=probe_run_seq,
            observation_seq=observation_seq,
            supersedes=supersedes,
        )
        trust = DEFAULT_RELIABILITY[kind] if reliability is None else reliability
        return preview_evidence(self.projection, likelihoods, otherwise, trust)
