"""Fuzzing the torch-profiler, nsys-stats and py-spy parsers and their ``recognises`` guesses:
mutated real outputs (lines deleted, duplicated, swapped or glued, digits replaced, noise
injected, the text cut, CRLF endings; see ``fuzzing``) and random text never make them
raise, and the parsers always return a well-formed result."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .corpus import check_result, read_samples
from .fuzzing import fuzz_mutated
from .profilers import PROFILERS, RECOGNISERS


@pytest.mark.parametrize("folder", sorted(PROFILERS))
def test_profilers_fuzz_mutated_outputs_never_raise(folder: str) -> None:
    samples = read_samples(folder)
    parse, recognise = PROFILERS[folder], RECOGNISERS[folder]

    def check(text: str) -> None:
        check_result(parse(text))
        assert isinstance(recognise(text), bool)

    fuzz_mutated(samples, check)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=400))
def test_profilers_fuzz_random_text_never_raises(text: str) -> None:
    for folder, parse in PROFILERS.items():
        check_result(parse(text))
        assert isinstance(RECOGNISERS[folder](text), bool)


def test_recognisers_take_anything_without_raising() -> None:
    for recognise in RECOGNISERS.values():
        for value in (None, 3, b"Self CPU", "\x00" * 10, "Thread (x\n\t(", "Time (%),"):
            assert recognise(value) in (True, False)  # type: ignore[arg-type]
