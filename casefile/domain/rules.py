"""Rules: declarative knowledge that turns an observation's facts into evidence.

A rule reads facts, requires conditions (a utilisation reading says nothing about decode unless
taken under load), reduces the facts to one statistic, maps the statistic to one of a few
discrete outcomes, and carries a likelihood table P(outcome | hypothesis). Rules are data —
loaded from a playbook's TOML — so that a reviewer can read and check every number, and so an
evidence event can record exactly which rule and version produced it.

A rule in TOML::

    [[rule]]
    id = "pcie-link-busy"
    version = 1
    probes = ["nvidia-smi-q", "nvml-sampler", "nvidia-smi-dmon"]
    rationale = "If the links carried the traffic that limits decode, they would be busy."
    conditions = { load = "under-load" }
    statistic = { aggregate = "max", fact = "pcie.rx_throughput", per = "pcie.link.capacity" }
    outcomes = [
      { name = "idle", below = 0.05 },
      { name = "moderate", below = 0.6 },
      { name = "saturated" },                       # no bound: everything else
    ]
    [rule.likelihoods]
    pcie-bandwidth = { idle = 0.02, moderate = 0.28, saturated = 0.70 }
    otherwise = { idle = 0.45, moderate = 0.40, saturated = 0.15 }

Every row of the table is a distribution over the outcomes (it sums to 1); ``otherwise`` is the
row for every hypothesis the table does not name, the catch-all included.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from casefile.domain.facts import Fact, FactValue

AGGREGATES = ("mean", "max", "min", "any", "all", "values", "active", "count")
LOAD_STATES = ("idle", "under-load", "unknown", "any")
#: what a rule's conditions may ask of a reading's load: one of the states, or "not-idle", any
#: reading but one said to be taken at idle (a job's own profile or log is of the job running,
#: so one of unknown load still counts, while an idle GPU's says nothing of the job)
NOT_IDLE = "not-idle"
RULE_LOADS = (*LOAD_STATES, NOT_IDLE)
#: Reliability of a measurement a rule reads, unless the rule says otherwise.
DEFAULT_RULE_RELIABILITY = 0.9

#: Usable bandwidth per lane and direction in KB/s for each PCIe generation, after line coding
#: (8b/10b for Gen1–2, 128b/130b for Gen3–5, FLIT for Gen6): the basis of "link capacity".
PCIE_LANE_KBPS = {1: 250_000, 2: 500_000, 3: 984_615, 4: 1_969_231, 5: 3_938_462, 6: 7_876_923}

#: The smallest message whose bus bandwidth says what a path can carry. Below a few MB a
#: collective is latency-bound (8- and 16-byte rows read 0.00 GB/s on any hardware), so a
#: table cut after its small rows says nothing about bandwidth.
LARGE_MESSAGE_BYTES = 32 * 1024 * 1024


#: a busy GPU's SM clock over its own maximum (see :func:`derived_facts`)
CLOCK_SHARE_BUSY = "clocks.sm.share_when_busy"
#: how busy (utilisation, %) a GPU must read for its clock to say it is held down: an idle or
#: waiting GPU drops to its idle clocks by design
BUSY_AT_LEAST = 50.0
#: how many PCIe generations a GPU's link runs below what both its ends support
LINK_GENERATIONS_BEHIND = "pcie.link.gen.behind"
#: utilisation (%) below which a GPU counts as idle: its link may drop its generation to save
#: power, so a low generation on it says nothing, however loaded the rest of the machine is
IDLE_BELOW = 5.0

#: the share of a profile's GPU time in copies between host and device: its memory operations'
#: share times the host copies' share of those (see :func:`derived_facts`)
HOST_COPY_SHARE = "gpu.host_copy_share"

#: Facts a rule may read that no probe states: :func:`derived_facts` (and the playbook's
#: context) computes them from others of the same observation (one of each group needed).
DERIVED_FROM: dict[str, tuple[tuple[str, ...], ...]] = {
    "pcie.link.capacity": (
        ("pcie.link.gen.max", "pcie.link.gen.current"),
        ("pcie.link.width.max", "pcie.link.width.current"),
    ),
    "nccl.busbw.large": (("nccl.busbw",),),
    "p2p.enabled_gain": (
        ("p2p.unidir_bw.enabled.max", "p2p.bidir_bw.enabled.max"),
        ("p2p.unidir_bw.disabled.max", "p2p.bidir_bw.disabled.max"),
    ),
    # from a playbook's expected-rate table, for the GPUs a run names
    "nccl.busbw.expected": (("nccl.device",),),
    "p2p.bw.expected": (("name",),),
    # the decode roofline (casefile.domain.roofline): rate times weights; the peak (the GPU's,
    # else the case's --env gpus') comes only beside the product, so a probe gives both
    "decode.weight_gbps": (("decode.tokens_per_s", "tokens_per_s"), ("model.weights_gb",)),
    "memory.bw.expected": (("decode.tokens_per_s", "tokens_per_s"), ("model.weights_gb",)),
    # an RDMA test's port bandwidth over the port rate the case states (casefile.domain.fabric)
    "rdma.bw.share": (("perftest.bw.port",),),
    "rdma.gpu_bw.share": (("perftest.bw.port",),),
    # a host-to-device copy test's share of the GPU's PCIe link (casefile.domain.host_link)
    "h2d.link_share": (("bandwidth.h2d", "nvbandwidth.host_to_device_memcpy_ce"),),
    # a profile's copies between host and device as a share of GPU time
    HOST_COPY_SHARE: (("gpu.memcpy_share",), ("memcpy.host_share",)),
    # the host's busy time less its I/O wait, where the reading separates them
    "cpu.running.mean": (("cpu.busy.mean",),),
    # a busy GPU's SM clock against its own maximum, in one reading
    CLOCK_SHARE_BUSY: (("clocks.sm",), ("clocks.max.sm",), ("utilization.gpu",)),
    # a link's generations below the top both its ends support, per GPU
    LINK_GENERATIONS_BEHIND: (("pcie.link.gen.current",), ("pcie.link.gen.max",)),
}


def derived_facts(facts: Sequence[Fact]) -> list[Fact]:
    """Facts computed from others that rules may read, e.g. ``pcie.link.capacity``.

    ``pcie.link.capacity`` (KB/s per direction) uses the link's *maximum* generation and width:
    the question a rule asks is how much of what the link can carry is in use.
    ``nccl.busbw.large`` (GB/s, on ``host``) is the best out-of-place bus bandwidth among
    messages of at least :data:`LARGE_MESSAGE_BYTES`; absent when the table stops short of them.
    ``p2p.enabled_gain`` is the best unidirectional bandwidth with peer-to-peer enabled over
    the best without (bidirectional when only that part was pasted): about 1 when enabling it
    changes nothing (no P2P, or P2P rerouted).
    ``clocks.sm.share_when_busy`` (per GPU) is its SM clock over its own maximum (``Max Clocks``
    of ``nvidia-smi -q``, ``clocks.max.sm`` of a query) where the same reading shows it at least
    :data:`BUSY_AT_LEAST` % utilised: a GPU that waits drops to idle clocks by design, so only
    a busy one's low clock says something holds it down ("Idle: Not Active" is no such sign:
    drivers print it for GPUs at 0 % in P5). Not for a looped query (its means pair idle
    samples' clocks with busy ones') nor where application clocks hold the clock on purpose.
    ``pcie.link.gen.behind`` (per GPU) is how many generations its link runs below its maximum
    (``pcie.link.gen.max``: nvidia-smi's ``Max`` is already the lower of the device's and the
    system's top; its ``Host Max`` is the root port's, which may sit behind a switch that runs
    faster, so it is not used). Generations, not their ratio: Gen2 of Gen4 and Gen1 of Gen2
    have the same ratio, but one is a quarter of the link and the other half. A GPU the same
    reading shows idle (under :data:`IDLE_BELOW` %) gives no figure below its top, since an
    idle link drops its generation to save power (a one-GPU job on an 8-GPU machine leaves
    seven such links in a reading taken under load); at its top it reads 0, which power saving
    does not explain. A looped query is read by the highest generation it saw (and is idle only
    if it never saw the GPU busy; the NVML sampler gives that highest generation itself, beside
    its peak utilisation), since its mean mixes idle samples' low generations with busy ones';
    one that kept no times holds only means, and a mean is no generation.
    ``gpu.host_copy_share`` (on ``host``) is a profile's memory operations' share of GPU time
    times the share of those in copies between host and device (``memcpy.host_share``): a
    share made of copies on the device (``DtoD``, memsets) moves nothing over the link. A
    profile with no memory operations reads 0 without the split.
    ``cpu.running.mean`` (%, on ``host``) is the host's busy time less its I/O wait: top and
    mpstat count a core blocked on the disk as not idle, so ``cpu.busy.mean`` alone reads a
    host waiting on storage as a host out of CPU, the opposite remedy. Where a reading gives
    no ``cpu.iowait`` (htop's meters, top's graph mode) it is the busy time as given.
    """
    by_subject: dict[str, dict[str, FactValue]] = {}
    clock_units: dict[str, dict[str, str]] = {}
    large: list[float] = []
    for fact in facts:
        by_subject.setdefault(fact.subject, {})[fact.name] = fact.value
        if fact.name in ("clocks.sm", "clocks.max.sm") and fact.unit:
            clock_units.setdefault(fact.subject, {})[fact.name] = fact.unit
        if fact.name == "nccl.busbw" and fact.subject.startswith("size="):
            size = fact.subject[5:]
            if size.isdigit() and int(size) >= LARGE_MESSAGE_BYTES and _is_number(fact.value):
                large.append(float(fact.value))
    out: list[Fact] = []
    host_busy = _host_running(facts)
    if host_busy is not None:
        out.append(Fact("cpu.running.mean", host_busy, "host", "%"))
    if large:
        out.append(Fact("nccl.busbw.large", max(large), "host", "GB/s"))
    host = by_subject.get("host", {})
    p2p_on, p2p_off = host.get("p2p.unidir_bw.enabled.max"), host.get("p2p.unidir_bw.disabled.max")
    if not (_positive(p2p_on) and _positive(p2p_off)):  # a paste of the bidirectional part only
        p2p_on, p2p_off = (
            host.get("p2p.bidir_bw.enabled.max"),
            host.get("p2p.bidir_bw.disabled.max"),
        )
    copies, split = host.get("gpu.memcpy_share"), host.get("memcpy.host_share")
    if _is_number(copies) and (copies == 0 or _is_number(split)):
        out.append(Fact(HOST_COPY_SHARE, round(float(copies) * float(split or 0), 4), "host"))  # type: ignore[arg-type]
    if _positive(p2p_on) and _positive(p2p_off):
        out.append(Fact("p2p.enabled_gain", float(p2p_on) / float(p2p_off), "host"))  # type: ignore[arg-type]
    for subject, values in by_subject.items():
        share = _busy_clock_share(values, clock_units.get(subject, {}))
        if share is not None:
            out.append(Fact(CLOCK_SHARE_BUSY, share, subject))
        behind = _generations_behind(values)
        if behind is not None:
            out.append(Fact(LINK_GENERATIONS_BEHIND, behind, subject))
        gen = values.get("pcie.link.gen.max", values.get("pcie.link.gen.current"))
        width = values.get("pcie.link.width.max", values.get("pcie.link.width.current"))
        if isinstance(gen, int | float) and isinstance(width, int | float):
            lane = PCIE_LANE_KBPS.get(int(gen))
            if lane is not None and width > 0:
                out.append(Fact("pcie.link.capacity", lane * float(width), subject, "KB/s"))
    return out


def _busy_clock_share(values: Mapping[str, FactValue], units: Mapping[str, str]) -> float | None:
    """A GPU's SM clock over its maximum, where it reads busy (see :func:`derived_facts`)."""
    clock, peak = (
        _mhz(values.get("clocks.sm"), units.get("clocks.sm")),
        _mhz(values.get("clocks.max.sm"), units.get("clocks.max.sm")),
    )
    busy = values.get("utilization.gpu")
    if clock is None or peak is None or not peak > 0 or not _is_number(busy):
        return None
    if float(busy) < BUSY_AT_LEAST:  # type: ignore[arg-type]
        return None
    if any(name.startswith(("clocks.sm.series", "utilization.gpu.series")) for name in values):
        return None  # a looped query's means pair idle samples' clocks with busy ones'
    if values.get("clocks_event_reasons.applications_clocks_setting") is True:
        return None  # clocks set low on purpose (application clocks, a locked clock)
    return round(clock / peak, 4)


def _generations_behind(values: Mapping[str, FactValue]) -> int | None:
    """A GPU's link generations below its top (see :func:`derived_facts`)."""
    current, top = values.get("pcie.link.gen.current"), values.get("pcie.link.gen.max")
    busy = values.get("utilization.gpu.max", values.get("utilization.gpu"))  # nvml: its peak
    if "pcie.link.gen.current.series.max" in values:  # a looped query: its busiest moments
        current = values["pcie.link.gen.current.series.max"]
        busy = values.get("utilization.gpu.series.max", busy)
    elif _is_number(values.get("query.samples")) and float(values["query.samples"]) > 1:
        return None  # a looped query without times keeps only means: no generation
    if not (_is_number(current) and _is_number(top)):
        return None
    if float(current) != int(current) or float(top) != int(top):  # type: ignore[arg-type]
        return None  # a mean of samples, not a generation
    behind = max(int(top) - int(current), 0)  # type: ignore[arg-type]
    if behind and _is_number(busy) and float(busy) < IDLE_BELOW:  # type: ignore[arg-type]
        return None  # an idle link drops its generation to save power: low says nothing
    return behind


#: MHz in one unit a clock may be given in (none: MHz, as nvidia-smi prints it)
_MHZ = {"MHz": 1.0, "GHz": 1000.0}


def _mhz(value: FactValue | None, unit: str | None) -> float | None:
    factor = _MHZ.get(unit or "MHz")
    if factor is None or not _is_number(value):
        return None
    return float(value) * factor  # type: ignore[arg-type]


def _host_running(facts: Sequence[Fact]) -> float | None:
    """The host's busy share less its I/O wait (see :func:`derived_facts`)."""
    busy = wait = None
    for fact in facts:
        if fact.subject == "host" and _is_number(fact.value):
            if fact.name == "cpu.busy.mean":
                busy = float(fact.value)
            elif fact.name == "cpu.iowait":
                wait = float(fact.value)
    if busy is None:
        return None
    return round(max(busy - (wait or 0.0), 0.0), 4)


def _is_number(value: FactValue | None) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _positive(value: FactValue | None) -> bool:
    return _is_number(value) and value > 0  # type: ignore[operator]


@dataclass(frozen=True)
class Outcome:
    name: str
    below: float | None = None
    at_least: float | None = None
    equals: FactValue | None = None
    any_of: tuple[str, ...] = ()
    #: this outcome counts only from a reading taken under this load; otherwise it is set aside
    #: (a link below its top speed at idle may be power saving, not a fault)
    load: str | None = None
    why: str | None = None

    def matches(self, statistic: FactValue | frozenset[str]) -> bool:
        if isinstance(statistic, frozenset):
            if self.any_of:
                return bool(statistic & set(self.any_of))
            return self.equals is None and self.below is None and self.at_least is None
        if self.equals is not None:
            return statistic == self.equals
        if self.any_of:
            return str(statistic) in self.any_of
        if isinstance(statistic, bool) or not isinstance(statistic, int | float):
            return self.below is None and self.at_least is None
        if self.below is not None and not statistic < self.below:
            return False
        return not (self.at_least is not None and not statistic >= self.at_least)


@dataclass(frozen=True)
class Statistic:
    aggregate: str
    facts: tuple[str, ...]  # one or more fact names, pooled (e.g. Rx and Tx throughput)
    per: str | None = None
    subjects: str | None = None  # only subjects starting with this prefix

    @property
    def fact(self) -> str:
        return self.facts[0]


def contradicted(
    requires: Iterable[tuple[str, Collection[str]]], answer_of: Callable[[str], str | None]
) -> str | None:
    """The first intake question of ``requires`` whose answer in force (``answer_of``; None
    when unanswered) is not one it allows: what makes a hypothesis not apply, a rule not worth
    suggesting and an intake question moot. None when nothing stated contradicts them."""
    for intake, allowed in requires:
        answer = answer_of(intake)
        if answer is not None and answer not in allowed:
            return intake
    return None


@dataclass(frozen=True)
class Rule:
    id: str
    version: int
    question: str
    probes: tuple[str, ...]
    statistic: Statistic
    outcomes: tuple[Outcome, ...]
    likelihoods: Mapping[str, Mapping[str, float]]
    otherwise: Mapping[str, float]
    rationale: str
    load: str = "any"
    reliability: float = DEFAULT_RULE_RELIABILITY
    title: str = ""
    #: (intake question id, answers): what the case must state for this rule to be worth
    #: suggesting (nccl-tests says nothing about a job on one GPU); it still reads any run
    requires: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: its reading means nothing where an answer contradicts ``requires`` (``only_where_required
    #: = true`` in TOML: the network between nodes, read on a one-node job), so it weighs only
    #: while no answer does (:mod:`casefile.domain.reading_scope`); without it, ``requires``
    #: only says when the rule is worth suggesting (a model's share on the GPU, read in
    #: training, still speaks for the GPU left unused)
    only_where_required: bool = False
    #: the states of the machine it reads (``gpu-heat``): rules naming one state are one
    #: witness of it, not several (:mod:`casefile.domain.witnesses`)
    witness: tuple[str, ...] = ()
    #: rules of one ``exclusive`` name read runs of different kinds (perftest from host memory
    #: or from GPU memory): one run feeds one of them, so a probe is worth the best of them in
    #: the ranking, not all of them at once (:func:`~casefile.domain.beliefs.ranking.rank_probes`)
    exclusive: str | None = None

    @property
    def advised_load(self) -> str:
        """The load to take a run at for this rule: its own, and under load for a rule that
        reads a job running at any load but idle (a profile)."""
        return "under-load" if self.load == NOT_IDLE else self.load

    def suggested_under(self, answers: Mapping[str, str]) -> bool:
        """Whether no answer in force contradicts what this rule needs to be worth a run."""
        return contradicted(self.requires, answers.get) is None

    @property
    def outcome_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.outcomes)

    @property
    def reads(self) -> tuple[str, ...]:
        per = (self.statistic.per,) if self.statistic.per else ()
        return (*self.statistic.facts, *per)

    def row(self, hypothesis_id: str) -> Mapping[str, float]:
        return self.likelihoods.get(hypothesis_id, self.otherwise)


@dataclass(frozen=True)
class Applied:
    """A rule's verdict on one observation: an outcome and the likelihoods it implies."""

    rule: Rule
    outcome: str
    statistic: float | str
    likelihoods: dict[str, float]
    otherwise: float


@dataclass(frozen=True)
class SetAside:
    """An observation that fails a rule's conditions: no evidence, but a visible record."""

    rule: Rule
    reason: str


@dataclass(frozen=True)
class NotApplicable:
    rule: Rule
    reason: str


Verdict = Applied | SetAside | NotApplicable


def evaluate(rule: Rule, facts: Sequence[Fact], load: str) -> Verdict:
    """Apply a rule to one observation's facts taken under ``load``."""
    if rule.load not in ("any", NOT_IDLE) and load != rule.load:
        taken = "at idle" if load == "idle" else f"with load {load!r}"
        needs = (
            "counts only readings taken under load (an idle GPU says nothing about what "
            "limits throughput)"
            if rule.load == "under-load"
            else f"needs a reading taken {rule.load}"
        )
        return SetAside(rule, f"taken {taken}; rule {rule.id} {needs}")
    statistic = compute_statistic(rule.statistic, [*facts, *derived_facts(facts)])
    if statistic is None:
        return NotApplicable(rule, f"no {' / '.join(rule.reads)} facts to read")
    if rule.load == NOT_IDLE and load == "idle":  # only a reading that holds its facts
        return SetAside(rule, f"taken at idle; rule {rule.id} reads a job running, not an idle GPU")
    for outcome in rule.outcomes:
        if outcome.matches(statistic):
            if outcome.load not in (None, "any") and load != outcome.load:
                taken = "at idle" if load == "idle" else f"with load {load!r}"
                why = f": {outcome.why}" if outcome.why else ""
                return SetAside(
                    rule, f"outcome {outcome.name!r} read {taken} counts only {outcome.load}{why}"
                )
            shown: float | str = (
                (",".join(sorted(statistic)) or "none")
                if isinstance(statistic, frozenset)
                else statistic
            )
            if isinstance(shown, bool):
                shown = str(shown).lower()
            return Applied(
                rule=rule,
                outcome=outcome.name,
                statistic=shown,
                likelihoods={h: row[outcome.name] for h, row in rule.likelihoods.items()},
                otherwise=rule.otherwise[outcome.name],
            )
    return NotApplicable(rule, f"statistic {statistic!r} matches no outcome")


def can_read(rule: Rule, facts: Sequence[Fact]) -> bool:
    """Whether the facts hold one the rule reads, whatever the load they were taken under (a
    count over none of them is no reading either)."""
    reads = set(rule.statistic.facts)
    return any(fact.name in reads for fact in [*facts, *derived_facts(facts)]) and (
        compute_statistic(rule.statistic, [*facts, *derived_facts(facts)]) is not None
    )


def compute_statistic(spec: Statistic, facts: Sequence[Fact]) -> FactValue | frozenset[str] | None:
    """Reduce the facts a rule reads to one value (None when there is nothing to read)."""
    values: dict[tuple[str, str], FactValue] = {}
    denominators: dict[str, FactValue] = {}
    for fact in facts:
        if spec.subjects and not fact.subject.startswith(spec.subjects):
            continue
        if fact.name in spec.facts:
            values[(fact.subject, fact.name)] = fact.value
        elif spec.per is not None and fact.name == spec.per:
            denominators[fact.subject] = fact.value
    if spec.aggregate == "count":
        return len(values)
    if not values:
        return None
    if spec.aggregate == "values":
        return frozenset(str(v) for v in values.values())
    if spec.aggregate == "active":
        return _active(spec, values)
    if spec.aggregate in ("any", "all"):
        flags = [bool(v) for v in values.values()]
        return any(flags) if spec.aggregate == "any" else all(flags)
    numbers: list[float] = []
    for (subject, _), value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if spec.per is not None:
            denominator = denominators.get(subject)
            if isinstance(denominator, bool) or not isinstance(denominator, int | float):
                continue
            if denominator == 0:
                continue
            numbers.append(float(value) / float(denominator))
        else:
            numbers.append(float(value))
    if not numbers:
        return None
    if spec.aggregate == "mean":
        return math.fsum(numbers) / len(numbers)
    return max(numbers) if spec.aggregate == "max" else min(numbers)


def _active(spec: Statistic, values: Mapping[tuple[str, str], FactValue]) -> frozenset[str] | None:
    """Which listed flags are set, on any subject: the reasons, not one bit. Only true/false
    values are flags. None set is a reading only where every flag was read: a query of one
    column, or a driver that prints fewer reasons, clears none of the reasons it left out."""
    flags = {(subject, name): v for (subject, name), v in values.items() if isinstance(v, bool)}
    set_ = frozenset(name for (_, name), v in flags.items() if v)
    if set_ or {name for _, name in flags} >= set(spec.facts):
        return set_
    return None
