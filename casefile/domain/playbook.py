"""Playbooks: a question, its hypothesis tree with priors, and the rules that bear on it.

A playbook is data (TOML) shipped by a plugin for a recurring kind of investigation. Opening a
playbook in a case records ordinary ``question.proposed`` / ``hypothesis.proposed`` events, so
the case never depends on the playbook file afterwards; the rules are consulted only when new
observations arrive, and each evidence event records the rule id and version it came from.

Layout::

    [playbook]
    id = "gpu-throughput"
    version = 1
    title = "..."
    probes = ["nvidia-smi-q", ...]        # probes worth having, in the order a responder would try

    [question]
    id = "throughput"
    text = "What limits throughput?"
    catch_all = 0.1

    [[hypothesis]]
    id = "interconnect"
    text = "..."
    prior = 0.35                          # absolute for top-level, a share of the parent's below
    parent = "..."                        # optional
    meaning = "one line: what would be true if this is the answer"
    requires = [{ intake = "gpu-count", answers = ["several"] }]   # optional: see below

A hypothesis's ``requires`` names intake answers under which it can hold at all. Once the
case states another answer (asked, from ``--env`` or from a probe's facts), the hypothesis
"does not apply": it holds no probability, and its probes and rules are not suggested, until
that answer is superseded. A child inherits its parent's requirements.

    [[rule]]  ...                         # see casefile.domain.rules
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casefile.domain.expected import (
    NO_CONTEXT,
    CaseContext,
    ExpectedRate,
    expected_facts,
    rate_from_dict,
)
from casefile.domain.experiments import ExperimentRule, experiment_from_dict
from casefile.domain.fabric import fabric_facts
from casefile.domain.facts import Fact
from casefile.domain.host_link import HostLink, host_link_facts, link_from_dict
from casefile.domain.intake import IntakeQuestion, intake_from_dict
from casefile.domain.roofline import DeviceMemory, memory_from_dict, roofline_facts
from casefile.domain.rule_loading import requirements_from, rule_from_dict
from casefile.domain.rules import Rule
from casefile.errors import RuleError


@dataclass(frozen=True)
class HypothesisSpec:
    id: str
    text: str
    prior: float
    parent: str | None = None
    meaning: str | None = None
    #: (intake question id, answers under which it can hold)
    requires: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Playbook:
    id: str
    version: int
    title: str
    question_id: str
    question_text: str
    catch_all: float
    hypotheses: tuple[HypothesisSpec, ...]
    rules: tuple[Rule, ...]
    probes: tuple[str, ...] = ()
    #: questions about the symptom's shape, asked before any probe (``casefile intake``)
    intake: tuple[IntakeQuestion, ...] = ()
    #: A/B rules: which stated changes they read and what faster / same / slower means
    experiments: tuple[ExperimentRule, ...] = ()
    #: what each kind of path should carry, for rules that judge a rate against it
    expected_rates: tuple[ExpectedRate, ...] = ()
    #: each GPU's peak device-memory bandwidth, for the decode roofline
    device_memory: tuple[DeviceMemory, ...] = ()
    #: each GPU's PCIe link to its host, for a host-to-device copy test
    host_links: tuple[HostLink, ...] = ()

    @property
    def ref(self) -> str:
        """``ID@VERSION``: what a question opened from this playbook records."""
        return f"{self.id}@{self.version}"

    def rules_for_probe(self, probe: str) -> list[Rule]:
        return [rule for rule in self.rules if probe in rule.probes]

    def context_facts(
        self, facts: list[Fact], context: Callable[[], CaseContext] = lambda: NO_CONTEXT
    ) -> list[Fact]:
        """Facts this playbook adds to a run's before its rules read them (expected rates, the
        decode roofline, the ports' and the host link's shares); ``context`` is what the case
        states, for a run that leaves its GPUs or nodes unsaid, asked at most once."""
        asked: list[CaseContext] = []

        def once() -> CaseContext:
            if not asked:
                asked.append(context())
            return asked[0]

        return [
            *expected_facts(self.expected_rates, facts, once),
            *roofline_facts(self.device_memory, facts, once),
            *fabric_facts(facts, once),
            *host_link_facts(self.host_links, facts, once),
        ]

    def intake_question(self, iid: str) -> IntakeQuestion:
        for question in self.intake:
            if question.id == iid:
                return question
        known = ", ".join(q.id for q in self.intake) or "none"
        raise KeyError(f"no intake question {iid!r} in {self.ref} (known: {known})")

    def hypothesis(self, hid: str) -> HypothesisSpec:
        for spec in self.hypotheses:
            if spec.id == hid:
                return spec
        raise KeyError(hid)


def load_playbook(text: str, source: str = "playbook") -> Playbook:
    """Parse and check a playbook; any problem is a :class:`RuleError` naming where it is."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RuleError(f"{source}: not valid TOML: {error}") from None
    return playbook_from_dict(data, source)


def playbook_from_dict(data: Mapping[str, Any], source: str = "playbook") -> Playbook:
    head = data.get("playbook")
    question = data.get("question")
    if not isinstance(head, Mapping) or not isinstance(question, Mapping):
        raise RuleError(f"{source}: needs [playbook] and [question] tables")
    pid = head.get("id")
    if not isinstance(pid, str) or not pid:
        raise RuleError(f"{source}: playbook.id is required")
    qid = question.get("id")
    if not isinstance(qid, str) or not isinstance(question.get("text"), str):
        raise RuleError(f"{source}: question.id and question.text are required")
    catch_all = question.get("catch_all", 0.1)
    if not isinstance(catch_all, int | float) or not 0.0 < catch_all < 1.0:
        raise RuleError(f"{source}: question.catch_all must be within (0, 1)")
    hypotheses = tuple(_hypothesis(h, source) for h in data.get("hypothesis", []))
    _check_tree(hypotheses, float(catch_all), source)
    known = {h.id for h in hypotheses}
    rules = []
    for index, raw in enumerate(data.get("rule", [])):
        rule = rule_from_dict(raw, qid, where=f"{source}: rule #{index + 1}")
        unknown = sorted(set(rule.likelihoods) - known)
        if unknown:
            raise RuleError(f"rule {rule.id}: likelihoods name unknown hypotheses {unknown}")
        rules.append(rule)
    ids = [r.id for r in rules]
    if len(set(ids)) != len(ids):
        raise RuleError(f"{source}: rule ids must be unique")
    _check_exclusive(rules, source)
    intake = tuple(
        intake_from_dict(raw, qid, known, f"{source}: intake #{n + 1}")
        for n, raw in enumerate(data.get("intake", []))
    )
    experiments = tuple(
        experiment_from_dict(raw, qid, known, f"{source}: experiment #{n + 1}")
        for n, raw in enumerate(data.get("experiment", []))
    )
    rates = tuple(
        rate_from_dict(raw, f"{source}: expected_rate #{n + 1}")
        for n, raw in enumerate(data.get("expected_rate", []))
    )
    memory = tuple(
        memory_from_dict(raw, f"{source}: device_memory #{n + 1}")
        for n, raw in enumerate(data.get("device_memory", []))
    )
    links = tuple(
        link_from_dict(raw, f"{source}: host_link #{n + 1}")
        for n, raw in enumerate(data.get("host_link", []))
    )
    _check_requirements(
        hypotheses,
        [*rules, *(e.rule for e in experiments)],
        intake,
        source,
        [
            *(
                (
                    f"experiment {e.id} (cost_when)",
                    tuple((w.intake, w.answers) for w in e.cost_when),
                )
                for e in experiments
            ),
            *(
                (f"experiment {e.id} (runs_back)", (e.runs_back,))
                for e in experiments
                if e.runs_back
            ),
        ],
    )
    for group, what in ((intake, "intake"), (experiments, "experiment")):
        names = [item.id for item in group]
        if len(set(names)) != len(names):
            raise RuleError(f"{source}: {what} ids must be unique")
    return Playbook(
        id=pid,
        version=int(head.get("version", 1)),
        title=str(head.get("title", pid)),
        question_id=qid,
        question_text=str(question["text"]),
        catch_all=float(catch_all),
        hypotheses=hypotheses,
        rules=tuple(rules),
        probes=tuple(str(p) for p in head.get("probes", [])),
        intake=intake,
        experiments=experiments,
        expected_rates=rates,
        device_memory=memory,
        host_links=links,
    )


def _hypothesis(data: Any, source: str) -> HypothesisSpec:
    if not isinstance(data, Mapping):
        raise RuleError(f"{source}: each [[hypothesis]] must be a table")
    hid, text, prior = data.get("id"), data.get("text"), data.get("prior")
    if not isinstance(hid, str) or not isinstance(text, str):
        raise RuleError(f"{source}: hypothesis needs 'id' and 'text'")
    if not isinstance(prior, int | float) or not 0.0 < prior <= 1.0:
        raise RuleError(f"{source}: hypothesis {hid}: prior must be within (0, 1]")
    parent = data.get("parent")
    meaning = data.get("meaning")
    requires = requirements_from(data.get("requires", []), f"{source}: hypothesis {hid}")
    return HypothesisSpec(hid, text, float(prior), parent, meaning, requires)


def _check_requirements(
    hypotheses: tuple[HypothesisSpec, ...],
    rules: Sequence[Rule],
    intake: tuple[IntakeQuestion, ...],
    source: str,
    more: Sequence[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]]] = (),
) -> None:
    """Every requirement (and every answer an intake answer is implied by, and each of
    ``more``: an experiment's ``cost_when``) names an intake question of this playbook and
    answers it declares."""
    questions = {q.id: q for q in intake}
    owners = list(more)
    owners += [(f"hypothesis {h.id}", h.requires) for h in hypotheses]
    owners += [(f"rule {r.id}", r.requires) for r in rules]
    owners += [(f"intake {q.id}", q.rule.requires) for q in intake]
    owners += [
        (f"intake {q.id} (implied_by)", tuple((s.intake, s.answers) for s in q.implied_by))
        for q in intake
    ]
    for owner, requires in owners:
        for qid, answers in requires:
            question = questions.get(qid)
            if question is None:
                raise RuleError(f"{source}: {owner} requires unknown intake {qid!r}")
            unknown = sorted(set(answers) - set(question.answers))
            if unknown:
                raise RuleError(
                    f"{source}: {owner} requires answers {unknown} that intake {qid} does not "
                    "declare"
                )


def _check_exclusive(rules: Sequence[Rule], source: str) -> None:
    """Each ``exclusive`` name is shared by two rules or more that a common probe feeds: a name
    on one rule alone, or on rules of no common probe, excludes nothing (a misspelling)."""
    kinds: dict[str, list[Rule]] = {}
    for rule in rules:
        if rule.exclusive is not None:
            kinds.setdefault(rule.exclusive, []).append(rule)
    for name, members in kinds.items():
        shared = set(members[0].probes).intersection(*(m.probes for m in members[1:]))
        if len(members) < 2 or not shared:
            raise RuleError(
                f"{source}: exclusive {name!r} must name two rules or more fed by a common probe "
                f"(it names {', '.join(m.id for m in members)})"
            )


def _check_tree(hypotheses: tuple[HypothesisSpec, ...], catch_all: float, source: str) -> None:
    ids = [h.id for h in hypotheses]
    if len(set(ids)) != len(ids):
        raise RuleError(f"{source}: hypothesis ids must be unique")
    seen: set[str] = set()
    for spec in hypotheses:
        if spec.parent is not None and spec.parent not in seen:
            raise RuleError(
                f"{source}: hypothesis {spec.id}: parent {spec.parent!r} must come first"
            )
        seen.add(spec.id)
    top = math.fsum(h.prior for h in hypotheses if h.parent is None)
    if top > 1.0 - catch_all + 1e-9:
        raise RuleError(
            f"{source}: top-level priors sum to {top:.3g}, leaving less than the catch-all's "
            f"{catch_all:.3g}"
        )
    for parent in {h.parent for h in hypotheses if h.parent}:
        shares = math.fsum(h.prior for h in hypotheses if h.parent == parent)
        if shares > 1.0 + 1e-9:
            raise RuleError(f"{source}: children of {parent} have shares summing to {shares:.3g}")
