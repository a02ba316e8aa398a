"""How much each piece of evidence matters: decisive evidence and per-hypothesis contributions.

Both are leave-one-out questions — what would the belief be without this evidence? — answered
in closed form, in O(size of the evidence's corrections) each instead of a pass over the tree.
With P the leaf probabilities at a step and d_k the evidence's quantised log-likelihood on leaf
k relative to its base (zero outside the subtrees it names; the base is the same on every leaf
and the softmax cancels it), the belief without it is Q_k ∝ P_k·e^{−d_k}, so

    KL(P ‖ Q) = Σ_k P_k·d_k + ln Σ_k P_k·e^{−d_k}      (nats; both sums over corrected leaves,
                                                       the rest entering as 1 − Σ corrected P_k)

and a hypothesis H's log-odds without it are ln Σ_{k∈H} P_k e^{−d_k} − ln Σ_{k∉H} P_k e^{−d_k}.

Results are for the state right after event ``seq`` (``None``: now). At an earlier step the
tree is that step's structure and the evidence is what was active then: assessed at or before
``seq`` and not superseded by evidence assessed at or before ``seq``. Effects are worked out on
that step's tree — evidence assessed before a hypothesis was proposed reaches it through
inheritance (see :mod:`casefile.domain.beliefs.question`). A step's results never change once
it is folded, so they are cached on the projection by seq.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from casefile.domain.beliefs.projection import EvidenceState, Projection
from casefile.domain.beliefs.tree import (
    INVERSE_SCALE,
    EvidenceEffect,
    Structure,
    evidence_effect,
)
from casefile.domain.collector import collector_paused
from casefile.errors import DomainError, did_you_mean

LN2 = math.log(2.0)

#: Below this share of what it started from, a sum that was updated by subtraction is summed
#: again term by term: one rounding of the larger number would dominate what is left.
_RESUM_BELOW = 1e-3

#: How many results a projection keeps (a step's evidence effects, its decisive ranking, a
#: hypothesis's contributions). Scrubbing a replay visits a few steps at a time, and on a long
#: case one step's results hold tens of thousands of objects, so few are kept.
CACHE_ENTRIES = 12

#: The cache key of a step's decisive ranking.
RANKING = "ranking"


@dataclass(frozen=True)
class Decisive:
    """One active evidence and how far it moved its question's distribution (KL, bits)."""

    evidence_id: str
    seq: int
    question_id: str
    kind: str
    bits: float
    rationale: str
    hash: str


@dataclass(frozen=True)
class Contribution:
    """One active evidence's leave-one-out shift of a hypothesis's log-odds, in bits.

    Positive: the evidence speaks for the hypothesis. ``likelihood`` is the P(E|h) it applied
    to this hypothesis after inheritance (its nearest named ancestor-or-self, else
    ``otherwise``), before tempering by ``reliability``.
    """

    evidence_id: str
    seq: int
    question_id: str
    kind: str
    reliability: float
    likelihood: float
    otherwise: float
    bits: float
    rationale: str
    hash: str


# --- one step ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Step:
    """A question at one step: its tree, its weights, and its active evidence's effects."""

    structure: Structure
    weights: tuple[float, ...]
    total: float
    effects: tuple[tuple[EvidenceState, EvidenceEffect], ...]


def _resolve(projection: Projection, seq: int | None) -> int | None:
    """``None`` for the live state, else a seq of the trajectory (checked)."""
    return None if projection.held_step(seq) is None else seq


def _step_key(projection: Projection, resolved: int | None) -> int:
    """The seq what is derived from the beliefs at ``resolved`` (``None``: now) is kept
    under: now, the last seq that changed them (``Projection.beliefs_seq``), whose step holds
    the same beliefs as every step after it."""
    return projection.beliefs_seq if resolved is None else resolved


def _cached(projection: Projection, key: tuple[Any, ...], build: Any) -> Any:
    cache = projection._derived
    found = cache.get(key)
    if found is None:
        with collector_paused():
            found = cache[key] = build()
        while len(cache) > CACHE_ENTRIES:
            del cache[next(iter(cache))]
    return found


def _active(projection: Projection, seq: int | None) -> Iterator[EvidenceState]:
    """The evidence active right after ``seq`` (``None``: now), in fold order."""
    evidence = projection.evidence
    if seq is None:
        yield from (state for state in evidence.values() if state.active)
        return
    for state in evidence.values():
        if state.seq > seq:
            break  # evidence is folded in seq order
        newer = state.superseded_by
        if newer is None or evidence[newer].seq > seq:
            yield state


def _steps(projection: Projection, seq: int | None) -> dict[str, _Step]:
    """Every question at ``seq`` (``None``: now) with its active evidence's effects."""
    key = ("steps", _step_key(projection, seq))
    return _cached(projection, key, lambda: _build_steps(projection, seq))  # type: ignore[no-any-return]


def _build_steps(projection: Projection, seq: int | None) -> dict[str, _Step]:
    if seq is None:
        snapshots = {qid: q.snapshot() for qid, q in projection.questions.items()}
    else:
        step = projection.step_at(seq)
        assert step is not None
        snapshots = step.snapshots
    effects: dict[str, list[tuple[EvidenceState, EvidenceEffect]]] = {q: [] for q in snapshots}
    for state in _active(projection, seq):
        structure = snapshots[state.question_id].structure
        effect = state.effect
        if effect is None or effect.structure is not structure:
            effect = evidence_effect(
                structure, state.likelihoods, state.otherwise, state.reliability
            )
        effects[state.question_id].append((state, effect))
    return {
        qid: _Step(snap.structure, snap.weights, snap.total, tuple(effects[qid]))
        for qid, snap in snapshots.items()
    }


def _corrected(effect: EvidenceEffect, position: dict[int, int]) -> list[tuple[int, float]]:
    """(leaf position, d in nats) for each leaf the evidence moves."""
    return [
        (k, delta * INVERSE_SCALE)
        for index, _, delta in effect.corrections
        if delta and (k := position.get(index)) is not None
    ]


# --- decisive evidence ------------------------------------------------------------------------


def decisive_at(
    projection: Projection, seq: int | None = None, limit: int | None = None
) -> list[Decisive]:
    """How much each active piece of evidence moved its question's distribution, largest first.

    Leave-one-out: the KL divergence (bits) between the distribution at ``seq`` (``None``:
    now) and the one it would have been without that evidence. Ties go to the earlier seq.
    ``limit``: only the first so many (every one is scored either way; a view showing eight
    of thirty thousand need not build the rest).
    """
    ranked = decisive_ranking(projection, seq)
    return [
        Decisive(
            evidence_id=state.id,
            seq=state.seq,
            question_id=state.question_id,
            kind=state.kind,
            bits=bits,
            rationale=state.rationale,
            hash=state.hash,
        )
        for bits, state in (ranked if limit is None else ranked[:limit])
    ]


def decisive_evidence(projection: Projection) -> list[Decisive]:
    """:func:`decisive_at` the current state."""
    return decisive_at(projection)


def decisive_ranking(
    projection: Projection, seq: int | None = None
) -> list[tuple[float, EvidenceState]]:
    """(bits, evidence) for each active evidence at ``seq``, largest first, scored once per
    step and kept on the projection (a saved fold carries its current ranking: see
    :mod:`~casefile.domain.beliefs.fold_codec`)."""
    resolved = _resolve(projection, seq)
    key = (RANKING, _step_key(projection, resolved))
    found: list[tuple[float, EvidenceState]] = _cached(
        projection, key, lambda: _ranking(projection, resolved)
    )
    return found


def keep_ranking(projection: Projection, ranked: list[tuple[float, EvidenceState]]) -> None:
    """Install the current state's ranking, as restored from a saved fold."""
    projection._derived[(RANKING, _step_key(projection, None))] = ranked


def _ranking(projection: Projection, seq: int | None) -> list[tuple[float, EvidenceState]]:
    out: list[tuple[float, EvidenceState]] = []
    log, exp = math.log, math.exp
    for step in _steps(projection, seq).values():
        total = step.total
        probs = [w / total for w in step.weights]
        position = step.structure.leaf_position
        for state, effect in step.effects:
            # one pass over the corrections: Σ P_k, Σ P_k·e^{−d_k} and Σ P_k·d_k over the
            # leaves it moves (a handful: plain sums lose nothing worth a 1e-9 bit)
            moved = False
            held = shifted = first = 0.0
            for index, _, delta in effect.corrections:
                if delta:
                    k = position.get(index)
                    if k is not None:
                        moved = True
                        p = probs[k]
                        d = delta * INVERSE_SCALE
                        held += p
                        shifted += p * exp(-d)
                        first += p * d
            if moved:
                z = (1.0 - held) + shifted
                if z < _RESUM_BELOW:  # 1 − held lost the rest's digits: sum the rest itself
                    skip = {position.get(index) for index, _, delta in effect.corrections if delta}
                    rest = math.fsum([p for k, p in enumerate(probs) if k not in skip])
                    z = rest + shifted
                bits = max(0.0, (first + log(z)) / LN2)
            else:
                bits = 0.0  # it moves no leaf in the distribution: exactly nothing
            out.append((bits, state))
    out.sort(key=lambda ranked: (-ranked[0], ranked[1].seq))
    return out


# --- contributions to one hypothesis ----------------------------------------------------------


def _question_of(projection: Projection, hypothesis_id: str) -> str:
    qid = projection.hypothesis_question.get(hypothesis_id)
    if qid is not None:
        return qid
    for question in projection.questions.values():
        if question.catch_all_id == hypothesis_id:
            return question.id
    hint = did_you_mean(hypothesis_id, projection.hypothesis_question)
    raise DomainError(f"no hypothesis {hypothesis_id!r}{hint} in this case")


def _members(structure: Structure, hypothesis_id: str, seq: int | None) -> list[int]:
    """Leaf positions under the hypothesis at that step (empty if it holds none: retired)."""
    if hypothesis_id != structure.catch_all and hypothesis_id not in structure.index:
        raise DomainError(f"hypothesis {hypothesis_id!r} was not yet proposed at seq {seq}")
    return structure.leaves_under(hypothesis_id)


def _log_weights(projection: Projection, qid: str, seq: int | None) -> list[float]:
    """Each leaf's log-weight (nats, the top at 0) from the integer scores, which unlike the
    weights never underflow: a hypothesis ruled out by hundreds of nats keeps its log-odds.

    At an earlier step the evidence sums are rebuilt from that step's active evidence: each
    node's sum is exactly the total of their corrections on that step's tree.
    """
    step = _steps(projection, seq)[qid]
    structure = step.structure
    if seq is None:
        sums = projection.questions[qid].node_sums
    else:
        sums = [0] * len(structure.ids)
        for _, effect in step.effects:
            for index, _, delta in effect.corrections:
                sums[index] += delta
    scores = [prior + sums[leaf] if leaf >= 0 else prior for leaf, prior in structure.leaf_priors]
    top = max(scores)
    return [(score - top) * INVERSE_SCALE for score in scores]


def _log_sum(values: list[float]) -> tuple[float, float]:
    """(m, s) with ln Σ e^v = m + ln s, s ≥ 1; (−inf, 0) for no values."""
    if not values:
        return -math.inf, 0.0
    top = max(values)
    return top, math.fsum([math.exp(v - top) for v in values])


def prior_log_odds_bits(
    projection: Projection, hypothesis_id: str, seq: int | None = None
) -> float:
    """log₂ (prior / (1 − prior)) of a hypothesis (or a catch-all) on the tree at ``seq``,
    from the quantised leaf log-priors the fold starts from; −inf for a retired one."""
    resolved = _resolve(projection, seq)
    structure = _steps(projection, resolved)[_question_of(projection, hypothesis_id)].structure
    inside = set(_members(structure, hypothesis_id, resolved))
    logs = [prior * INVERSE_SCALE for prior in structure.log_priors]
    top_in, sum_in = _log_sum([v for k, v in enumerate(logs) if k in inside])
    top_out, sum_out = _log_sum([v for k, v in enumerate(logs) if k not in inside])
    if not inside or sum_out == 0.0:
        return -math.inf if not inside else math.inf
    return (top_in + math.log(sum_in) - top_out - math.log(sum_out)) / LN2


def contributions(
    projection: Projection, hypothesis_id: str, seq: int | None = None
) -> list[Contribution]:
    """Each active evidence of the hypothesis's question, with the shift (bits) it causes in
    that hypothesis's log-odds at ``seq`` (``None``: now), newest first.

    A hypothesis holding no leaf at that step (retired), or every leaf (a catch-all once all
    else is retired), has infinite log-odds, which nothing moves: every shift is 0.0.
    """
    resolved = _resolve(projection, seq)
    key = ("contributions", hypothesis_id, _step_key(projection, resolved))
    found: list[Contribution] = _cached(
        projection, key, lambda: _contributions(projection, hypothesis_id, resolved)
    )
    return list(found)


def _contributions(
    projection: Projection, hypothesis_id: str, resolved: int | None
) -> list[Contribution]:
    qid = _question_of(projection, hypothesis_id)
    step = _steps(projection, resolved)[qid]
    structure = step.structure
    members = _members(structure, hypothesis_id, resolved)
    inside = set(members)
    logs = _log_weights(projection, qid, resolved)
    count = len(logs)
    top_in, sum_in = _log_sum([logs[k] for k in members])
    top_out, sum_out = _log_sum([v for k, v in enumerate(logs) if k not in inside])
    scale_in = [math.exp(logs[k] - top_in) if k in inside else 0.0 for k in range(count)]
    scale_out = [0.0 if k in inside else math.exp(logs[k] - top_out) for k in range(count)]
    odds = math.log(sum_in) - math.log(sum_out) if sum_in and sum_out else 0.0
    chain = (
        []
        if hypothesis_id == structure.catch_all
        else structure.path(structure.index[hypothesis_id])
    )
    out: list[Contribution] = []
    for state, effect in step.effects:
        bits = 0.0
        moved = _corrected(effect, structure.leaf_position)
        if moved and sum_in and sum_out:
            without_in = _without(sum_in, scale_in, moved, members)
            without_out = _without(sum_out, scale_out, moved, None, inside)
            bits = (odds - math.log(without_in) + math.log(without_out)) / LN2
        likelihoods = state.likelihoods
        likelihood = next((likelihoods[n] for n in chain if n in likelihoods), state.otherwise)
        out.append(
            Contribution(
                evidence_id=state.id,
                seq=state.seq,
                question_id=qid,
                kind=state.kind,
                reliability=state.reliability,
                likelihood=likelihood,
                otherwise=state.otherwise,
                bits=bits,
                rationale=state.rationale,
                hash=state.hash,
            )
        )
    out.sort(key=lambda c: -c.seq)
    return out


def _without(
    total: float,
    scale: list[float],
    moved: list[tuple[int, float]],
    members: list[int] | None,
    outside_of: set[int] | None = None,
) -> float:
    """Σ scale_k·e^{−d_k} over one side (``members``, or every leaf not in ``outside_of``),
    from ``total`` = Σ scale_k by updating only the moved leaves; summed afresh when the update
    cancels most of it."""
    update = [scale[k] * math.expm1(-d) for k, d in moved if scale[k]]
    if not update:
        return total
    result = math.fsum([total, *update])
    if result >= total * _RESUM_BELOW:
        return result
    shift = dict(moved)
    keys = (
        members
        if members is not None
        else [k for k in range(len(scale)) if k not in (outside_of or ())]
    )
    return math.fsum([scale[k] * math.exp(-shift.get(k, 0.0)) for k in keys])
