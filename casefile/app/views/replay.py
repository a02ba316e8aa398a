"""The replay view: the case event by event, how confidences moved, and where the story went.

``build_replay`` reads the trajectory a fold already made (one snapshot per event) and the
suggestions the service worked out; it never refolds. ``to_json`` is the README's ``replay
--json`` shape plus, per step, ``hash`` (of the event), ``text`` (a note's or an action's own
words; on those steps only) and ``outcome`` (an action's, when it has one); and, beside
``steps``, ``summary`` (``pivots``, ``leaders`` at the end) and ``names`` (hypothesis id →
text, catch-alls included).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from casefile.app.views.common import CaseHeader, build_case_header
from casefile.app.views.names import names_table
from casefile.app.views.replay_summary import ReplaySummary, summarise_replay
from casefile.app.views.steps import ProbeRow, Suggestion
from casefile.app.views.summaries import detail, own_text, summarise
from casefile.app.views.warning_groups import WarningRow, warning_rows
from casefile.domain.beliefs import Projection, Step
from casefile.domain.beliefs.projection import SURPRISE_FLAG_BITS
from casefile.domain.beliefs.question import QuestionSnapshot
from casefile.domain.beliefs.ranking import ProbeStep
from casefile.domain.collector import collector_paused
from casefile.domain.events import Event


@dataclass(frozen=True, slots=True)
class ReplayQuestion:
    """One question right after one event.

    ``pivot`` keeps its meaning (the top-level leader changed); ``pivot_depth`` is the
    shallowest depth at which the leader path changed (0 with ``pivot``, deeper for a pivot
    inside the leader's subtree, ``None`` for neither), with the leading leaf held before.
    """

    leader: str
    leading_leaf: str
    pivot: bool
    previous_leader: str | None
    confidences: Mapping[str, float]  # a private copy; steps that changed nothing share it
    pivot_depth: int | None = None
    previous_leading_leaf: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "leading_leaf": self.leading_leaf,
            "pivot": self.pivot,
            "previous_leader": self.previous_leader,
            "pivot_depth": self.pivot_depth,
            "previous_leading_leaf": self.previous_leading_leaf,
            "confidences": dict(self.confidences),
        }


class ReplayStep(NamedTuple):
    """One event of the replay and the state right after it.

    A named tuple, as the fold's :class:`~casefile.domain.beliefs.Step` is: a replay makes
    one per event, and a frozen dataclass pays for each of its seventeen fields on
    construction (1.3 µs of a step's ~25).
    """

    seq: int
    type: str
    actor: str
    when: str
    hash: str
    summary: str
    detail: str | None
    text: str | None  # note.added / action.taken only
    outcome: str | None  # action.taken only
    questions: Mapping[str, ReplayQuestion]
    changes: Mapping[str, float]  # hypothesis → confidence change this step
    surprise_bits: float | None
    unexpected_bits: float | None
    surprising: bool
    warnings_raised: tuple[WarningRow, ...]
    warnings_cleared: tuple[WarningRow, ...]
    suggestion: Suggestion | None

    def confidence(self, hypothesis_id: str) -> float:
        """A hypothesis's confidence right after this step (0.0 if no question has it)."""
        for question in self.questions.values():
            if hypothesis_id in question.confidences:
                return float(question.confidences[hypothesis_id])
        return 0.0

    def to_json(self) -> dict[str, Any]:
        out = self._head()
        out["questions"] = {qid: q.to_json() for qid, q in self.questions.items()}
        out.update(self._tail())
        return out

    def json_text(self, questions: str, changes: bool = True) -> str:
        """``json.dumps(self.to_json(), ensure_ascii=False)`` with ``questions`` (the text of
        the step's questions object, or of a ``--jsonl`` delta) in its place: written field by
        field, since a long replay writes one per event and the dicts and the encoder's
        entry steps cost more than the text. ``changes=False`` leaves ``changes`` out (a
        ``--jsonl`` line: they follow from the confidences)."""
        string = _STRING  # the fields typed str are always str: no dispatch on their type
        detail = self.detail
        bits = self.surprise_bits
        unexpected = self.unexpected_bits
        moved = self.changes
        raised = self.warnings_raised
        cleared = self.warnings_cleared
        shown = f', "changes": {_mapping(moved) if moved else "{}"}, ' if changes else ", "
        text = (
            f'{{"seq": {self.seq!r}, "type": {string(self.type)}, '
            f'"actor": {string(self.actor)}, "when": {string(self.when)}, '
            f'"hash": {string(self.hash)}, "summary": {string(self.summary)}, '
            f'"detail": {"null" if detail is None else string(detail)}, '
            f'"questions": {questions}{shown}'
            f'"surprise_bits": {"null" if bits is None else _scalar(bits)}, '
            f'"unexpected_bits": {"null" if unexpected is None else _scalar(unexpected)}, '
            f'"surprising": {"true" if self.surprising else "false"}, '
            f'"warnings_raised": {_rows(raised) if raised else "[]"}, '
            f'"warnings_cleared": {_rows(cleared) if cleared else "[]"}'
        )
        if self.text is None and self.outcome is None and self.suggestion is None:
            return text + "}"
        tail = [text]
        if self.text is not None:
            tail.append(f', "text": {string(self.text)}')
        if self.outcome is not None:
            tail.append(f', "outcome": {string(self.outcome)}')
        if self.suggestion is not None:
            tail.append(f', "suggestion": {encode_json(self.suggestion.to_json())}')
        tail.append("}")
        return "".join(tail)

    def _head(self) -> dict[str, Any]:
        """The keys before ``questions``, in the shape's order."""
        return {
            "seq": self.seq,
            "type": self.type,
            "actor": self.actor,
            "when": self.when,
            "hash": self.hash,
            "summary": self.summary,
            "detail": self.detail,
        }

    def _tail(self) -> dict[str, Any]:
        """The keys after ``questions``, in the shape's order."""
        out: dict[str, Any] = {
            "changes": dict(self.changes),
            "surprise_bits": self.surprise_bits,
            "unexpected_bits": self.unexpected_bits,
            "surprising": self.surprising,
            "warnings_raised": [w.to_json() for w in self.warnings_raised],
            "warnings_cleared": [w.to_json() for w in self.warnings_cleared],
        }
        if self.text is not None:
            out["text"] = self.text
        if self.outcome is not None:
            out["outcome"] = self.outcome
        if self.suggestion is not None:
            out["suggestion"] = self.suggestion.to_json()
        return out


@dataclass(frozen=True, slots=True)
class ReplayView:
    case: CaseHeader
    steps: tuple[ReplayStep, ...]
    summary: ReplaySummary
    names: Mapping[str, str]  # hypothesis id → current text, catch-alls included

    def to_json(self) -> dict[str, Any]:
        with collector_paused():
            steps = [s.to_json() for s in self.steps]
        return {
            "case": self.case.to_json(),
            "steps": steps,
            "summary": self.summary.to_json(),
            "names": dict(self.names),
        }

    def to_json_text(self) -> str:
        """Exactly ``json.dumps(self.to_json(), ensure_ascii=False)``, made faster.

        A long replay repeats itself: most steps change no question, so their ``questions``
        object is the one the step before printed. Each distinct one is encoded once and the
        text spliced in, which makes the encoding a fraction of encoding every step whole.
        """
        encode = encode_json
        seen: dict[tuple[Any, ...], str] = {}
        parts: list[str] = []
        with collector_paused():
            by_object: dict[int, str] = {}
            for step in self.steps:
                questions = by_object.get(id(step.questions))
                if questions is not None:
                    parts.append(step.json_text(questions))
                    continue
                key = tuple(
                    (
                        qid,
                        id(q.confidences),
                        q.leader,
                        q.leading_leaf,
                        q.pivot,
                        q.previous_leader,
                        q.pivot_depth,
                        q.previous_leading_leaf,
                    )
                    for qid, q in step.questions.items()
                )
                questions = seen.get(key)
                if questions is None:
                    questions = seen[key] = encode(
                        {qid: q.to_json() for qid, q in step.questions.items()}
                    )
                by_object[id(step.questions)] = questions
                parts.append(step.json_text(questions))
        return (
            f'{{"case": {encode(self.case.to_json())}, "steps": [{", ".join(parts)}], '
            f'"summary": {encode(self.summary.to_json())}, "names": {encode(dict(self.names))}}}'
        )


_ENCODER = json.JSONEncoder(ensure_ascii=False)
_STRING: Any = json.encoder.encode_basestring
_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)


def encode_json(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``, the replay's JSON, by the C encoder that
    ``dumps`` ends in, called directly (a replay encodes a few values per event, and the steps
    before the C encoder cost as much as encoding a short one)."""
    if _C_ENCODER is None:
        return _ENCODER.encode(value)
    encode = _C_ENCODER({}, _ENCODER.default, _STRING, None, ": ", ", ", False, False, True)
    return "".join(encode(value, 0))


def _scalar(value: object) -> str:
    """A string, an integer, a boolean or null as :func:`encode_json` writes it."""
    if value is None:
        return "null"
    cls = value.__class__
    if cls is str:
        return str(_STRING(value))
    if cls is bool:
        return "true" if value else "false"
    if cls is int:
        return int.__repr__(value)
    return encode_json(value)  # a float: the encoder's form (nan, inf included)


def _mapping(values: Mapping[str, float]) -> str:
    return encode_json(values if values.__class__ is dict else dict(values)) if values else "{}"


def _rows(rows: tuple[WarningRow, ...]) -> str:
    return encode_json([row.to_json() for row in rows]) if rows else "[]"


def build_replay(
    projection: Projection,
    *,
    upto: int | None = None,
    suggestions: Mapping[int, ProbeRow | ProbeStep] | None = None,
) -> ReplayView:
    """Every step of ``projection`` up to seq ``upto``; ``suggestions`` (seq → best probe) are
    what the service ranked where a "never measured" warning was raised (see
    :meth:`~casefile.app.views.steps_at.CaseSteps.suggestions`)."""
    wanted = suggestions or {}
    # id(snapshot) → its confidences, copied once; −id(snapshot) → its unpivoted question row
    copies: dict[Any, Any] = {}
    steps: list[ReplayStep] = []
    previous: Step | None = None
    with collector_paused():
        for step, event in zip(projection.trajectory, projection.events, strict=True):
            if upto is not None and step.seq > upto:
                break
            steps.append(replay_step(step, event, previous, wanted.get(step.seq), copies))
            previous = step
    names = names_table(projection)
    return ReplayView(
        build_case_header(projection), tuple(steps), summarise_replay(steps, names), names
    )


def _confidences(snap: QuestionSnapshot, copies: dict[Any, Any]) -> Mapping[str, float]:
    copied = copies.get(id(snap))
    if copied is None:
        copied = copies[id(snap)] = dict(snap.confidences)
    return copied


def replay_step(
    step: Step,
    event: Event,
    previous: Step | None,
    best: ProbeRow | ProbeStep | None = None,
    copies: dict[Any, Any] | None = None,
    with_changes: bool = True,
) -> ReplayStep:
    """One step; ``copies`` lets the steps of one replay share the confidences of a snapshot
    that did not change (most steps change nothing). ``with_changes=False``: the step's
    ``changes`` are left empty, for a reader that derives them (``replay --jsonl``)."""
    copies = {} if copies is None else copies
    questions: dict[str, ReplayQuestion] = {}
    changes: dict[str, float] = {}
    # a step that changed no question holds the snapshots dict the step before held: its
    # questions are that step's too (the fold shares the dict between such steps)
    moved = step.pivot_depths  # every question whose leader path changed (pivots included)
    held = ("questions", id(step.snapshots))
    shared = copies.get(held) if not moved else None
    if shared is not None and not step.changed:
        questions = shared
    for qid, snap in () if questions else step.snapshots.items():
        depth = moved.get(qid)
        if depth is None:
            # a question this step left alone is the one the step before showed: one object
            # per snapshot, not one per step (most steps change nothing)
            key = -id(snap)
            same = copies.get(key)
            if same is None:
                same = copies[key] = ReplayQuestion(
                    snap.leader, snap.leading_leaf, False, None, _confidences(snap, copies)
                )
            questions[qid] = same
        else:
            pivot = step.pivots.get(qid)
            questions[qid] = ReplayQuestion(
                snap.leader,
                snap.leading_leaf,
                pivot is not None,
                None if pivot is None else pivot[0],
                _confidences(snap, copies),
                depth[0],
                depth[1],
            )
        confidences = questions[qid].confidences
        if with_changes and qid in step.changed:
            before = previous.snapshots.get(qid) if previous else None
            old = before.confidences if before is not None else {}
            changes.update(
                {
                    hid: value - old.get(hid, 0.0)
                    for hid, value in confidences.items()
                    if hid not in old or value != old[hid]
                }
            )
    if not moved:
        copies[held] = questions
    text, outcome = own_text(event)
    unexpected = step.unexpected_bits
    return ReplayStep(  # positionally: one per event of the case
        step.seq,
        step.type,
        event.actor,
        event.when,
        event.hash,
        summarise(event),
        detail(event),
        text,
        outcome,
        questions,
        changes,
        step.surprise_bits,
        unexpected,
        unexpected is not None and unexpected >= SURPRISE_FLAG_BITS,
        warning_rows(step.raised) if step.raised else (),
        warning_rows(step.cleared) if step.cleared else (),
        None if best is None else Suggestion.of(best),
    )
