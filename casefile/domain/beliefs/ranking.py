"""Triage arithmetic: which probe to run next, ranked by the information it is expected to give.

Rankings read one question's belief — its tree's shape and the leaf probabilities — either as
the projection holds it now (``seq=None`` or the last seq) or as a step of the trajectory
captured it (any earlier seq), so replay can rank at every step without refolding. Both give
the same numbers: a step's snapshot holds the very weights the live question had then.
Nothing here writes anything; results are recomputed whenever they are shown.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from operator import itemgetter, mul

from casefile.domain.beliefs.arithmetic import entropy_bits, mutual_information_bits, tempered
from casefile.domain.beliefs.joint import memoised, probe_information_bits
from casefile.domain.beliefs.projection import Projection
from casefile.domain.beliefs.question import QuestionSnapshot, QuestionState
from casefile.domain.beliefs.step_worth import NOT_A_REMEDY, Remedy, ordering, remedy, remedy_note
from casefile.domain.beliefs.tree import CATCH_ALL_LEAF, Structure
from casefile.domain.experiment_cost import CostWhen, cost_under
from casefile.domain.rules import DERIVED_FROM, Rule
from casefile.errors import DomainError

#: the name an experiment rule is offered under in next steps (``A/B p2p-disable``)
EXPERIMENT_PREFIX = "A/B "
#: the name an unanswered intake question is offered under (``intake after-upgrade``): asking
#: costs nothing, so a question that tells as much as a benchmark comes before it
INTAKE_PREFIX = "intake "


#: How many leaves count as "the leaders" a step should tell apart (the rest is one class)
LEADERS = 3
#: Joint outcomes × classes enumerated for the leaders' information: four classes are told
#: apart by a few rules, so a small budget keeps ordering cheap (a lower bound past it)
LEADERS_JOINT_WORK = 2_000


def coarse_to_leaders(
    probs: Sequence[float], tables: Sequence[Sequence[Sequence[float]]]
) -> tuple[list[float], list[list[list[float]]]]:
    """The belief and the rules' tables with every leaf but the :data:`LEADERS` most likely
    merged into one class (its likelihood the mass-weighted mean of its members').

    Information about this coarse variable is what a step tells about the leaders: a broad
    probe that sorts out unlikely classes scores less here than a pointed one that splits the
    two hypotheses people are actually weighing."""
    # most likely first, ties in leaf order (a stable sort keeps it when reversed)
    order = sorted(range(len(probs)), key=probs.__getitem__, reverse=True)
    top, rest = _picker(order[:LEADERS]), _picker(order[LEADERS:])
    weights = rest(probs)
    mass = math.fsum(weights)
    if not mass > 0.0:
        return list(top(probs)), [[list(top(row)) for row in table] for table in tables]
    prior = [*top(probs), mass]
    coarse = [
        [[*top(row), math.fsum(map(mul, weights, rest(row))) / mass] for row in table]
        for table in tables
    ]
    return prior, coarse


def _picker(positions: Sequence[int]) -> Callable[[Sequence[float]], Sequence[float]]:
    """The values at ``positions`` of a row, as one call (``itemgetter`` where it gives a
    tuple: two positions or more)."""
    if len(positions) > 1:
        return itemgetter(*positions)
    return lambda row: [row[k] for k in positions]


def leaders_information_bits(
    probs: Sequence[float], tables: Sequence[Sequence[Sequence[float]]]
) -> float:
    """What one run tells about the leaders (see :func:`coarse_to_leaders`)."""
    prior, coarse = coarse_to_leaders(probs, tables)
    return joint_information_bits(prior, coarse, LEADERS_JOINT_WORK)


#: Joint outcome spaces larger than this are not enumerated (the probe is scored on its best
#: single rule instead); the built-in probes stay far below it.
MAX_JOINT_OUTCOMES = 20_000
#: The most joint outcomes × hypothesis classes enumerated for one probe (see
#: :func:`joint_information_bits`): about 15 ms of arithmetic; every built-in probe fits.
MAX_JOINT_WORK = 30_000


def can_produce(patterns: Sequence[str], name: str) -> bool:
    """Whether a probe declaring ``patterns`` (fact names or ``fnmatch`` patterns) can give
    fact ``name``, directly or as a fact derived from others it gives."""
    if any(fnmatchcase(name, pattern) for pattern in patterns):
        return True
    groups = DERIVED_FROM.get(name)
    return groups is not None and all(
        any(can_produce(patterns, member) for member in group) for group in groups
    )


def feeds(rule: Rule, patterns: Sequence[str]) -> bool:
    """Whether one run of a probe declaring ``patterns`` can give ``rule`` something to read.

    The rule pools its statistic's facts (any one will do); a ratio (``per``) of a mean, max
    or min also needs the denominator from the same observation. A probe that declares no
    facts (a third-party probe, the generic command) is taken to feed any rule it is named by.
    """
    if not patterns:
        return True
    statistic = rule.statistic
    if not any(can_produce(patterns, name) for name in statistic.facts):
        return False
    needs_per = statistic.per is not None and statistic.aggregate in ("mean", "max", "min")
    return not needs_per or can_produce(patterns, str(statistic.per))


@dataclass(frozen=True)
class Candidate:
    """A probe that some rule can interpret, offered for ranking."""

    probe: str
    rule: Rule
    cost: str = "cheap"
    #: the rules whose reading ends the offer: an A/B's own, an intake question's and any that
    #: reads the fact answering it; none for a probe, offered whatever was read before
    offered_until_read: tuple[str, ...] = ()
    #: costs that hold under an intake answer (an A/B's ``cost_when``): resolved against the
    #: answers in force at the step ranked, so a replay never costs a step by a later answer
    cost_when: tuple[CostWhen, ...] = ()

    def offered_after(self, read: Collection[str]) -> bool:
        """Whether it is still offered once the rules ``read`` have been read."""
        return not any(rule_id in read for rule_id in self.offered_until_read)

    def cost_under(self, answers: Mapping[str, str]) -> str:
        """What the step costs under the intake answers in force (a tree's ``answers``)."""
        return cost_under(self.cost, self.cost_when, answers.get)


@dataclass(frozen=True)
class NextStep:
    probe: str
    rule_id: str
    rule_version: int
    question_id: str
    expected_gain_bits: float
    cost: str
    load: str
    rationale: str
    #: in one line, which two leading hypotheses it tells apart and by which outcome
    separates: str = ""
    #: what it tells about the leading hypotheses (see ``coarse_to_leaders``): with the
    #: remedy weight and the cost, what the order is by (``step_worth.ranked_bits``)
    leaders_gain_bits: float = 0.0
    #: above 1 for an A/B that tries the leader's remedy (``step_worth.remedy``)
    remedy_weight: float = 1.0


@dataclass(frozen=True)
class ProbeStep:
    """One probe, scored on everything its rules would learn from a single run."""

    probe: str
    question_id: str
    expected_gain_bits: float
    rules: tuple[str, ...]
    cost: str
    load: str
    separates: str = ""
    leaders_gain_bits: float = 0.0
    remedy_weight: float = 1.0


@dataclass(frozen=True)
class Belief:
    """One question's distribution at one step: the tree, its leaves and their probabilities."""

    structure: Structure
    keys: tuple[str, ...]  # leaf keys, catch-all last
    probs: tuple[float, ...]

    @classmethod
    def of(cls, question: QuestionState | QuestionSnapshot) -> Belief:
        structure = question.structure
        return cls(structure, tuple(structure.leaf_keys()), tuple(question.probs))

    def paths(self) -> list[list[str]]:
        """For each leaf, its node and ancestors, most specific first (the catch-all: none)."""
        structure = self.structure
        return [[] if leaf == CATCH_ALL_LEAF else structure.path(leaf) for leaf in structure.leaves]


def beliefs_at(projection: Projection, seq: int | None = None) -> dict[str, Belief]:
    """Every question's belief right after event ``seq`` (``None``: now).

    Raises :class:`~casefile.errors.DomainError` for a seq the projection does not hold (past
    its last event, or before the history a restored projection carries).
    """
    if seq is None or seq == projection.last_seq:
        return {qid: Belief.of(question) for qid, question in projection.questions.items()}
    step = projection.step_at(seq)
    if step is None:
        raise DomainError(_not_held(projection, seq))
    return {qid: Belief.of(snapshot) for qid, snapshot in step.snapshots.items()}


def _not_held(projection: Projection, seq: int) -> str:
    first = projection.trajectory[0].seq if projection.trajectory else projection.last_seq
    return f"seq {seq} is not a step of this case as held (steps {first}–{projection.last_seq}" + (
        f"; folded from a saved state at {projection.base_seq})" if projection.base_seq else ")"
    )


#: for each node, the leaves whose path holds it: (leaf position, how far up the path it is)
LeafIndex = dict[str, list[tuple[int, int]]]


def _leaf_index(paths: Sequence[Sequence[str]]) -> tuple[int, LeafIndex]:
    """How many leaves there are and, for each node, the leaves under it (see
    :data:`LeafIndex`): a rule's table is built from the few nodes it names."""
    index: LeafIndex = {}
    for position, path in enumerate(paths):
        for depth, node in enumerate(path):
            index.setdefault(node, []).append((position, depth))
    return len(paths), index


def _table(leaves: tuple[int, LeafIndex], rule: Rule) -> list[list[float]]:
    """P(outcome | leaf) per outcome: the likelihood of the leaf's nearest node the rule
    names, else the rule's ``otherwise``, tempered by the rule's reliability."""
    count, index = leaves
    nearest: list[str | None] = [None] * count  # per leaf, the node whose likelihoods apply
    height: list[float] = [math.inf] * count  # how far up its path that node is
    named: list[str] = []  # the nodes the rule names that are in this tree
    for node in rule.likelihoods:
        under = index.get(node)
        if under is None:
            continue
        named.append(node)
        for position, depth in under:
            if depth < height[position]:
                height[position] = depth
                nearest[position] = node
    table: list[list[float]] = []
    for outcome in rule.outcome_names:
        other = rule.otherwise[outcome]
        value: dict[str | None, float] = {None: tempered(other, other, rule.reliability)}
        for node in named:
            value[node] = tempered(rule.likelihoods[node][outcome], other, rule.reliability)
        table.append(list(map(value.__getitem__, nearest)))
    return table


def outcome_table(
    question: QuestionState | Structure, keys: Sequence[str], rule: Rule
) -> list[list[float]]:
    """P(outcome | leaf) for each outcome of ``rule``, for the leaves ``keys`` of a question's
    tree (live, or a step's structure), tempered by the rule's reliability."""
    structure = question.structure if isinstance(question, QuestionState) else question
    index = structure.index
    paths = [[] if key == structure.catch_all else structure.path(index[key]) for key in keys]
    return _table(_leaf_index(paths), rule)


def rank_next_steps(
    projection: Projection,
    candidates: Sequence[Candidate],
    question_id: str | None = None,
    *,
    seq: int | None = None,
) -> list[NextStep]:
    """Rank probe + rule pairs by what they tell about the leading hypotheses (bits).

    The gain shown is the mutual information between the rule's outcome and the hypothesis,
    under the belief held at ``seq`` (``None``: now): a probe whose outcomes are equally likely
    under every hypothesis scores 0. They are ordered by the information about the leaders
    (:func:`coarse_to_leaders`), times the remedy weight of an A/B that tries the leader's
    remedy, at the step's cost (``step_worth.ranked_bits``), then by the whole gain: the
    cheapest step that splits the hypotheses being weighed comes first, and the leader's
    remedy before a look that tells little more.
    """
    beliefs = beliefs_at(projection, seq)
    leaves: dict[str, tuple[int, LeafIndex]] = {}
    steps: list[NextStep] = []
    for candidate in candidates:
        rule = candidate.rule
        qid = question_id or rule.question
        belief = beliefs.get(rule.question)
        if belief is None or (question_id is not None and rule.question != question_id):
            continue
        if not worth_suggesting(rule, belief.structure):
            continue  # the case states what leaves this rule nothing to tell
        if rule.question not in leaves:
            leaves[rule.question] = _leaf_index(belief.paths())
        table = _table(leaves[rule.question], rule)
        gain = mutual_information_bits(belief.probs, table)
        found = _remedy(candidate.probe, [rule], belief.probs, [table])
        steps.append(
            NextStep(
                probe=candidate.probe,
                rule_id=rule.id,
                rule_version=rule.version,
                question_id=qid,
                expected_gain_bits=gain,
                cost=candidate.cost_under(belief.structure.answers),
                load=rule.advised_load,
                rationale=rule.rationale,
                separates=_noted(separation(belief, [(rule, table)])[1], belief, found),
                leaders_gain_bits=leaders_information_bits(belief.probs, [table]),
                remedy_weight=found.weight,
            )
        )
    steps.sort(key=_order)
    return steps


def _remedy(
    probe: str,
    rules: Sequence[Rule],
    probs: Sequence[float],
    tables: Sequence[Sequence[Sequence[float]]],
) -> Remedy:
    """An A/B's standing as the leader's remedy (:func:`~.step_worth.remedy`); any other step,
    and a probe feeding several rules, is not one."""
    if not probe.startswith(EXPERIMENT_PREFIX) or len(rules) != 1:
        return NOT_A_REMEDY
    return remedy(probs, rules[0], tables[0])


def _noted(separates: str, belief: Belief, found: Remedy) -> str:
    if found.leader is None:
        return separates
    return remedy_note(separates, belief.keys[found.leader], found.weight)


def _order(step: NextStep | ProbeStep) -> tuple[float, float, int, str]:
    return ordering(
        step.expected_gain_bits, step.cost, step.probe, step.leaders_gain_bits, step.remedy_weight
    )


def worth_suggesting(rule: Rule, structure: Structure) -> bool:
    """Whether a rule can still tell the case something: no answer in force contradicts what
    it needs, and some hypothesis it names still applies (a rule about ACS redirect says
    nothing once peer-to-peer does not apply to a one-GPU job)."""
    if not rule.suggested_under(structure.answers):
        return False
    named = [structure.index[h] for h in rule.likelihoods if h in structure.index]
    # a named node still holds mass when some leaf of its subtree is in the distribution
    # (a child of a retired parent, or a node that does not apply, holds none)
    held = structure.leaf_position
    return not named or any(any(m in held for m in structure.subtree[i]) for i in named)


#: how :func:`separation`'s line opens when a step leaves the two leaders alike
NO_SEPARATION = "does not tell"


def separation(
    belief: Belief, tables: Sequence[tuple[Rule, Sequence[Sequence[float]]]]
) -> tuple[float, str]:
    """How a step tells the two leading leaves apart, in one line, and the log-ratio behind it.

    The two leaves holding most probability now, and the outcome of the step's rules whose
    likelihoods under them differ most ("compute-launch against pcie-bandwidth: idle 0.75
    against 0.01"); a step that cannot move them apart says which ones it leaves alike."""
    ranked = sorted(range(len(belief.probs)), key=lambda k: (-belief.probs[k], k))
    held = [k for k in ranked if belief.probs[k] > 0.0][:2]
    if len(held) < 2:
        return 0.0, ""
    first, second = held
    names = belief.keys[first], belief.keys[second]
    best: tuple[float, str] = (0.0, f"{NO_SEPARATION} {names[0]} from {names[1]}")
    for rule, table in tables:
        for outcome, row in zip(rule.outcome_names, table, strict=True):
            a, b = row[first], row[second]
            if a <= 0.0 or b <= 0.0:
                continue
            score = abs(math.log(a / b))
            if score > best[0] + 1e-12 and score >= math.log(1.5):
                best = (
                    score,
                    f"{names[0]} against {names[1]}: {outcome} {a:.2f} against {b:.2f}",
                )
    return best


def rank_probes(
    projection: Projection, candidates: Sequence[Candidate], *, seq: int | None = None
) -> list[ProbeStep]:
    """Rank probes by the information all the rules they feed would give together.

    One run of ``nvidia-smi -q`` feeds several rules at once, so its worth is the mutual
    information between the hypothesis and the *joint* outcome of those rules, taking the
    outcomes as independent given the hypothesis — the same assumption under which their
    evidence is multiplied. Never less than its best single rule; ties go to the cheaper probe.
    Rules that read different kinds of run (an ``exclusive`` name: perftest from host memory or
    from GPU memory) are never fed by one run, so the probe is scored on the kind of run that
    tells most (:func:`one_run`). Ranked on the belief at ``seq`` (``None``: now).
    """
    beliefs = beliefs_at(projection, seq)
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for candidate in candidates:
        belief = beliefs.get(candidate.rule.question)
        if belief is not None and worth_suggesting(candidate.rule, belief.structure):
            groups.setdefault((candidate.probe, candidate.rule.question), []).append(candidate)
    leaves: dict[str, tuple[int, LeafIndex]] = {}
    steps: list[ProbeStep] = []
    for (probe, qid), members in groups.items():
        belief = beliefs[qid]
        if qid not in leaves:
            leaves[qid] = _leaf_index(belief.paths())
        kinds = [_probe_step(probe, qid, belief, leaves[qid], run) for run in one_run(members)]
        steps.append(min(kinds, key=_order))
    steps.sort(key=_order)
    return steps


def one_run(members: Sequence[Candidate]) -> list[list[Candidate]]:
    """The sets of a probe's rules one run can feed together: all of them, but of rules sharing
    an ``exclusive`` name (perftest from host memory, or from GPU memory) one at a time."""
    runs: list[list[Candidate]] = [[]]
    kinds: dict[str, list[Candidate]] = {}
    for member in members:
        if member.rule.exclusive is None:
            runs[0].append(member)
        else:
            kinds.setdefault(member.rule.exclusive, []).append(member)
    for alternatives in kinds.values():
        runs = [[*run, pick] for run in runs for pick in alternatives]
    return runs


def _probe_step(
    probe: str,
    qid: str,
    belief: Belief,
    leaves: tuple[int, LeafIndex],
    run: Sequence[Candidate],
) -> ProbeStep:
    """One probe scored on the rules one run of it feeds (``run``): the step names those rules,
    so a probe of several kinds of run says which kind it was scored on."""
    probs = belief.probs
    tables = [_table(leaves, c.rule) for c in run]
    _, separates = separation(belief, [(c.rule, t) for c, t in zip(run, tables, strict=True)])
    found = _remedy(probe, [c.rule for c in run], probs, tables)
    return ProbeStep(
        probe=probe,
        question_id=qid,
        expected_gain_bits=joint_information_bits(probs, tables),
        rules=tuple(c.rule.id for c in run),
        cost=run[0].cost_under(belief.structure.answers),
        load="under-load" if any(c.rule.advised_load == "under-load" for c in run) else "any",
        separates=_noted(separates, belief, found),
        leaders_gain_bits=leaders_information_bits(probs, tables),
        remedy_weight=found.weight,
    )


@memoised
def joint_information_bits(
    probs: Sequence[float],
    tables: Sequence[Sequence[Sequence[float]]],
    budget: int = MAX_JOINT_WORK,
) -> float:
    """The information one run gives through all its rules at once: the mutual information
    between the hypothesis and the joint outcome, the rules' outcomes taken as independent
    given the hypothesis.

    Enumerated exactly over hypothesis classes (leaves every table treats alike, one class
    with their summed prior: 80 hypotheses become a few dozen classes) while the joint
    outcomes × classes stay within :data:`MAX_JOINT_WORK`. Past that, the most informative
    rules that fit are enumerated together and the rest left out: the information of some of
    a run's rules is never more than of all of them, so this is a lower bound, and the rules
    left out are the ones that tell least on their own (see ``joint``)."""
    if len(tables) == 1:
        return mutual_information_bits(probs, tables[0])
    return probe_information_bits(probs, tables, budget)


def question_entropy(question: QuestionState | QuestionSnapshot) -> float:
    """Entropy (bits) of a question's leaf distribution, live or at a step."""
    return entropy_bits(question.probs)
