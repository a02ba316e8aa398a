"""Experiments: two runs of one benchmark that differ in one stated change, read as evidence.

Most real investigations are settled by an A/B — the all-reduce with ``NCCL_P2P_DISABLE=1``,
the same box after ``iommu=pt`` — not by a reading of one run. An experiment rule says which
changes it knows (a pattern over the stated change), which fact of the benchmark it compares,
how much run-to-run noise that benchmark has (so a 2 % wobble is "same", not "faster"), and how
likely "faster", "same" and "slower" are under each hypothesis that predicts an effect of that
change. The rule reads the speedup in noise units (log speedup / log(1 + noise)): "same" is
within one margin either way, graded near its edge (see
:mod:`casefile.domain.experiment_outcome`). The measured numbers are stored in an
``experiment.recorded`` event; the rule's verdict is an ordinary evidence event pointing at it.

In TOML::

    [[experiment]]
    id = "p2p-disable"
    version = 1
    title = "Peer-to-peer disabled in the collective library"
    change = 'NCCL_P2P_DISABLE\\s*=\\s*1'         # matched against the stated change
    suggest = "NCCL_P2P_DISABLE=1"                 # what next steps propose
    probes = ["nccl-tests", "command"]
    metric = ["nccl.busbw.large", "throughput"]    # the first both runs have is compared
    higher_is_better = true                        # for figures that carry no unit
    noise = { nccl-tests = 0.05, command = 0.10 }  # or one number for every probe
    noise_why = "nccl-tests bus bandwidth at large sizes varies by 1-3 % between runs"
    cost = "cheap"                                 # what making the change takes
    examples = ["export NCCL_P2P_DISABLE=1"]       # optional: each must be read by 'change'
    rationale = "..."
    [experiment.likelihoods]
    acs-iommu = { faster = 0.55, same = 0.35, slower = 0.10 }
    otherwise = { faster = 0.05, same = 0.25, slower = 0.70 }

Which way is better comes from the figures' unit first (a duration is better lower, a rate
higher: 12 s → 6 s is twice as fast), then from the rule's ``higher_is_better`` when the
figures carry no unit; a unit that says neither is never guessed at.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casefile.domain.change_arrow import sides
from casefile.domain.change_forms import (
    SUBJECT,
    change_readings,
    moved_in_words,
    raised,
    said_raised,
    set_to_one,
    set_to_zero,
    stated_state,
    switch_from_to,
    switch_left,
    turned_on,
    worded_raised,
    written_raised,
)
from casefile.domain.change_toward import Toward, moved_toward, toward_from
from casefile.domain.effect_size import LargeEffect, large_effects_from
from casefile.domain.experiment_cost import COSTS, CostWhen, cost_when_from
from casefile.domain.facts import Fact
from casefile.domain.gpu_counts import gpu_count_change
from casefile.domain.rule_loading import intake_answers_of, rule_from_dict
from casefile.domain.rules import Rule, Statistic, compute_statistic, derived_facts
from casefile.domain.version_direction import direction
from casefile.errors import RuleError

OUTCOMES = ("faster", "same", "slower")
SPEEDUP_FACT = "experiment.speedup"
RULE_PREFIX = "experiment."


@dataclass(frozen=True)
class ExperimentRule:
    id: str
    version: int
    title: str
    change: str
    suggest: str
    probes: tuple[str, ...]
    metric: tuple[str, ...]
    higher_is_better: bool
    #: the benchmark's run-to-run spread, as a fraction: per probe, ``*`` for any other
    noise: Mapping[str, float]
    noise_why: str
    cost: str
    rule: Rule
    #: changes a reader may check the pattern against (``examples`` in TOML, each one the
    #: pattern reads)
    examples: tuple[str, ...] = ()
    #: a pattern that, where it also matches, leaves the change to a later rule (``unless``
    #: in TOML): a change that names the copy between host and device is that copy's, even
    #: when it says "storage" too
    unless: str = ""
    #: costs that hold where the case states an intake answer (``cost_when`` in TOML; see
    #: :mod:`casefile.domain.experiment_cost`): the previous framework is cheaper to go back
    #: to than the previous driver. The ranking resolves them at the step it ranks.
    cost_when: tuple[CostWhen, ...] = ()
    #: the rule tests a setting's change, whichever side holds it (``either_way`` in TOML):
    #: an override removed and an override set both say the library's own choice differed
    #: from the one forced, so neither is read backwards (see :meth:`undoes`)
    either_way: bool = False
    #: the rule's own A/B runs back to an earlier version, and the intake answers under which
    #: a change that does not go back is the trouble as it happened (``runs_back = { intake,
    #: answers }`` in TOML: after an upgrade, "old -> new" slower blames the new version as
    #: the rule's "faster" does; see :mod:`casefile.domain.version_direction`)
    runs_back: tuple[str, tuple[str, ...]] | None = None
    #: the state the rule's own A/B leaves a switch in (``switches_to = "on"`` in TOML: CUDA
    #: graphs turned on; ``"off"``: ACS turned off), so that a change written as a switch
    #: flipped ("CUDA graphs off -> on", "enforce_eager True -> False", "ACS: Enabled ->
    #: Disabled") is read the right way round (see :meth:`undoes`)
    switches_to: str | None = None
    #: the rule's own A/B raises the number in the change (``raises = true`` in TOML: a larger
    #: batch, a higher power limit), so a change that lowers it ("batch size 32 -> 8",
    #: "power cap 180 W -> 150 W") is read the other way round (see :meth:`undoes`)
    raises: bool | None = None
    #: the number a ``raises`` rule reads is a count (``counts = true`` in TOML: loader
    #: workers, layers offloaded), so zero is none of it: a change with no arrow that sets it
    #: to zero ("num_workers=0", "-ngl 0") is the rule's A/B reversed. Not for a number that
    #: names a mode or a limit ("nvpmodel -m 0" is Jetson's fastest mode)
    counts: bool = False
    #: what a ``raises`` rule's number must be the number of (``number_of`` in TOML, a
    #: pattern the before side must match): data-pipeline raises loader workers, not the size
    #: an image is resized to ("resize 512 -> 256" is no fewer workers); empty: any number
    number_of: str = ""
    #: the two kinds the rule's changes move between (``toward = { to, away }`` in TOML): onto
    #: ``to`` is its own A/B, onto ``away`` reversed (:mod:`casefile.domain.change_toward`)
    toward: Toward | None = None
    #: where a ``raises`` rule's number is written inside a word (``number_in`` in TOML, a
    #: pattern whose groups hold it, one group per kind of number): a link's "Gen4", "x16",
    #: "8 GT/s" hold no number standing alone, so "PCIe Gen4 -> Gen3" is compared by them
    number_in: str = ""
    #: the number is at least one (``at_least_one = true`` in TOML: a batch, the requests a
    #: server runs at once), so one set on its own is its floor: lowered (:func:`set_to_one`)
    at_least_one: bool = False
    #: the rule reads a change of how many GPUs the job runs on (``gpu_counts = true`` in
    #: TOML: fewer-gpus), fewer being its own A/B and more its A/B run backwards
    #: (:mod:`casefile.domain.gpu_counts`)
    gpu_counts: bool = False
    #: the hypotheses that can give a large effect, by side (``large_gain``, ``large_loss`` in
    #: TOML; see :mod:`casefile.domain.effect_size`)
    large: tuple[LargeEffect, ...] = ()

    def matches(self, change: str) -> bool:
        """Whether the stated change (as written, or in a common spelling's normal form:
        see :func:`change_readings`) is one this rule reads, and not one its ``unless`` leaves
        to a later rule."""
        return any(
            (self._names(reading) or (self.gpu_counts and gpu_count_change(reading) is not None))
            and not (self.unless and re.search(self.unless, reading, re.IGNORECASE))
            for reading in change_readings(change)
        )

    def leaves(self, change: str) -> bool:
        """Whether the rule's pattern reads ``change`` and its ``unless`` leaves it to a later
        rule on purpose (the opposite of the rule's own A/B, a neighbour's change): such a rule
        is no hint for reading it (:mod:`casefile.domain.nearest_rules`)."""
        return bool(self.unless) and any(
            self._names(reading) and re.search(self.unless, reading, re.IGNORECASE)
            for reading in change_readings(change)
        )

    def _names(self, text: str) -> bool:
        """Whether the pattern alone reads ``text`` (``unless`` decides which rule owns a
        change, not which side of one holds the setting: see :meth:`undoes`)."""
        return re.search(self.change, text, re.IGNORECASE) is not None

    def _names_any(self, change: str) -> bool:
        return any(self._names(reading) for reading in change_readings(change))

    def undoes(self, change: str) -> bool:
        """Whether ``change``, written ``BEFORE -> AFTER``, takes away what this rule reads:
        its pattern matches the before side and not the after side, nor, when the after side
        is a new value ("batch size 1 -> 16"), the after side read with the before side's
        subject ("batch size 16"). "DDP with NCCL_P2P_DISABLE=1 -> DDP with NVLink" is P2P
        turned back on, not off: such an A/B is read the other way round, the variant being
        this rule's baseline. A change with no arrow undoes it where its words leave the
        rule's count at none ("num_workers=0", "Without -ngl": see :attr:`counts`) or its
        switch in the other state ("pin_memory=False": see :func:`stated_state`). A rule that
        reads a change either way undoes nothing."""
        if self.either_way:
            return False
        counted = gpu_count_change(change) if self.gpu_counts else None
        if counted is not None:  # more GPUs: the rule's fewer, run backwards
            return counted[1] > counted[0]
        if self.toward is not None:
            moved = moved_toward(self.toward, change, both_sides=self.raises is not None)
            if moved is not None:
                return not moved
        split = sides(" ".join(change.split())) or switch_from_to(change)
        if split is not None and self.switches_to is not None:
            flipped = switch_left(*split, self._names_any)
            if flipped is not None:  # "NCCL_P2P_DISABLE=0 -> 1": P2P turned off
                return flipped != self.switches_to
        if split is None:
            subject = self._subject()
            if subject is not None:
                if self.counts and (set_to_zero(change, subject) or self._none_of(change)):
                    return bool(self.raises)
                said_up = moved_in_words(change) if self._counted(change) else None
                said_up = said_raised(change, subject) if said_up is None else said_up
                if said_up is None and self.number_in:  # "from Gen4 to Gen3"
                    said_up = worded_raised(self.number_in, change)
                if said_up is None and self.at_least_one and set_to_one(change, subject):
                    said_up = False
                if said_up is not None:
                    return said_up != self.raises
            said = stated_state(change, self._names_any)
            return self.switches_to is not None and said is not None and said != self.switches_to
        if not self._names_any(split[0]):
            return False
        before, after = split
        turned = turned_on(before, after)
        if self.switches_to is not None and turned is not None:
            return turned != (self.switches_to == "on")
        if self.number_in and self.raises is not None:
            written = written_raised(self.number_in, before, after)
            if written is not None:
                return written != self.raises
        moved = None if self.number_in else raised(before, after)  # no slot's or model's number
        if self._counted(before) and moved is not None:
            return moved != self.raises
        if self._names_any(after):
            return False
        if not after[:1].isdigit():
            return True
        # the before side up to its value: "batch size " of "batch size 1", "X=" of "X=1"
        named = SUBJECT.match(before)
        return not self._names_any(f"{named.group(1) if named else ''}{after}".strip())

    def _counted(self, side: str) -> bool:
        """Whether ``side`` names the number this rule raises (see :attr:`number_of`)."""
        if self.raises is None:
            return False
        return not self.number_of or re.search(self.number_of, side, re.IGNORECASE) is not None

    def _subject(self) -> str | None:
        """What a number this rule raises is the number of: :attr:`number_of`, else what the
        rule reads at all (a batch, a power limit); None for a rule that raises none."""
        if self.raises is None:
            return None
        return self.number_of or self.change

    def _none_of(self, change: str) -> bool:
        """Whether a change says it runs without the counted thing ("Without -ngl", "without
        any loader workers"): "without" just before what :attr:`number_of` names, a
        qualifier or two between. "no" is left out: "no layers left on the CPU" is all of
        them on the GPU, "no change in workers" no change."""
        if not self.number_of:
            return False
        qualifier = r"(?:any|the|data|dataloader|data-loader|loader|gpu|offloaded)\s{1,3}"
        near = rf"\bwithout\s{{1,3}}(?:{qualifier}){{0,2}}\W{{0,2}}(?:{self.number_of})"
        return re.search(near, change, re.IGNORECASE) is not None

    def either_direction(self, change: str, answer_of: Callable[[str], str | None]) -> bool:
        """Whether a slowdown under ``change`` says what the rule's "faster" says: the rule's
        A/B runs back, the case says the trouble followed an upgrade (``answer_of``: the
        answers in force), and this change does not go back (forward, or in an order nothing
        states: people write one oldest first)."""
        if self.runs_back is None:
            return False
        intake, answers = self.runs_back
        return answer_of(intake) in answers and direction(change_readings(change)) != "back"

    def measure(self, facts: Sequence[Fact]) -> dict[str, float]:
        return measure(self.metric, facts)

    def speedup(self, baseline: float, variant: float) -> float:
        """How much better the variant did: above 1 is better, whichever way the metric runs."""
        return variant / baseline if self.higher_is_better else baseline / variant

    def margin(self, probe: str) -> float:
        return self.noise.get(probe, self.noise.get("*", min(self.noise.values())))

    def in_noise_units(self, speedup: float, probe: str) -> float:
        """The speedup on the rule's scale: log(speedup) / log(1 + noise), so "same" is
        within one noise margin either way whatever the benchmark's own spread."""
        return math.log(speedup) / math.log1p(self.margin(probe))


#: The generic reading of an A/B no rule knows, named by the person as a test of some
#: hypotheses (``--tests``): those predict an improvement, the rest no change. The table is
#: deliberately plain — a person's choice of what the change tests, not a reviewed rule.
NAMED_ID = "named"
NAMED_VERSION = 1
NAMED_PREDICT = {"faster": 0.7, "same": 0.2, "slower": 0.1}
OTHERS_PREDICT = {"faster": 0.1, "same": 0.7, "slower": 0.2}
NAMED_NOISE = 0.10


def named_rule(hypotheses: Sequence[str], question: str, probe: str | None) -> ExperimentRule:
    """The generic table for an A/B named as a test of ``hypotheses`` (all of ``question``),
    recorded as rule ``experiment.named``; its noise margin is an application benchmark's,
    since no rule states this one's."""
    named = ", ".join(hypotheses)
    rule = rule_from_dict(
        {
            "id": RULE_PREFIX + NAMED_ID,
            "version": NAMED_VERSION,
            "title": f"A/B named as a test of {named}",
            "probes": [probe or "any"],
            "statistic": {"aggregate": "max", "fact": SPEEDUP_FACT},
            "outcomes": [
                {"name": "slower", "below": -1.0},
                {"name": "same", "below": 1.0},
                {"name": "faster"},
            ],
            "likelihoods": {
                **{h: dict(NAMED_PREDICT) for h in hypotheses},
                "otherwise": dict(OTHERS_PREDICT),
            },
            "rationale": (
                f"Named by the person recording it as a test of {named}: no rule of the "
                "playbook reads this change, so the named hypotheses predict that it helps "
                "and every other one that it changes nothing."
            ),
        },
        question,
        where="--tests",
    )
    return ExperimentRule(
        id=NAMED_ID,
        version=NAMED_VERSION,
        title=rule.title,
        change=".",
        suggest="",
        probes=rule.probes,
        metric=(),
        higher_is_better=True,
        noise={"*": NAMED_NOISE},
        noise_why="a generic margin: no rule states this benchmark's run-to-run spread",
        cost="expensive",
        rule=rule,
    )


def measure(metrics: Sequence[str], facts: Sequence[Fact]) -> dict[str, float]:
    """Each metric a run gives (derived ones too): its largest positive value over subjects."""
    pool = [*facts, *derived_facts(facts)]
    out: dict[str, float] = {}
    for name in metrics:
        value = compute_statistic(Statistic("max", (name,)), pool)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            out[name] = float(value)
    return out


def _change_pattern(value: Any, field: str, label: str) -> str:
    """A rule's pattern over the stated change (``change``, ``unless``), checked to compile."""
    if not isinstance(value, str):
        raise RuleError(f"{label}: '{field}' must be a pattern over the stated change")
    try:
        re.compile(value)
    except re.error as error:
        raise RuleError(f"{label}: '{field}' is not a valid pattern: {error}") from None
    return value


def experiment_from_dict(data: Any, question: str, known: set[str], where: str) -> ExperimentRule:
    """Build and check an experiment rule; every problem names the rule and the field."""
    if not isinstance(data, Mapping):
        raise RuleError(f"{where}: each [[experiment]] must be a table")
    eid = data.get("id")
    if not isinstance(eid, str) or not eid:
        raise RuleError(f"{where}: 'id' must be a non-empty string")
    label = f"experiment {eid}"
    if "only_where_required" in data:
        raise RuleError(
            f"{label}: 'only_where_required' is for probe rules (an A/B's reader is chosen "
            "under the answers when it is recorded)"
        )
    change = _change_pattern(data.get("change"), "change", label)
    if not change:
        raise RuleError(f"{label}: 'change' must be a pattern over the stated change")
    unless = _change_pattern(data.get("unless", ""), "unless", label)
    metric = data.get("metric")
    if isinstance(metric, str):
        metric = [metric]
    if not isinstance(metric, list) or not metric or not all(isinstance(m, str) for m in metric):
        raise RuleError(f"{label}: 'metric' must name the fact (or facts) compared")
    raw_noise = data.get("noise")
    noise: dict[str, Any] = dict(raw_noise) if isinstance(raw_noise, Mapping) else {"*": raw_noise}
    if not noise or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and 0.0 < v < 1.0
        for v in noise.values()
    ):
        raise RuleError(
            f"{label}: 'noise' must be a fraction within (0, 1), or a table of them by probe"
        )
    noise_why = data.get("noise_why")
    if not isinstance(noise_why, str) or not noise_why.strip():
        raise RuleError(f"{label}: 'noise_why' must justify the noise margin")
    cost = data.get("cost", "expensive")
    if cost not in COSTS:
        raise RuleError(f"{label}: 'cost' must be one of {', '.join(COSTS)}")
    higher = _flag(data.get("higher_is_better", True), label, "higher_is_better")
    rule = rule_from_dict(
        {
            "id": RULE_PREFIX + eid,
            "version": data.get("version"),
            "title": str(data.get("title", eid)),
            "probes": data.get("probes"),
            "statistic": {"aggregate": "max", "fact": SPEEDUP_FACT},
            "outcomes": [
                {"name": "slower", "below": -1.0},
                {"name": "same", "below": 1.0},
                {"name": "faster"},
            ],
            "likelihoods": data.get("likelihoods"),
            "rationale": data.get("rationale"),
            "reliability": data.get("reliability", 0.9),
            "requires": data.get("requires", []),
        },
        question,
        where=label,
    )
    unknown = sorted(set(rule.likelihoods) - known)
    if unknown:
        raise RuleError(f"{label}: likelihoods name unknown hypotheses {unknown}")
    examples = data.get("examples", [])
    if not isinstance(examples, list) or not all(isinstance(e, str) and e for e in examples):
        raise RuleError(f"{label}: 'examples' must list changes as people write them")
    built = ExperimentRule(
        id=eid,
        version=rule.version,
        title=rule.title,
        change=change,
        suggest=str(data.get("suggest", change)),
        probes=rule.probes,
        metric=tuple(metric),
        higher_is_better=higher,
        noise={str(k): float(v) for k, v in noise.items()},
        noise_why=noise_why.strip(),
        cost=str(cost),
        rule=rule,
        examples=tuple(examples),
        unless=unless,
        cost_when=cost_when_from(data.get("cost_when", []), label),
        either_way=_flag(data.get("either_way", False), label, "either_way"),
        runs_back=_runs_back(data.get("runs_back"), label),
        switches_to=_switches_to(data.get("switches_to"), label),
        raises=_optional_flag(data.get("raises"), label, "raises"),
        counts=_flag(data.get("counts", False), label, "counts"),
        number_of=_change_pattern(data.get("number_of", ""), "number_of", label),
        toward=toward_from(data.get("toward"), label),
        number_in=_change_pattern(data.get("number_in", ""), "number_in", label),
        at_least_one=_flag(data.get("at_least_one", False), label, "at_least_one"),
        gpu_counts=_flag(data.get("gpu_counts", False), label, "gpu_counts"),
        large=large_effects_from(data, set(rule.likelihoods), label),
    )
    if built.either_way and built.toward is not None:
        raise RuleError(f"{label}: 'either_way' reads no direction, so 'toward' would not count")
    if (built.counts or built.number_of or built.number_in or built.at_least_one) and (
        built.raises is None
    ):
        needs = "'counts', 'number_of', 'number_in' and 'at_least_one'"
        raise RuleError(f"{label}: {needs} say what 'raises' reads: set it too")
    for example in examples:
        if not built.matches(example):
            raise RuleError(f"{label}: example {example!r} is not a change its 'change' reads")
    return built


def _runs_back(value: object, label: str) -> tuple[str, tuple[str, ...]] | None:
    if value is None:
        return None
    found = intake_answers_of(value)
    if found is None:
        raise RuleError(
            f"{label}: 'runs_back' needs 'intake' (a question id) and 'answers' (the answers "
            "that say the trouble followed an upgrade)"
        )
    return found


def _switches_to(value: object, label: str) -> str | None:
    if value is None:
        return None
    if value in ("on", "off"):
        return str(value)
    raise RuleError(f'{label}: \'switches_to\' must be "on" or "off"')


def _optional_flag(value: object, label: str, name: str) -> bool | None:
    return None if value is None else _flag(value, label, name)


def _flag(value: object, label: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise RuleError(f"{label}: '{name}' must be true or false")
    return value
