"""Long single lines: every built-in parser is linear in the length of a line.

A regex tried at every offset of a line, or one with nested quantifiers, costs seconds on an
80 KB line and about half an hour on a megabyte (issue 9, defect 7). Each parser here gets
~200 KB lines of the shapes that used to be slow and must return a result well within a bound
that a quadratic parser cannot meet at that size, without raising.
"""

from __future__ import annotations

from importlib import import_module

import pytest
from casefile_probes._text import split_command

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from tests.cli.conftest import BUILTIN_PROBE_MODULES
from tests.timing import cpu_seconds

#: the built-ins, plus the probes of issue 11 items 3-5 (not yet in the CLI tests' list)
MODULES = BUILTIN_PROBE_MODULES

SIZE = 200_000
BOUND_S = 5.0

#: (repeated unit, suffix): plain runs, then shapes that end in a tool's invocation so that the
#: prompt matchers see a long prefix, then nccl-tests' log and row shapes.
SHAPES: dict[str, tuple[str, str]] = {
    "letters": ("a", ""),
    "spaces": (" ", ""),
    "gpu": ("GPU ", ""),
    "pipes": ("|", ""),
    "digits": ("1", ""),
    "colons": (": ", ""),
    "slashes": ("/", "nvidia-smi"),
    "at-signs": ("a@", " nvidia-smi"),
    "env-groups": ("(a)", " nvidia-smi"),
    "nested-env": ("((x)) ", " nvidia-smi -q"),
    "mixed": ("GPU0 | 1.5 W: x@y$ ", ""),
    "nccl-log": ("a:1:2 [0] NCCL INFO ", ""),
    "nccl-words": ("a ", ""),
    "nccl-rows": ("8 2 float sum -1 ", ""),
}


def _line(unit: str, suffix: str) -> str:
    return (unit * (SIZE // len(unit) + 1))[:SIZE] + suffix


def _probe(module: str) -> Probe:
    probe = import_module(f"casefile_probes.{module}").PROBE
    assert isinstance(probe, Probe)
    return probe


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_long_line_parses_in_linear_time(module: str, shape: str) -> None:
    probe = _probe(module)
    text = _line(*SHAPES[shape])
    results: list[ParseResult] = []
    # the parse itself must not raise, not only safe_parse
    elapsed = cpu_seconds(lambda: results.append(probe.parse(text)), rounds=1)
    assert isinstance(results[0], ParseResult)
    assert elapsed < BOUND_S, f"{module} took {elapsed:.1f}s on a {SIZE}-char {shape} line"


@pytest.mark.parametrize("module", MODULES)
def test_long_lines_among_normal_ones(module: str) -> None:
    probe = _probe(module)
    text = "\n".join(["$ nvidia-smi", _line("(a)", " nvidia-smi"), _line("a@", ""), "ok"])
    results: list[ParseResult] = []
    assert cpu_seconds(lambda: results.append(probe.safe_parse(text)), rounds=1) < BOUND_S
    (result,) = results
    assert isinstance(result, ParseResult)
    assert not any(p.startswith(f"parser {probe.name} failed") for p in result.problems)


#: a megabyte: a parser quadratic in one word's length takes seconds here (the shell splitter
#: took seven for "/" * 1 MB before "nvidia-smi"), a linear one a tenth of a second at rest
MEGABYTE = 1_000_000
MEGABYTE_BOUND_S = 3.0


def test_a_megabyte_command_word_is_split_in_linear_time() -> None:
    """``shlex`` grows each word one character at a time: the shell splitter reads a line as
    shell only up to a typed command's length, and splits longer ones on whitespace."""
    word = "/" * MEGABYTE + "nvidia-smi"
    words: list[list[str]] = []
    line = f"{word} --query-gpu=index"
    assert cpu_seconds(lambda: words.append(split_command(line)), rounds=1) < MEGABYTE_BOUND_S
    assert words == [[word, "--query-gpu=index"]]
    assert split_command('nvidia-smi --query-gpu="index,name"') == [
        "nvidia-smi",
        "--query-gpu=index,name",
    ]


@pytest.mark.parametrize("module", MODULES)
def test_a_megabyte_of_slashes_before_a_tool_name_parses_in_linear_time(module: str) -> None:
    text = _line("/", "nvidia-smi").replace("/" * SIZE, "/" * MEGABYTE, 1)
    probe = _probe(module)
    results: list[ParseResult] = []
    elapsed = cpu_seconds(lambda: results.append(probe.safe_parse(text)), rounds=1)
    assert isinstance(results[0], ParseResult)
    assert elapsed < MEGABYTE_BOUND_S, f"{module} took {elapsed:.1f}s on a 1 MB line"
