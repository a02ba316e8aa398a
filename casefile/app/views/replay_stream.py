"""The replay, step by step as the case folds, in memory that does not grow with its history.

:func:`~casefile.app.views.replay.build_replay` reads a fold that holds a snapshot of every
step: on a 100,000-event case that fold, the views built from it and the whole JSON text are in
memory at once. :class:`ReplayStream` instead reads the case a page of events at a time, folds
the page, hands out its steps and lets them go (the fold keeps its state, not its history), so
what it holds is the case's current state plus one page.

What a step carries is what ``build_replay`` gives it, to the byte: the same step builder, and
the probe suggested where a leader was never measured ranked on that step's belief with the
candidates the case offers at its head (as ``replay`` ranks them). The head's header, names and
candidates come from the case's current state, read before the first step (a saved fold serves
it, as for ``status``). :meth:`ReplayStream.json_chunks` writes ``replay --json``'s text in
pieces; ``replay --jsonl``'s shape is :mod:`casefile.app.views.replay_lines`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from casefile.app.views.common import CaseHeader, build_case_header
from casefile.app.views.names import names_table
from casefile.app.views.replay import ReplayQuestion, ReplayStep, encode_json, replay_step
from casefile.app.views.replay_summary import ReplaySummary, summarise_replay
from casefile.domain.beliefs import Projection, Step, project
from casefile.domain.collector import collector_paused

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.domain.beliefs.ranking import Candidate
    from casefile.domain.events import Event

#: Events read and folded at a time.
PAGE_EVENTS = 2_000

#: ``load(after, upto)``: the events with ``after < seq <= upto``, in seq order.
Loader = Callable[[int, int], Sequence["Event"]]

Encode = Callable[[Any], str]


@dataclass
class ReplayStream:
    """A case's replay read page by page; :meth:`steps` may be walked once."""

    case: CaseHeader  # at the head, as ``replay`` shows it whatever ``upto``
    names: Mapping[str, str]  # hypothesis id → its text at the head
    offered: Sequence[Candidate]  # what the head's playbooks offer (see ``candidates.offers``)
    load: Loader
    upto: int | None = None
    suggestions: int = 20  # at most this many steps carry a suggestion
    page: int = PAGE_EVENTS
    #: the fold :meth:`steps` walks: the case's state, and only the page being handed out
    fold: Projection | None = None
    #: the summary's pivots and subpivots so far, and the last step
    _pivots: list[ReplaySummary] = field(default_factory=list)
    _last: list[ReplayStep] = field(default_factory=list)

    def again(self, upto: int | None) -> ReplayStream:
        """Another walk of the same case, up to ``upto``: the head this one read, nothing of
        its walk."""
        return ReplayStream(
            self.case, self.names, self.offered, self.load, upto, self.suggestions, self.page
        )

    @property
    def last(self) -> int:
        """The seq of the last step :meth:`steps` hands out."""
        return self.case.last_seq if self.upto is None else min(self.upto, self.case.last_seq)

    def steps(
        self, with_changes: bool = True, seed: int | None = None
    ) -> Generator[ReplayStep, None, None]:
        """Every step up to ``upto`` (the head when ``None``), in seq order; without their
        ``changes`` for a reader that derives them (``with_changes=False``).

        With ``seed``, the steps before that seq are only folded (and counted for the
        suggestions they used up), and the step at ``seed`` comes first: it gives a reader the
        questions held before the steps it writes, and is neither a pivot of this stream's
        summary nor its last step. A replay split between processes walks its tail so
        (:mod:`casefile.cli.replay_split`)."""
        from casefile.app.views.steps_at import CaseSteps

        last = self.last
        first = 0 if seed is None else seed  # the first step handed out
        projection = self.fold = Projection()
        at = CaseSteps(projection, self.offered)
        previous: Step | None = None
        suggested = 0
        read = 0  # the seq of the last event read
        # one pause for the whole walk: what a page lets go is freed by its reference counts
        # (nothing here forms a cycle), and a collection at every page would rescan the state
        with collector_paused():
            while read < last:
                events = self.load(read, min(read + self.page, last))
                if not events:
                    break
                project(events, into=projection)
                # ids of the snapshots this page's steps hold: valid while those steps are
                copies: dict[Any, Any] = {}
                for step, event in zip(projection.trajectory[-len(events) :], events, strict=True):
                    best = None
                    if (
                        step.raised
                        and suggested < self.suggestions
                        and any(w.code == "never-measured" for w in step.raised)
                    ):
                        best = at.steps_at(step.seq).best()
                        suggested += best is not None
                    if step.seq < first:  # before the seed: folded, not handed out
                        previous = step
                        continue
                    out = replay_step(step, event, previous, best, copies, with_changes)
                    previous = step
                    if step.seq != seed:
                        if step.pivot_depths:  # a leader moved (pivots included)
                            self._pivots.append(summarise_replay([out], self.names))
                        self._last[:] = [out]
                    yield out
                read = events[-1].seq
                # the fold keeps its state; the steps and events of this page are let go
                del projection.trajectory[:-1]
                del projection.events[:-1]

    def summary(self) -> ReplaySummary:
        """Where the story went, once :meth:`steps` has been walked."""
        last = summarise_replay(self._last, self.names)
        return ReplaySummary(
            tuple(p for s in self._pivots for p in s.pivots),
            last.leaders,
            tuple(p for s in self._pivots for p in s.subpivots),
        )

    def json_chunks(self) -> Iterator[str]:
        """``replay --json``'s text, exactly ``ReplayView.to_json_text()``, in pieces."""
        encode: Encode = encode_json
        yield f'{{"case": {encode(self.case.to_json())}, "steps": ['
        texts = QuestionTexts(encode)
        separator = ""
        for step in self.steps():
            yield separator + step.json_text(texts.of(step))
            separator = ", "
        yield (
            f'], "summary": {encode(self.summary().to_json())}, '
            f'"names": {encode(dict(self.names))}}}'
        )


class QuestionTexts:
    """A step's ``questions`` as JSON text, each question encoded once per object: steps that
    changed nothing share their questions' objects with the step before."""

    def __init__(self, encode: Encode) -> None:
        self.encode = encode
        #: qid → (the question object, its text); the object is held, so its id is never reused
        self.held: dict[str, tuple[ReplayQuestion, str]] = {}

    def of(self, step: ReplayStep) -> str:
        encode = self.encode
        parts = []
        for qid, question in step.questions.items():
            held = self.held.get(qid)
            if held is None or held[0] is not question:
                held = self.held[qid] = (question, encode(question.to_json()))
            parts.append(f"{encode(qid)}: {held[1]}")
        return "{" + ", ".join(parts) + "}"


def open_replay(service: CaseService, case_id: str, upto: int | None = None) -> ReplayStream:
    """The replay of ``case_id`` to stream, read through ``service``'s public methods: its
    current state for the header, names and candidates, and its events a page at a time."""
    from casefile.app.reader import SUGGESTIONS_LIMIT

    head = head_state(service, case_id)
    return ReplayStream(
        build_case_header(head),
        names_table(head),
        service.reader.offers(head),
        lambda after, last: service.reader.events(case_id, after=after, upto=last),
        upto,
        SUGGESTIONS_LIMIT,
    )


def head_state(service: CaseService, case_id: str, page: int = PAGE_EVENTS) -> Projection:
    """The case's current state, without its history: from its saved fold when one is stored
    (as ``status`` reads it), else folded a page at a time, each page's events let go, and
    saved as the case's fold when that was long (as ``status`` saves one), for the next
    command."""
    from casefile.app import fold_cache
    from casefile.store.base import SnapshotStore

    store = service.store
    if isinstance(store, SnapshotStore) and store.load_snapshot(case_id, fold_cache.engine_key()):
        return fold_cache.fold_case(store, case_id, save=False)[0]
    head = Projection(keeps_trajectory=False)
    after = 0
    while events := service.reader.events(case_id, after=after, upto=after + page):
        project(events, into=head)
        after = events[-1].seq
        del head.events[:-1]
    if head.last_seq >= fold_cache.SNAPSHOT_AFTER:
        fold_cache.save_snapshot(store, head)
    return head
