"""Fuzzing the top, mpstat, pidstat and app-log parsers and their ``recognises`` guesses, and
holding them to linear time.

Mutated real outputs (lines deleted, duplicated, swapped or glued, digits replaced, noise
injected, the text cut, CRLF endings; see ``fuzzing``) and random text never make them
raise. A workload log can be many megabytes, so each parser also reads a 10 MB log well within a
bound, and single long lines of the shapes its patterns look for in time linear in their length.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .corpus import check_linear_in_line_length, check_result, read_samples
from .fuzzing import fuzz_mutated
from .host_logs import HOST_LOGS, RECOGNISERS


@pytest.mark.parametrize("folder", sorted(HOST_LOGS))
def test_host_logs_fuzz_mutated_outputs_never_raise(folder: str) -> None:
    samples = read_samples(folder)
    parse, recognise = HOST_LOGS[folder], RECOGNISERS[folder]

    def check(text: str) -> None:
        result = parse(text)
        check_result(result)
        assert isinstance(recognise(text), bool)
        for fact in result.facts:
            if fact.name == "train.data_share":
                assert isinstance(fact.value, float) and 0.0 <= fact.value <= 1.0

    fuzz_mutated(samples, check)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=400))
def test_host_logs_fuzz_random_text_never_raises(text: str) -> None:
    for folder, parse in HOST_LOGS.items():
        check_result(parse(text))
        assert isinstance(RECOGNISERS[folder](text), bool)


def test_recognisers_take_anything_without_raising() -> None:
    for recognise in RECOGNISERS.values():
        for value in (None, 3, b"%Cpu(s):", "\x00" * 10, "CPU %usr\n%idle", "data_time: x"):
            assert recognise(value) in (True, False)  # type: ignore[arg-type]


LOG_SIZE = 10_000_000
#: seconds; each parser reads 10 MB in about 1-4 s here
LOG_BOUND_S = 30.0


@pytest.mark.parametrize("folder", sorted(HOST_LOGS))
def test_a_ten_megabyte_log_is_read_in_one_pass(folder: str) -> None:
    samples = "".join(text + "\n" for text in read_samples(folder))
    text = (samples * (LOG_SIZE // len(samples) + 1))[:LOG_SIZE]
    started = time.perf_counter()
    result = HOST_LOGS[folder](text)
    elapsed = time.perf_counter() - started
    check_result(result)
    assert result.parsed and result.facts
    assert elapsed < LOG_BOUND_S, f"{folder} took {elapsed:.1f}s on a 10 MB log"


#: repeated units that reach deep into the patterns (a number with no unit after it, a field
#: name with no value, a label with no line) and end so that nothing matches at the end
SHAPES = {
    "digits": ("1", "x it/s"),
    "digits-dots": ("1.", " tokens/s"),
    "digit-spaces": ("1 ", "x"),
    "data-time": ("data_time: 1 ", ""),
    "time": ("time: 1 ", ""),
    "data-paren": ("Data 1 (", ""),
    "time-paren": ("Time: 1.0s, ", ""),
    "eval": ("eval time = ", ""),
    "per-token": ("1 ms per token, ", ""),
    "cpu-labels": ("%Cpu0  :", ""),
    "cpu-fields": ("0.0 us,", ""),
    "graph": ("1.0/", "["),
    "device": ("device=", "cp"),
    "using": ("using ", "cp"),
    "tensor": ("tensor_parallel_size", "x"),
    "table": ("CPU %idle Command PID %CPU ", ""),
}
LINE = 400_000


@pytest.mark.parametrize("folder", sorted(HOST_LOGS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_long_line_costs_time_linear_in_its_length(folder: str, shape: str) -> None:
    """Twice the line, at most about twice the time (and never seconds): a pattern that
    backtracks over a line costs four times as much for twice the length."""
    unit, end = SHAPES[shape]
    check_linear_in_line_length(HOST_LOGS[folder], unit, end, LINE, f"{folder} ({shape})")
