"""gpu-throughput@3's ``copy-share`` (version 2) reads the share of a profile's GPU time in
copies between host and device (``gpu.host_copy_share``): version 1 read every memory
operation, so a profile whose memory time is device-to-device copies and memsets (a tensor made
contiguous, a cache moved) read as data crossing the link, for host-transfer and a degraded
link."""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.nsys_stats import parse_nsys_stats
from casefile_probes.torch_profiler import parse_torch_profiler

from casefile.domain.facts import Fact
from casefile.domain.rules import HOST_COPY_SHARE, Applied, NotApplicable, Rule, evaluate


def rule() -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == "copy-share")


def _profile(memcpy: float | None, host: float | None) -> list[Fact]:
    facts = []
    if memcpy is not None:
        facts.append(Fact("gpu.memcpy_share", memcpy))
    if host is not None:
        facts.append(Fact("memcpy.host_share", host))
    return facts


@pytest.mark.parametrize(
    ("memcpy", "host", "outcome"),
    [
        (0.6, 1.0, "copy-heavy"),  # every memory operation a transfer
        (0.6, 0.1, "light"),  # the same share, nearly all on the device
        (0.6, 0.3, "some"),  # 0.18 of GPU time in transfers
        (0.05, 1.0, "light"),
        (0.0, None, "light"),  # no memory operations: nothing to split
    ],
)
def test_only_copies_between_host_and_device_count(
    memcpy: float, host: float | None, outcome: str
) -> None:
    verdict = evaluate(rule(), _profile(memcpy, host), "under-load")
    assert isinstance(verdict, Applied) and verdict.outcome == outcome
    assert rule().version == 2 and rule().statistic.fact == HOST_COPY_SHARE


def test_a_share_without_its_split_is_not_read() -> None:
    """Memory operations without the split between host and device could be either: no
    outcome, rather than version 1's guess that they were all transfers."""
    assert isinstance(evaluate(rule(), _profile(0.6, None), "under-load"), NotApplicable)


def test_an_nsys_profile_of_device_copies_reads_light() -> None:
    """The memory report of a profile whose copies stay on the device (the shape of oneflow
    #8910's gpumemtimesum: memsets and DtoD copies ahead of HtoD), with the kernel report."""
    kern = (
        " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  "
        "StdDev (ns)  Name\n"
        " --------  ---------------  ---------  --------  --------  --------  --------  "
        "-----------  ----\n"
        "    100.0        1,000,000         10  100000.0  100000.0    100000    100000  "
        "        0.0  void gemm_kernel\n"
    )
    mem = (
        " Time (%)  Total Time (ns)  Count  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  "
        "StdDev (ns)  Operation\n"
        " --------  ---------------  -----  --------  --------  --------  --------  "
        "-----------  ---------\n"
        "     70.0          700,000     10   70000.0   70000.0     70000     70000  "
        "        0.0  [CUDA memcpy Device-to-Device]\n"
        "     20.0          200,000     10   20000.0   20000.0     20000     20000  "
        "        0.0  [CUDA memset]\n"
        "     10.0          100,000     10   10000.0   10000.0     10000     10000  "
        "        0.0  [CUDA memcpy Host-to-Device]\n"
    )
    facts = parse_nsys_stats(kern + "\n" + mem).facts
    values = {fact.name: fact.value for fact in facts}
    assert values["gpu.memcpy_share"] == 0.5 and values["memcpy.host_share"] == 0.1
    verdict = evaluate(rule(), facts, "under-load")
    assert isinstance(verdict, Applied) and verdict.outcome == "light"


GOLDEN = Path(__file__).parents[1] / "golden" / "torch-profiler"


@pytest.mark.parametrize(
    ("sample", "outcome"),
    [
        ("014.txt", "copy-heavy"),  # pageable uploads, 57 % of CUDA time (to(device) each step)
        ("016.txt", "some"),  # pageable uploads, 15 %
        ("017.txt", "some"),  # pageable uploads, 22 %, an LLM pipeline on a T4
        ("015.txt", "light"),  # 8 % of CUDA time in memory operations, all device-to-device
    ],
)
def test_published_profiles_read_by_their_copies_direction(sample: str, outcome: str) -> None:
    """Published ``key_averages().table()`` printouts (sources in the folder's SOURCES)."""
    facts = parse_torch_profiler((GOLDEN / sample).read_text()).facts
    verdict = evaluate(rule(), facts, "under-load")
    assert isinstance(verdict, Applied) and verdict.outcome == outcome


def test_a_profile_cut_by_its_row_limit_gives_no_outcome() -> None:
    """018 (2 % of CUDA time in a device-to-device copy) was printed with ``row_limit=10``:
    its kernel and copy rows hold 93.68 % of the device time, and an upload may be in the rest
    (``aten::copy_`` holds 0.99 % more than its copy's row), so the split is not known."""
    facts = parse_torch_profiler((GOLDEN / "018.txt").read_text()).facts
    assert isinstance(evaluate(rule(), facts, "under-load"), NotApplicable)
