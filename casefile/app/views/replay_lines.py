"""``replay --jsonl``: the replay one line per step, each step carrying only what it changed.

The shape (``docs/replay-jsonl.md``): a first line ``{"case": …}``; one line per step with the
keys of a ``replay --json`` step in the same order, except that ``questions`` holds only the
questions this step changed, and of each only what changed (see :func:`question_delta`); a
last line ``{"summary": …, "names": …}``. Most steps of a long case change no question, so a
line is a step's own few fields where ``--json`` repeats every confidence of every question.

:func:`rebuild_steps` and :func:`rebuild_replay` give the full form back: the same steps and
the same document, key for key and number for number, as ``replay --json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from casefile.app.views.replay import ReplayQuestion, ReplayStep, encode_json
from casefile.app.views.replay_stream import ReplayStream

#: A question's fields besides its confidences, in ``replay --json``'s order.
FIELDS = (
    "leader",
    "leading_leaf",
    "pivot",
    "previous_leader",
    "pivot_depth",
    "previous_leading_leaf",
)


#: In a step's ``questions``: every question id in order, when they are not the ones the step
#: before held with new ones last (never a question id: ids start with a letter or digit).
ORDER = "__order__"


#: a confidence the question did not hold before
_ABSENT: Any = object()


def _same(a: Any, b: Any) -> bool:
    """Equal and written alike (``1 == 1.0`` and ``0.0 == -0.0`` are not the same text)."""
    return a.__class__ is b.__class__ and a == b and (a != 0 or repr(a) == repr(b))


def question_delta(before: ReplayQuestion | None, now: ReplayQuestion) -> dict[str, Any]:
    """What a question's line holds: each of :data:`FIELDS` that changed, and ``confidences``
    with the values that changed, merged into the ones held before (new keys go last). When
    that merge would not give the whole dict back in its order (the question is new, a key
    went away, or a new key is not the last), the delta is the whole question with
    ``"whole": true``."""
    whole = before is None
    changed: dict[str, float] = {}
    if before is not None and before.confidences is not now.confidences:
        old = before.confidences
        if list(now.confidences)[: len(old)] != list(old):  # not old's keys, in order, first
            whole = True
        else:
            # the values not written alike (`_same`, inlined: a changed question changes
            # most of its ~30 confidences, and this runs for each of them)
            changed = {
                hid: value
                for hid, value in now.confidences.items()
                if (held := old.get(hid, _ABSENT)) is _ABSENT
                or value != held
                or value.__class__ is not held.__class__
                or (value == 0 and repr(value) != repr(held))
            }
    if whole:
        out = now.to_json()
        out["whole"] = True
        return out
    assert before is not None
    delta = {
        name: getattr(now, name)
        for name in FIELDS
        if not _same(getattr(now, name), getattr(before, name))
    }
    if changed:
        delta["confidences"] = changed
    return delta


def jsonl_lines(stream: ReplayStream) -> Iterator[str]:
    """The lines of ``replay --jsonl`` (without their newlines), as the case folds."""
    yield case_line(stream)
    yield from step_lines(stream.steps(with_changes=False))
    yield summary_line(stream.summary().to_json(), stream.names)


def case_line(stream: ReplayStream) -> str:
    """The first line: the case's header."""
    return encode_json({"case": stream.case.to_json()})


def summary_line(summary: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The last line: the replay's summary (``ReplaySummary.to_json()``) and the names."""
    return encode_json({"summary": summary, "names": dict(names)})


def step_lines(
    steps: Iterable[ReplayStep], before: Mapping[str, ReplayQuestion] | None = None
) -> Iterator[str]:
    """A line per step (taken without ``changes``), each with the questions it changed since
    the one before; ``before``: the questions held before the first (none: a replay's start)."""
    line = StepLines(before)
    for step in steps:
        yield line(step)


def lines_after_seed(steps: Iterator[ReplayStep], seed: int) -> Iterator[str]:
    """The lines of the steps after the seed that ``steps`` (``ReplayStream.steps(seed=…)``)
    hands out first."""
    first = next(steps)
    if first.seq != seed:  # the stores keep seqs contiguous; a gap would drop a step
        raise ValueError(f"the replay's seed is seq {first.seq}, not {seed}")
    return step_lines(steps, first.questions)


class StepLines:
    """Writes each step's line as it comes (:func:`step_lines`), holding the questions of the
    step before; a walk may stop and go on through the same one."""

    def __init__(self, before: Mapping[str, ReplayQuestion] | None = None) -> None:
        self.held: Mapping[str, ReplayQuestion] = {} if before is None else before

    def __call__(self, step: ReplayStep) -> str:
        now, held = step.questions, self.held
        if now is held:  # most steps: the questions the step before held, unchanged
            return step.json_text("{}", changes=False)
        questions: dict[str, Any] = {}
        for qid, question in now.items():
            old = held.get(qid)
            if old is not question:
                delta = question_delta(old, question)
                if delta:
                    questions[qid] = delta
        if list(now)[: len(held)] != list(held):  # not the same ones, new ones last
            questions[ORDER] = list(now)
        self.held = now
        return step.json_text(encode_json(questions) if questions else "{}", changes=False)


def rebuild_steps(lines: Iterable[str | Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Each step of a ``replay --jsonl`` output in full, as ``replay --json`` lists it (the
    case and summary lines are skipped; :func:`rebuild_replay` keeps them)."""
    for line in _parsed(lines):
        if "seq" in line:
            yield line


def rebuild_replay(lines: Iterable[str | Mapping[str, Any]]) -> dict[str, Any]:
    """The whole ``replay --json`` document from the lines of ``replay --jsonl``."""
    out: dict[str, Any] = {"case": None, "steps": []}
    for line in _parsed(lines):
        if "seq" in line:
            out["steps"].append(line)
        elif "case" in line:
            out["case"] = line["case"]
        else:
            out["summary"] = line["summary"]
            out["names"] = line["names"]
    return out


def _parsed(lines: Iterable[str | Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Each line as a dict, a step's ``questions`` made whole from the steps before it and its
    ``changes`` derived from them."""
    held: dict[str, dict[str, Any]] = {}
    for raw in lines:
        line = dict(json.loads(raw) if isinstance(raw, str) else raw)
        if "seq" not in line:
            yield line
            continue
        deltas = dict(line["questions"])
        order = deltas.pop(ORDER, None)
        before = held
        held = dict(held)
        for qid, delta in deltas.items():
            if delta.get("whole"):
                question = {k: v for k, v in delta.items() if k != "whole"}
                question["confidences"] = dict(question["confidences"])
            else:
                question = dict(held[qid])
                question.update({k: v for k, v in delta.items() if k != "confidences"})
                if "confidences" in delta:
                    question["confidences"] = {**question["confidences"], **delta["confidences"]}
            held[qid] = question
        if order is not None:
            held = {qid: held[qid] for qid in order}
        yield _whole_line(line, held, _changes(before, held, deltas))


def _changes(
    before: Mapping[str, Mapping[str, Any]],
    now: Mapping[str, Mapping[str, Any]],
    deltas: Mapping[str, Any],
) -> dict[str, float]:
    """A step's ``changes`` as ``replay --json`` gives them: in the step's question order, each
    confidence of a question the step changed that differs from the step before's (or that it
    did not hold), less that one (0 where there was none). A question with no delta holds
    the confidences it held, so it changes nothing."""
    changes: dict[str, float] = {}
    for qid, question in now.items():
        if qid not in deltas:
            continue
        old = before[qid]["confidences"] if qid in before else {}
        changes.update(
            {
                hid: value - old.get(hid, 0.0)
                for hid, value in question["confidences"].items()
                if hid not in old or value != old[hid]
            }
        )
    return changes


def _whole_line(
    line: Mapping[str, Any], questions: Mapping[str, Any], changes: dict[str, float]
) -> dict[str, Any]:
    """The step as ``replay --json`` lists it: its ``questions`` whole, ``changes`` after them."""
    whole: dict[str, Any] = {}
    for key, value in line.items():
        if key == "questions":
            whole[key] = dict(questions)  # shared with later steps until a question changes
            whole["changes"] = changes
        elif key != "changes":  # lines written before the changes were derived carried them
            whole[key] = value
    return whole
