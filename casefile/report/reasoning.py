"""How the reasoning moved: the trajectory chart's data, pivots at every depth, and its health.

All of it is read from the fold's trajectory (one captured step per event: the confidences
right after it, pivots, surprise, warnings raised and cleared — what the replay view shows);
rankings at a pivot use the belief the fold captured at that step, never a refold (the
service's read model at a step ranks them, as it does for the TUI and the replay).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from casefile.app.views import summarise
from casefile.app.views.report_sources import TrajectoryStep
from casefile.app.views.steps import EXPERIMENT_PREFIX, INTAKE_PREFIX
from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.event_types.stored import StoredRun
from casefile.report.model import (
    Chart,
    ChartPoint,
    Health,
    Pivot,
    PivotAdvice,
    PivotNumbers,
    Series,
    Share,
    UnmeasuredSpan,
)
from casefile.report.sources import Sources, reading_of
from casefile.report.times import duration, seconds_between

#: At most this many x positions per chart: pivots always, then the evidence that moved most.
MAX_POINTS = 120
#: How many hypotheses a pivot's before/after belief lists.
BELIEF_SHOWN = 4
#: Pivots whose next step is ranked (each ranking reads one captured belief).
ADVICE_LIMIT = 40


def tree_groups(src: Sources, qid: str) -> list[tuple[str | None, list[str]]]:
    """The sibling groups of a question's tree: (None, its top level), then (parent, children)
    for each node with two or more children, in proposal order."""
    question = src.projection.questions[qid]
    groups: list[tuple[str | None, list[str]]] = [(None, [])]
    for hid, node in question.nodes.items():
        if len(node.children) >= 2:
            groups.append((hid, list(node.children)))
    return groups


def _leader(members: Sequence[str], confidences: Mapping[str, float]) -> str | None:
    present = [h for h in members if h in confidences]
    if not present:
        return None
    return max(present, key=lambda h: (confidences[h], -present.index(h)))


def build_pivots(src: Sources) -> tuple[Pivot, ...]:
    """Each change of leader: the question's own (as replay reports it) and, for every node
    with two or more children, a change of the leading child — but not a new hypothesis
    simply arriving with a larger prior (both leaders must have been there the step before)."""
    out: list[Pivot] = []
    groups = {qid: tree_groups(src, qid)[1:] for qid in src.projection.questions}
    previous: TrajectoryStep | None = None
    for step in src.trajectory:
        for qid, (old_top, new_top) in step.pivots.items():
            tops = list(src.projection.questions[qid].tops)
            out.append(_pivot(src, step, previous, qid, None, tops, (old_top, new_top)))
        for qid in step.changed:
            after = step.confidences.get(qid)
            before = previous.confidences.get(qid) if previous is not None else None
            if after is None or before is None or not groups.get(qid):
                continue
            for parent, children in groups[qid]:
                old = _leader(children, before)
                new = _leader(children, after)
                if old is not None and new is not None and old != new and new in before:
                    out.append(_pivot(src, step, previous, qid, parent, children, (old, new)))
        previous = step
    return tuple(out)


def _shares(src: Sources, members: Sequence[str], confidences: Mapping[str, float]) -> list[Share]:
    names = src.names
    ranked = sorted(
        (h for h in members if h in confidences), key=lambda h: (-confidences[h], members.index(h))
    )
    return [Share(h, names.get(h, h), confidences[h]) for h in ranked[:BELIEF_SHOWN]]


def _pivot(
    src: Sources,
    step: TrajectoryStep,
    previous: TrajectoryStep | None,
    qid: str,
    parent: str | None,
    members: Sequence[str],
    leaders: tuple[str, str],
) -> Pivot:
    after = step.confidences[qid]
    held = previous.confidences.get(qid) if previous is not None else None
    before: Mapping[str, float] = held if held is not None else {}
    event = src.event(step.seq)
    assessed = EvidenceAssessed.of(event.payload) if event.type == "evidence.assessed" else None
    observation = None if assessed is None else assessed.observation_seq
    depth = src.projection.questions[qid].depths.get(parent) if parent is not None else None
    return Pivot(
        ref=src.ref(step.seq),
        question=qid,
        parent=parent,
        before=leaders[0],
        after=leaders[1],
        reading=summarise(event) if assessed is None else reading_of(assessed),
        reading_ref=None if observation is None else src.ref(observation),
        surprise_bits=step.surprise_bits,
        belief_before=tuple(_shares(src, members, before)),
        belief_after=tuple(_shares(src, members, after)),
        depth=0 if depth is None else depth + 1,
    )


def build_charts(src: Sources, pivots: Sequence[Pivot]) -> tuple[Chart, ...]:
    return tuple(_chart(src, qid, pivots) for qid in src.projection.questions)


def _chart(src: Sources, qid: str, pivots: Sequence[Pivot]) -> Chart:
    question = src.projection.questions[qid]
    tops = list(question.tops)
    leader = question.leader
    children = list(question.nodes[leader].children) if leader in question.nodes else []
    pivot_seqs = {p.ref.seq for p in pivots if p.question == qid}
    steps = [s for s in src.trajectory if qid in s.confidences]
    wanted: dict[int, TrajectoryStep] = {}
    moved: list[tuple[float, int]] = []
    first_evidence = next(
        (i for i, s in enumerate(steps) if s.type == "evidence.assessed"), len(steps)
    )
    if steps:  # the priors: the step just before the first evidence (or the last one)
        prior = steps[max(0, first_evidence - 1)]
        wanted[prior.seq] = prior
    by_seq = {s.seq: s for s in steps}
    previous: TrajectoryStep | None = None
    for step in steps:
        if step.seq in pivot_seqs:
            wanted[step.seq] = step
        elif (
            step.type == "evidence.assessed"
            and qid in step.changed
            and previous is not None
            and step.seq not in wanted
        ):
            after = step.confidences[qid]
            before = previous.confidences[qid]
            shift = sum(abs(after.get(h, 0.0) - before.get(h, 0.0)) for h in tops)
            moved.append((-shift, step.seq))
        previous = step
    room = max(0, MAX_POINTS - len(wanted))
    moved.sort()
    for _, seq in moved[:room]:
        wanted[seq] = by_seq[seq]
    chosen = [wanted[seq] for seq in sorted(wanted)]
    hids = tops + [c for c in children if c not in tops]
    values = [s.confidences[qid] for s in chosen]
    series = tuple(
        Series(
            hypothesis=h,
            text=src.names.get(h, h),
            child=h in children,
            values=tuple(v.get(h, 0.0) for v in values),
        )
        for h in hids
    )
    points = tuple(ChartPoint(src.ref(s.seq), src.when(s.seq), s.seq in pivot_seqs) for s in chosen)
    numbers = tuple(
        PivotNumbers(src.ref(s.seq), src.when(s.seq), tuple(v.get(h, 0.0) for h in hids))
        for s, v in zip(chosen, values, strict=True)
        if s.seq in pivot_seqs
    )
    return Chart(
        question=qid,
        question_text=question.text,
        points=points,
        series=series,
        pivots=numbers,
        thinned=max(0, len(moved) - room),
    )


def build_health(src: Sources, pivots: Sequence[Pivot]) -> Health:
    steps = src.trajectory
    last = steps[-1]
    spans: list[UnmeasuredSpan] = []
    open_at: dict[tuple[str | None, str | None], TrajectoryStep] = {}
    for step in steps:
        for warning in step.raised:
            if warning.code == "never-measured":
                open_at.setdefault((warning.question, warning.subject), step)
        for warning in step.cleared:
            if warning.code != "never-measured":
                continue
            start = open_at.pop((warning.question, warning.subject), None)
            if start is not None:
                spans.append(_span(src, start, step, warning.question, warning.subject))
    for (qid, subject), start in open_at.items():
        spans.append(_span(src, start, None, qid, subject, last))
    spans.sort(key=lambda s: (s.start.seq, s.question))
    first = next(
        (
            e
            for e in src.events
            if e.type == "evidence.assessed" and EvidenceAssessed.of(e.payload).kind == "measured"
        ),
        None,
    )
    top_pivots = [p for p in pivots if p.parent is None]
    after = next((p for p in top_pivots if first is not None and p.ref.seq >= first.seq), None)
    gap = None
    if first is not None and after is not None:
        gap = duration(seconds_between(first.when, src.event(after.ref.seq).when))
    return Health(
        unmeasured=tuple(spans),
        first_measurement=None if first is None else src.ref(first.seq),
        first_pivot_after=None if after is None else after.ref,
        measurement_to_pivot=gap,
        advice=tuple(_advice(src, p) for p in top_pivots[:ADVICE_LIMIT]),
    )


def _span(
    src: Sources,
    start: TrajectoryStep,
    end: TrajectoryStep | None,
    qid: str | None,
    subject: str | None,
    last: TrajectoryStep | None = None,
) -> UnmeasuredSpan:
    until = end if end is not None else last
    assert until is not None
    return UnmeasuredSpan(
        question=qid or "",
        leader=subject or "",
        start=src.ref(start.seq),
        end=None if end is None else src.ref(end.seq),
        events=until.seq - start.seq,
        duration=duration(seconds_between(src.event(start.seq).when, src.event(until.seq).when)),
    )


def _advice(src: Sources, pivot: Pivot) -> PivotAdvice:
    """The step ranked first on the belief right after the pivot, and the first later run of
    it under the load it needs (if any): was the next step the tool suggested taken? A probe
    is taken when it runs; an A/B or an intake question offered as a step (``A/B …``,
    ``intake …``) when its rule reads the experiment or the answer."""
    best = src.steps.steps_at(pivot.ref.seq).best(pivot.question)
    if best is None:
        return PivotAdvice(pivot.ref, pivot.question, None, None, None, None)
    taken = otherwise = None
    read_by_its_rule = best.probe.startswith((EXPERIMENT_PREFIX, INTAKE_PREFIX))
    for event in src.events[pivot.ref.seq :]:
        if read_by_its_rule:
            if event.type != "evidence.assessed":
                continue
            rule = EvidenceAssessed.of(event.payload).rule
            if rule is not None and rule.id in best.rules:
                taken = src.ref(event.seq)
                break
            continue
        if event.type != "probe.ran":
            continue
        run = StoredRun(event.payload)
        if run.probe != best.probe:
            continue
        load = run.load
        if best.load != "under-load" or load == "under-load":
            taken = src.ref(event.seq)
            break
        if otherwise is None:
            otherwise = src.ref(event.seq)
    return PivotAdvice(
        pivot=pivot.ref,
        question=pivot.question,
        probe=best.probe,
        load=best.load,
        gain_bits=best.expected_gain_bits,
        taken=taken,
        otherwise=otherwise,
    )
