"""Fuzzing the parsers of issue 11 (items 3-5): mutated real outputs never make them raise.

The samples are the collected fixtures (``tests/golden/<folder>/*.txt``) and, for the parsers
that also read the shared corpus, its lspci, dmon and query-csv samples; the damages are those
of ``fuzzing`` (lines deleted, duplicated, swapped or glued, digits replaced, noise
injected, the text cut, CRLF endings).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest
from casefile_probes.dmon import parse_dmon
from casefile_probes.iommu_dmesg import parse_iommu_dmesg
from casefile_probes.kernel_cmdline import parse_cmdline
from casefile_probes.lspci import parse_lspci
from casefile_probes.lspci_tree import parse_lspci_tree
from casefile_probes.numa import parse_numa
from casefile_probes.query_gpu import parse_query_gpu
from casefile_probes.series import MAX_POINTS, Series, add_series_facts, decode, encode
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.smi_table import parse_smi_table
from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.domain.facts import ParseResult

from .corpus import check_result, read_samples
from .fuzzing import fuzz_mutated


def _samples(*folders: str, corpus: tuple[str, ...] = ()) -> Callable[[], list[str]]:
    return partial(read_samples, *folders, corpus=corpus)


CASES: dict[str, tuple[Callable[[str], ParseResult], Callable[[], list[str]]]] = {
    "lspci": (
        parse_lspci,
        _samples("lspci-acs", "lspci-fragment", "lspci-tree", corpus=("lspci",)),
    ),
    "lspci-tree": (parse_lspci_tree, _samples("lspci-tree")),
    "cmdline": (parse_cmdline, _samples("cmdline", "iommu-dmesg")),
    "iommu-dmesg": (parse_iommu_dmesg, _samples("iommu-dmesg", "cmdline")),
    "numa": (parse_numa, _samples("numa")),
    "smi-q": (parse_smi_q, _samples("smi-q-sections")),
    "smi-table": (parse_smi_table, _samples("smi-table-fragment")),
    "dmon-series": (parse_dmon, _samples(corpus=("dmon",))),
    "query-series": (parse_query_gpu, _samples(corpus=("query-csv",))),
}


@pytest.mark.parametrize("name", CASES)
def test_collected_fuzz_mutated_outputs_never_raise(name: str) -> None:
    parse, load = CASES[name]
    samples = load()
    if not samples:
        pytest.skip(f"no samples for {name} (corpus missing?)")

    def check(text: str) -> None:
        result = parse(text)
        check_result(result)
        for fact in result.facts:
            if fact.name.endswith(".series"):
                assert isinstance(fact.value, str) and decode(fact.value) is not None

    fuzz_mutated(samples, check, examples=150)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=400))
def test_collected_fuzz_random_text_never_raises(text: str) -> None:
    for parse, _ in CASES.values():
        check_result(parse(text))
    assert decode(text) is None or text.lstrip().startswith("{")


_READINGS = st.lists(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
    min_size=2,
    max_size=700,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_READINGS, st.floats(min_value=0.001, max_value=3600.0))
def test_series_round_trip_and_summaries(values: list[float], interval: float) -> None:
    """Any series survives encode/decode (thinned to MAX_POINTS, first and last kept), and its
    summary facts agree with the readings: min <= first, last <= max, a slope or none."""
    times = tuple(round(i * interval, 3) for i in range(len(values)))
    series = Series(times=times, values=tuple(values), clock="interval")
    back = decode(encode(series))
    assert back is not None
    assert len(back.values) == min(len(values), MAX_POINTS)
    assert back.values[0] == values[0] and back.values[-1] == values[-1]
    assert encode(series) == encode(series)
    result = ParseResult()
    add_series_facts(result, "x", "gpu0", "C", series)
    check_result(result)
    low, high = result.values("x.series.min")["gpu0"], result.values("x.series.max")["gpu0"]
    assert isinstance(low, int | float) and isinstance(high, int | float)
    assert low <= values[0] <= high and low <= values[-1] <= high
    found = result.values("x.series.slope").get("gpu0")
    if len(set(values)) == 1:
        assert found == 0.0
