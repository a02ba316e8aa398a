"""gpu-throughput@3 tells a host waiting on its disk from a host out of CPU.

top and mpstat count a core blocked on I/O as not idle, so their busy figure alone read a host
stuck on storage as a saturated CPU: the opposite remedy (more cores, fewer threads) to the one
it needs (faster storage, caching). ``cpu-saturated`` reads the busy time less the I/O wait,
and ``cpu-iowait`` reads the wait itself, for storage-bound input. Real outputs, from
``tests/golden`` (their sources are in each folder's ``SOURCES``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.cpu_load import parse_mpstat, parse_top

from casefile.domain.facts import Fact
from casefile.domain.rules import Applied, NotApplicable, Rule, derived_facts, evaluate

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def rule(rule_id: str) -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == rule_id)


def top(name: str) -> list[Fact]:
    return list(parse_top((GOLDEN / "top" / name).read_text(encoding="utf-8")).facts)


def mpstat(name: str) -> list[Fact]:
    return list(parse_mpstat((GOLDEN / "mpstat" / name).read_text(encoding="utf-8")).facts)


def applied(rule_id: str, facts: list[Fact]) -> Applied:
    verdict = evaluate(rule(rule_id), facts, "under-load")
    assert isinstance(verdict, Applied), verdict
    return verdict


def test_a_host_half_in_io_wait_is_waiting_on_storage_not_out_of_cpu() -> None:
    # busybox top: "0% usr 2% sys 0% nic 48% idle 48% io": 52 % not idle, 48 of it I/O wait
    facts = top("013.txt")
    running = next(f for f in derived_facts(facts) if f.name == "cpu.running.mean")
    assert running.value == pytest.approx(4.0)
    assert applied("cpu-saturated", facts).outcome == "light"  # it read "busy" (52 %) before
    assert applied("cpu-iowait", facts).outcome == "io-bound"


def test_a_busy_host_with_no_io_wait_is_still_busy() -> None:
    # mpstat during a Redis benchmark: 85 % busy (softirq), no I/O wait
    facts = mpstat("003.txt")
    assert applied("cpu-saturated", facts).outcome == "saturated"
    assert applied("cpu-iowait", facts).outcome == "none"


def test_a_reading_without_io_wait_keeps_its_busy_figure() -> None:
    # top's graph mode shows no wa: the busy figure is read as it was
    facts = top("006.txt")
    assert not any(f.name == "cpu.iowait" for f in facts)
    running = next(f for f in derived_facts(facts) if f.name == "cpu.running.mean")
    busy = next(f for f in facts if f.name == "cpu.busy.mean")
    assert running.value == pytest.approx(float(busy.value))  # type: ignore[arg-type]
    assert isinstance(evaluate(rule("cpu-iowait"), facts, "under-load"), NotApplicable)


def test_a_little_io_wait_on_a_many_core_host_is_not_io_bound() -> None:
    # mpstat -P ALL of a 20-CPU host: 0.71 % I/O wait
    assert applied("cpu-iowait", mpstat("001.txt")).outcome == "none"


def test_io_wait_weighs_for_storage_bound_input_and_against_cpu_work() -> None:
    row = rule("cpu-iowait").row
    assert row("data-loading")["io-bound"] >= 5 * row("otherwise")["io-bound"]
    assert row("data-loading")["io-bound"] >= 8 * row("host-cpu")["io-bound"]
    assert row("data-loading")["io-bound"] >= 8 * row("gpu-unused")["io-bound"]
    # no wait clears storage, not a loader that decodes on the CPU: a mild weight only
    assert 0.6 * row("otherwise")["none"] <= row("data-loading")["none"] < row("otherwise")["none"]
    for hypothesis in ("data-loading", "host-transfer", "host-cpu", "gpu-unused", "otherwise"):
        assert sum(row(hypothesis).values()) == pytest.approx(1.0)


def test_a_host_waiting_on_storage_weighs_for_data_loading_on_the_two_rules_together() -> None:
    """cpu-saturated reads a storage-bound host as light, which must not take back what
    cpu-iowait gives data loading: busybox top 013 (48 % I/O wait) weighs for it, net, at
    least three times against the rest."""
    facts = top("013.txt")
    ratio = 1.0
    for rule_id in ("cpu-saturated", "cpu-iowait"):
        verdict = applied(rule_id, facts)
        ratio *= verdict.likelihoods["data-loading"] / verdict.otherwise
    assert ratio >= 3


def test_io_wait_is_not_read_at_idle() -> None:
    assert not isinstance(evaluate(rule("cpu-iowait"), top("013.txt"), "idle"), Applied)
