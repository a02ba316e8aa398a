"""The evidence with its provenance, what it ruled out, and the readings it could not use."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from casefile.app.views import ProbeRunDetail
from casefile.app.views.report_sources import EvidenceView
from casefile.app.views.standing import (
    RULED_OUT_BELOW,
    UNLIKELY,
    Reached,
    unlikely_words,
)
from casefile.domain.event_types.evidence import (
    EvidenceAssessed,
    IntakeWithdrawal,
    withdrawal_text,
)
from casefile.domain.event_types.hypothesis import HypothesisReinstated, HypothesisRetired
from casefile.domain.event_types.stored import StoredObservation, StoredRun, StoredSetAside
from casefile.report.model import (
    Alternative,
    EvidenceRow,
    Excerpt,
    Likelihood,
    Ref,
    RootCause,
    RuledOut,
    SetAside,
    Unparsed,
)
from casefile.report.sources import Sources, conditions_text, quote, reading_of, statistic_text

#: Raw output excerpts: for at most this many probe runs, this many lines of this many chars.
EXCERPT_RUNS = 12
EXCERPT_LINES = 12
EXCERPT_CHARS = 160


def build_evidence(src: Sources) -> tuple[EvidenceRow, ...]:
    """Every piece of evidence, decisive first (leave-one-out bits, largest first), then the
    superseded ones in the order they were recorded."""
    bits = {d.evidence: d.bits for d in src.decisive}
    states = sorted(src.projection.evidence, key=lambda s: s.seq)
    runs = src.projection.probe_runs
    rows = []
    for state in states:
        payload = EvidenceAssessed.of(src.event(state.seq).payload)
        run_seq = payload.probe_run_seq
        if run_seq is None and payload.observation_seq is not None:
            observation = src.projection.observations.get(payload.observation_seq)
            if observation is not None:
                run_seq = StoredObservation(observation).probe_run_seq
        stored = runs.get(run_seq) if run_seq is not None else None
        run = None if stored is None else StoredRun(stored)
        rule = payload.rule
        rows.append(
            EvidenceRow(
                evidence=state.id,
                ref=Ref(state.seq, state.hash),
                question=state.question_id,
                kind=state.kind,
                reliability=state.reliability,
                rule=None if rule is None else rule.id,
                rule_version=None if rule is None else rule.version,
                outcome=payload.outcome,
                statistic=statistic_text(payload.statistic),
                likelihoods=tuple(
                    Likelihood(h, float(v)) for h, v in sorted(state.likelihoods.items())
                ),
                otherwise=state.otherwise,
                artifact=None if run is None else run.stdout_artifact,
                conditions=None if run is None else conditions_text(run.conditions),
                bits=bits.get(state.id) if state.superseded_by is None else None,
                rationale=payload.rationale,
                withdraws=_withdrawal(payload.withdraws),
            )
        )
    rows.sort(key=lambda r: (r.bits is None, -(r.bits or 0.0), r.ref.seq))
    return tuple(rows)


def _withdrawal(withdrawn: IntakeWithdrawal | None) -> str | None:
    """What a withdrawal withdraws, in the words ``casefile log`` uses."""
    return None if withdrawn is None else withdrawal_text(withdrawn.model_dump(mode="json"))


def build_excerpts(
    src: Sources,
    rows: Sequence[EvidenceRow],
    detail: Callable[[int], ProbeRunDetail | None],
) -> tuple[Excerpt, ...]:
    """The first lines of the raw output behind the most decisive evidence (``detail`` reads a
    probe run with its artifacts through the service)."""
    seqs: list[int] = []
    for row in rows:
        run_seq = EvidenceAssessed.of(src.event(row.ref.seq).payload).probe_run_seq
        if run_seq is not None and run_seq not in seqs:
            seqs.append(run_seq)
        if len(seqs) >= EXCERPT_RUNS:
            break
    out = []
    for seq in sorted(seqs):
        run = detail(seq)
        if run is None or run.stdout is None:
            continue
        text = run.stdout.text
        lines = [] if text is None else text.splitlines()
        shown = tuple(_cut(line) for line in lines[:EXCERPT_LINES])
        out.append(
            Excerpt(
                ref=src.ref(seq),
                probe=run.probe,
                command=run.command,
                host=run.host,
                artifact=run.stdout.digest,
                lines=shown if text is not None else ("(artifact missing)",),
                more=max(0, len(lines) - EXCERPT_LINES),
            )
        )
    return tuple(out)


def _cut(line: str) -> str:
    return line if len(line) <= EXCERPT_CHARS else line[: EXCERPT_CHARS - 1] + "…"


def build_ruled_out(src: Sources) -> tuple[RuledOut, ...]:
    """Every hypothesis that ended retired, not applying, or below the threshold
    (:mod:`casefile.app.views.standing`), with what put it there: its retirement; else, if
    evidence drove it below from above, the active evidence that spoke against it most (the
    smallest likelihood ratio: bits, log₂ of its tempered P(E|h) over the ``otherwise`` it gave
    the rest, read from the numbers each evidence event stored); else it is only unlikely, its
    prior small and never raised."""
    retirements: dict[str, tuple[int, str]] = {}
    for event in src.events:
        if event.type == "hypothesis.retired":
            retirement = HypothesisRetired.of(event.payload)
            retirements[retirement.hypothesis_id] = (event.seq, retirement.reason)
        elif event.type == "hypothesis.reinstated":
            retirements.pop(HypothesisReinstated.of(event.payload).hypothesis_id, None)
    reached = Reached()
    for step in src.trajectory:
        for qid in step.changed:
            reached.see(step.seq, step.type, qid, step.confidences[qid])
    by_question: dict[str, list[EvidenceView]] = {}
    for state in src.projection.evidence:
        if state.superseded_by is None:
            by_question.setdefault(state.question_id, []).append(state)
    end = src.events[-1].seq
    out = []
    for row in src.status.hypotheses:
        if row.id.endswith("/catch-all"):
            continue
        retired = row.status == "retired"
        if not retired and row.reason is not None:
            # structure, not evidence: the case states something the hypothesis cannot hold under
            why = f"does not apply: {row.reason}"
            out.append(RuledOut(row.id, row.text, row.confidence, False, why, None, None))
            continue
        if not retired and row.confidence >= RULED_OUT_BELOW:
            continue
        if retired and row.id in retirements:
            seq, reason = retirements[row.id]
            out.append(
                RuledOut(row.id, row.text, row.confidence, True, str(reason), src.ref(seq), None)
            )
            continue
        chain = _chain(src, row.question, row.id)
        weighed = [
            (_against(state, chain), state.seq, state)
            for state in by_question.get(row.question, ())
        ]
        worst = min((w for w in weighed if w[0] < 0.0), default=None, key=lambda w: (w[0], w[1]))
        if worst is None or not reached.by(row.id, end):
            prior = reached.prior(row.id)
            words = unlikely_words(row.confidence if prior is None else prior)
            reason = f"{words}: no evidence drove it below {RULED_OUT_BELOW * 100:.0f} %"
            out.append(
                RuledOut(row.id, row.text, row.confidence, retired, reason, None, None, UNLIKELY)
            )
            continue
        bits, _, state = worst
        payload = EvidenceAssessed.of(src.event(state.seq).payload)
        reason = f"{state.id}: {reading_of(payload)} — {quote(state.rationale)}"
        ref = Ref(state.seq, state.hash)
        out.append(RuledOut(row.id, row.text, row.confidence, retired, reason, ref, bits))
    return tuple(out)


def _chain(src: Sources, qid: str, hypothesis: str) -> list[str]:
    """The hypothesis and its ancestors, most specific first."""
    nodes = src.projection.questions[qid].nodes
    chain = []
    node = nodes.get(hypothesis)
    while node is not None:
        chain.append(node.id)
        node = nodes.get(node.parent_id) if node.parent_id is not None else None
    return chain


def _against(state: EvidenceView, chain: Sequence[str]) -> float:
    """log₂ of the evidence's tempered likelihood for the hypothesis over its ``otherwise``."""
    likelihoods = state.likelihoods
    other = value = state.otherwise
    for node in chain:
        if node in likelihoods:
            value = likelihoods[node]
            break
    tempered = state.reliability * value + (1.0 - state.reliability) * other
    if other <= 0.0 or tempered <= 0.0:
        return 0.0 if tempered == other else -math.inf if tempered <= 0.0 else math.inf
    return math.log2(tempered / other)


def build_alternatives(src: Sources, causes: Sequence[RootCause]) -> tuple[Alternative, ...]:
    """For each question, the strongest alternative to its root cause (the runner-up the root
    cause was weighed against: its strongest rival at any depth,
    :func:`~casefile.app.views.report_sources.strongest_rival`) and the probe + rule expected
    to tell the two apart best (mutual information, bits; see
    :meth:`~casefile.app.views.steps_at.CaseSteps.separating`)."""
    out = []
    for cause in causes:
        alt = cause.runner_up
        if alt is None:
            continue
        confidences = src.projection.questions[cause.question].confidences
        best = src.steps.separating(cause.question, cause.hypothesis, alt)
        out.append(
            Alternative(
                question=cause.question,
                hypothesis=alt,
                text=src.names.get(alt, alt),
                confidence=confidences.get(alt, 0.0),
                against=cause.hypothesis,
                probe=None if best is None else best.probe,
                rule=None if best is None else best.rule,
                gain_bits=None if best is None else best.gain_bits,
            )
        )
    return tuple(out)


def build_set_aside(src: Sources) -> tuple[SetAside, ...]:
    observations = src.projection.observations
    out = []
    for record in src.projection.set_asides:
        payload = StoredSetAside(record)
        rule = payload.rule
        stored = observations.get(payload.observation_seq)
        observation = None if stored is None else StoredObservation(stored)
        out.append(
            SetAside(
                ref=Ref(payload.seq, payload.hash),
                observation=src.ref(payload.observation_seq),
                probe=None if observation is None else observation.probe,
                rule=rule.id,
                rule_version=rule.version,
                conditions=None if observation is None else conditions_text(observation.conditions),
                reason=payload.reason,
            )
        )
    return tuple(out)


def build_unparsed(src: Sources) -> tuple[Unparsed, ...]:
    runs = src.projection.probe_runs
    out = []
    for seq in sorted(src.projection.observations):
        observation = StoredObservation(src.projection.observations[seq])
        if observation.parsed:
            continue
        run = runs.get(observation.probe_run_seq)
        out.append(
            Unparsed(
                ref=src.ref(seq),
                probe=observation.probe,
                problems="; ".join(observation.problems),
                artifact=None if run is None else StoredRun(run).stdout_artifact,
            )
        )
    return tuple(out)
