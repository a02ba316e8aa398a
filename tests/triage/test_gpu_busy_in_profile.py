"""gpu-throughput@3 reads a profile's GPU busy share (``gpu.busy_share``, rule
``gpu-busy-in-profile``): the share of a step's wall time the GPU runs kernels, read off an
nsys or torch.profiler timeline, or an application's own profiler, and stated, since no summary
table prints the span its kernel time fell in. Three development cases state one in words
(ds4-773 45 of 55 ms, mlxcel-680 93.6 %, unsloth-10806 270 of 850 ms)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes import app_log, nsys_stats, smi_q, torch_profiler
from casefile_probes._timeline import BUSY_SHARE

from casefile.domain.rules import Applied, NotApplicable, Rule, SetAside, evaluate
from casefile.domain.stated import check_statement, read_statement, statement
from casefile.errors import DomainError
from casefile.probes.api import Probe

RULE = "gpu-busy-in-profile"
PROFILERS = (nsys_stats.PROBE, torch_profiler.PROBE, app_log.PROBE)


def rule() -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == RULE)


def verdict(value: str, load: str = "unknown") -> object:
    """The rule's verdict on a statement of the share, as the stated reading's parser reads it."""
    facts = read_statement(statement([(BUSY_SHARE, value)])).facts
    return evaluate(rule(), facts, load)


def outcome(value: str, load: str = "unknown") -> str:
    found = verdict(value, load)
    assert isinstance(found, Applied)
    return found.outcome


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0.936", "device-bound"),  # mlxcel-680: weight streaming, GPU busy 93.6 %
        ("1", "device-bound"),
        ("0.81", "device-bound"),  # ds4-773: 45 of 55-56 ms per token on the GPU
        ("0.75", "device-bound"),
        ("0.6", "partway"),
        ("0.4", "partway"),
        ("0.32", "host-bound"),  # unsloth-10806: 270 of 850 ms per step
        ("0.05", "host-bound"),
        ("0.01", "idle"),
        ("0", "idle"),
    ],
)
def test_the_share_falls_in_its_band(value: str, expected: str) -> None:
    assert outcome(value) == expected


@pytest.mark.parametrize("value", ["32", "1.5", "-0.2"])
def test_a_figure_outside_zero_to_one_is_no_share_and_reads_no_outcome(value: str) -> None:
    """A percentage pulled out with ``--fact`` (32), or a third-party probe's ratio, must not
    read as a GPU busy thirty-two times over: no outcome, so no evidence."""
    assert isinstance(verdict(value), NotApplicable)


def test_a_profile_counts_at_any_load_but_idle() -> None:
    """A profile is taken of the job running: one of unknown load (a pasted app log) counts;
    one said to be taken at idle is set aside, as an idle GPU's utilisation is."""
    assert rule().load == "not-idle" and rule().advised_load == "under-load"
    assert outcome("0.9", "unknown") == outcome("0.9", "under-load") == "device-bound"
    idle = verdict("0.03", "idle")
    assert isinstance(idle, SetAside) and "idle" in idle.reason


def row_of(hid: str) -> Mapping[str, float]:
    """A hypothesis's row as the engine takes it: its own, else its nearest named parent's."""
    parents = {h.id: h.parent for h in PLAYBOOK_V3.hypotheses}
    current: str | None = hid
    while current is not None:
        if current in rule().likelihoods:
            return rule().likelihoods[current]
        current = parents[current]
    return rule().otherwise


def test_the_rows_point_the_way_the_timeline_does() -> None:
    # a GPU busy running kernels: the device is the limit, not the host, nor an unused GPU
    for leaf in ("memory-bandwidth", "power-cap", "thermal-degradation"):
        for host in ("data-loading", "host-cpu", "host-transfer", "gpu-unused"):
            assert row_of(leaf)["device-bound"] >= 5 * row_of(host)["device-bound"], (leaf, host)
    # a GPU waiting on its host most of each step, or on copies, which are not kernels
    for leaf in ("data-loading", "host-cpu", "host-transfer", "link-degraded"):
        assert row_of(leaf)["host-bound"] >= 5 * row_of("memory-bandwidth")["host-bound"], leaf
        assert row_of(leaf)["host-bound"] > row_of(leaf)["device-bound"], leaf
    # collectives spin inside their kernels: a communication-bound timeline reads busy
    for leaf in ("pcie-bandwidth", "acs-iommu", "consumer-no-p2p", "p2p-policy",
                 "transport-fallback", "internode-network"):  # fmt: skip
        assert row_of(leaf)["device-bound"] >= 4 * row_of(leaf)["host-bound"], leaf
    # a GPU with nothing offloaded reads idle; launch-bound work leaves gaps, not a full line
    assert row_of("gpu-unused")["idle"] >= 0.5
    assert row_of("compute-launch")["device-bound"] < row_of("memory-bandwidth")["device-bound"] / 2
    for row in (*rule().likelihoods.values(), rule().otherwise):
        assert sum(row.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("probe", PROFILERS, ids=lambda p: p.name)
def test_the_probes_that_profile_a_job_take_a_stated_busy_share(probe: Probe) -> None:
    statable = (*probe.facts, *probe.stated_facts)
    check_statement(probe.name, statable, [(BUSY_SHARE, "0.32")], probe.fractions)
    assert probe.name in rule().probes
    for wrong in ("32", "32 %"):
        with pytest.raises(DomainError, match="a fraction from 0 to 1"):
            check_statement(probe.name, statable, [(BUSY_SHARE, wrong)], probe.fractions)


@pytest.mark.parametrize("probe", PROFILERS, ids=lambda p: p.name)
def test_no_run_of_a_profiler_is_offered_for_a_share_only_a_person_states(probe: Probe) -> None:
    """The busy share is stated only: a probe that listed it among the facts its runs give was
    credited with this rule in the ranking, and offered for a reading its run cannot give."""
    from casefile.domain.beliefs.ranking import feeds

    assert BUSY_SHARE in probe.stated_facts and BUSY_SHARE not in probe.facts
    assert not feeds(rule(), probe.facts)


def test_a_probe_that_does_not_profile_refuses_it() -> None:
    probe = smi_q.PROBE
    with pytest.raises(DomainError, match=r"gives no fact 'gpu\.busy_share'"):
        check_statement(probe.name, probe.facts, [(BUSY_SHARE, "0.32")])


def test_the_load_a_step_is_advised_at_is_the_rules_own_but_for_not_idle() -> None:
    """A rule reading a job at any load but idle is advised under load; every other keeps its
    own (a third-party rule that needs an idle reading is still advised idle)."""
    from dataclasses import replace

    assert replace(rule(), load="idle").advised_load == "idle"
    assert replace(rule(), load="under-load").advised_load == "under-load"
    assert replace(rule(), load="any").advised_load == "any"
    assert rule().advised_load == "under-load"
