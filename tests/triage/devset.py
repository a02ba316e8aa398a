"""What the playbook makes of the development set (``cases/dev``): shared by the test that
holds the figures and the benchmark script that reports them case by case.

Two figures per case:

- **leads at the end**: the known root cause (the case's ``--root-cause``) is the most specific
  leader (the leading leaf) after the last event;
- **first suggestion bears on it**: right after intake, the first next step's probe has a rule
  whose likelihood ratio between the root cause and the leader then is at least 2 (or at most
  ½) for some outcome — so running it could move the two apart. When the root cause already
  leads, the comparison is with the strongest alternative. Measured on both rankings: the
  probe + rule pairs (``status``'s "Next steps") and whole probes (its "Best single probes",
  the TUI's Next steps tab).

And, for the cases whose material names the steps that decided the thread (``deciding``,
written before their first evaluation), whether the first next step after intake is one of
them: the same probe, the intake question (``intake:<id>``), or the A/B rule that reads the
deciding change (``experiment:<change>``: the first experiment rule of the case's playbook
that reads that wording under the answers in force then, as ``casefile experiment`` picks it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from casefile.app.experiment_reading import experiment_rule
from casefile.app.service import CaseService
from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs.ranking import (
    EXPERIMENT_PREFIX,
    INTAKE_PREFIX,
    Candidate,
    beliefs_at,
    rank_next_steps,
    rank_probes,
)
from casefile.domain.events import Event
from casefile.domain.rules import Rule
from casefile.store.casedir import read_case_dir
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "cases" / "dev"
QUESTION = "throughput"
BEARS = 2.0


def case_dirs() -> list[Path]:
    return sorted(p for p in DEV.iterdir() if (p / "events.jsonl").is_file())


@dataclass(frozen=True)
class DevResult:
    slug: str
    root_cause: str
    final_leaf: str
    root_confidence: float
    rank: int  # the root cause's place among the leaves at the end (1: it leads)
    after_intake_seq: int
    first_probe: str
    first_rule: str
    compared_with: str
    ratio: float  # the most telling likelihood ratio of the first probe's rules
    evidence: int
    experiments: int
    #: the same for the first of the whole-probe ranking (what the TUI's Next steps shows)
    best_probe: str = ""
    best_ratio: float = 1.0
    #: the steps the thread's material names as deciding it (empty: not named before)
    deciding: tuple[str, ...] = ()
    #: whether the first next step after intake is one of them
    decides: bool = False

    @property
    def leads(self) -> bool:
        return self.final_leaf == self.root_cause

    @property
    def outweighed_by_a_class(self) -> bool:
        """The root cause is the likeliest single leaf at the end, yet another top-level class
        leads, by the sum of its several leaves. Shown beside the figure, not counted in it:
        the leader stays what the fold says it is."""
        return self.rank == 1 and not self.leads

    @property
    def bears(self) -> bool:
        return self.ratio >= BEARS or self.ratio <= 1 / BEARS

    @property
    def best_bears(self) -> bool:
        return self.best_ratio >= BEARS or self.best_ratio <= 1 / BEARS


def after_intake(events: list[Event]) -> int:
    """The seq right after intake: the last event before the first that is neither the case's
    opening (case, question, hypotheses, the source note) nor an intake answer."""
    last = 0
    for event in events:
        opening = event.type in ("case.opened", "question.proposed", "hypothesis.proposed")
        source_note = event.type == "note.added" and str(event.payload["text"]).startswith(
            "Source: "
        )
        intake = event.type == "evidence.assessed" and "intake" in event.payload
        if not (opening or source_note or intake):
            break
        last = event.seq
    return last


def deciding_steps(slug: str) -> tuple[str, ...]:
    """The deciding steps the case's material names (``deciding``), if it names them."""
    path = DEV / "material" / f"{slug}.json"
    if not path.is_file():
        return ()
    return tuple(json.loads(path.read_text(encoding="utf-8")).get("deciding") or ())


def is_deciding(
    service: CaseService, projection: Projection, probe: str, deciding: tuple[str, ...]
) -> bool:
    """Whether a next step (``probe`` as ranked: a probe, ``A/B <rule>``, ``intake <id>``) is
    one of the deciding steps, under ``projection`` (the case right after intake)."""
    for step in deciding:
        kind, _, what = step.partition(":")
        if kind == "experiment" and what:
            rule = _reads_change(service, projection, what)
            if rule is not None and probe == f"{EXPERIMENT_PREFIX}{rule}":
                return True
        elif kind == "intake" and what:
            if probe == f"{INTAKE_PREFIX}{what}":
                return True
        elif probe == step:
            return True
    return False


def _reads_change(service: CaseService, projection: Projection, change: str) -> str | None:
    """The id of the experiment rule ``casefile experiment --change CHANGE`` would read the
    change with (``experiment_reading.experiment_rule``, the command's own choice)."""
    rule = experiment_rule(service.registry, projection, change, None, None)
    return None if rule is None else rule.id


def _row(rule: Rule, path: list[str]) -> dict[str, float]:
    for node in path:
        if node in rule.likelihoods:
            return dict(rule.likelihoods[node])
    return dict(rule.otherwise)


def most_telling_ratio(
    rules: list[Rule], projection: Projection, seq: int, a: str, b: str
) -> float:
    """The likelihood ratio P(o | a) / P(o | b) furthest from 1 over the rules' outcomes."""
    belief = beliefs_at(projection, seq)[QUESTION]
    structure = belief.structure
    path_a = structure.path(structure.index[a]) if a in structure.index else []
    path_b = structure.path(structure.index[b]) if b in structure.index else []
    best = 1.0
    for rule in rules:
        row_a, row_b = _row(rule, path_a), _row(rule, path_b)
        for outcome in rule.outcome_names:
            ratio = row_a[outcome] / row_b[outcome]
            if abs(_log(ratio)) > abs(_log(best)):
                best = ratio
    return best


def _log(x: float) -> float:
    import math

    return math.log(x)


def evaluate(case_dir: Path) -> DevResult:
    events, _ = read_case_dir(case_dir)
    projection = project(events)
    concluded = projection.concluded or {}
    root = str(concluded.get("root_cause"))
    question = projection.questions[QUESTION]
    now = question.snapshot()
    confidences = now.confidences
    # every leaf of the distribution: childless hypotheses and each parent's own "other
    # mechanism" (misconfiguration that is neither the GPU unused nor a split model)
    keys, probs = question.leaf_distribution
    leaf_share = dict(zip(keys, probs, strict=True))
    leaves = sorted((k for k in keys if k in question.nodes), key=lambda h: -leaf_share[h])
    service = CaseService(MemoryEventStore(), builtin_registry())
    intake_done = project(events[: after_intake(events)])
    candidates: list[Candidate] = service.reader.candidates(intake_done)
    seq = after_intake(events)
    steps = rank_next_steps(projection, candidates, QUESTION, seq=seq)
    first = steps[0]
    snapshot = projection.step_at(seq)
    assert snapshot is not None
    then = snapshot.snapshots[QUESTION]
    leader = then.leading_leaf
    if leader == root:
        ranked = sorted(
            (h for h in then.confidences if h != root and h in question.nodes),
            key=lambda h: -then.confidences[h],
        )
        leader = next(h for h in ranked if h in leaf_share)
    rules = [c.rule for c in candidates if c.probe == first.probe]
    ratio = most_telling_ratio(rules, projection, seq, root, leader)
    best = rank_probes(projection, candidates, seq=seq)[0]
    best_rules = [c.rule for c in candidates if c.probe == best.probe]
    best_ratio = most_telling_ratio(best_rules, projection, seq, root, leader)
    deciding = deciding_steps(case_dir.name)
    return DevResult(
        slug=case_dir.name,
        root_cause=root,
        final_leaf=now.leading_leaf,
        root_confidence=confidences[root],
        rank=leaves.index(root) + 1,
        after_intake_seq=seq,
        first_probe=first.probe,
        first_rule=first.rule_id,
        compared_with=leader,
        ratio=ratio,
        evidence=sum(1 for e in projection.evidence.values() if e.active),
        experiments=len(projection.experiments),
        best_probe=best.probe,
        best_ratio=best_ratio,
        deciding=deciding,
        decides=is_deciding(service, intake_done, first.probe, deciding),
    )


@dataclass(frozen=True)
class DecidingRank:
    """Where a case's deciding steps stand among the next steps right after intake."""

    slug: str
    root_cause: str
    #: the root cause's place among the leaves right after intake (1: it leads)
    root_rank: int
    #: the three leading leaves then, with their probabilities
    leaders: tuple[tuple[str, float], ...]
    #: the first next step then (probe, ``A/B <rule>`` or ``intake <id>``)
    first: str
    #: the best-placed deciding step's place (1: first) and name; ``None``: none is offered
    best: tuple[int, str] | None


def deciding_rank(case_dir: Path, ab_cost: str | None = None) -> DecidingRank | None:
    """The case's deciding steps against the next steps right after intake (``None`` for a
    case whose material names none): what the first-suggestion figure misses, and by how far.
    ``ab_cost``: every A/B ranked at that cost instead of its own (a what-if, not the
    playbook)."""
    deciding = deciding_steps(case_dir.name)
    if not deciding:
        return None
    events, _ = read_case_dir(case_dir)
    seq = after_intake(events)
    intake_done = project(events[:seq])
    root = str((project(events).concluded or {}).get("root_cause"))
    service = CaseService(MemoryEventStore(), builtin_registry())
    candidates = service.reader.candidates(intake_done)
    if ab_cost is not None:
        candidates = [
            replace(c, cost=ab_cost) if c.probe.startswith(EXPERIMENT_PREFIX) else c
            for c in candidates
        ]
    steps = rank_next_steps(intake_done, candidates, QUESTION)
    keys, probs = intake_done.questions[QUESTION].leaf_distribution
    ranked = sorted(zip(keys, probs, strict=True), key=lambda kp: (-kp[1], kp[0]))
    names = [k for k, _ in ranked]
    best = next(
        (
            (place, step.probe)
            for place, step in enumerate(steps, start=1)
            if is_deciding(service, intake_done, step.probe, deciding)
        ),
        None,
    )
    return DecidingRank(
        slug=case_dir.name,
        root_cause=root,
        root_rank=names.index(root) + 1 if root in names else 0,
        leaders=tuple(ranked[:3]),
        first=steps[0].probe if steps else "",
        best=best,
    )
