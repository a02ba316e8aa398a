"""The nvidia-smi parsers never raise, whatever a paste does to the output.

Hypothesis mutates real samples (the corpus and ``tests/golden/<folder>/issues/``) the way
pasting does (lines lost, doubled or swapped, text cut at any offset, characters inserted,
digits changed, line endings toggled) and each parser must still return a well-formed
ParseResult. Empty, garbage and other tools' output are checked too.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .corpus import CORPUS, check_result, corpus_files, golden_files, read_sample
from .corpus import NVIDIA_SMI_PARSERS as PARSERS

# the shared corpus, then the same tool's outputs kept in tests/golden/<folder>/issues/
SAMPLES = {
    folder: [read_sample(path) for path in corpus_files(folder) + golden_files(f"{folder}/issues")]
    for folder in PARSERS
}

_INSERTS = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=8) | st.sampled_from(
    ["|", ":", "#", ",", " X ", "\t", "N/A", "[N/A]", "-", "GPU0", "0x", "\n"]
)

_OP = st.tuples(
    st.sampled_from(["delete", "duplicate", "swap", "truncate", "insert", "digits", "crlf"]),
    st.integers(min_value=0, max_value=1 << 20),
    st.integers(min_value=0, max_value=1 << 20),
    _INSERTS,
)


def _mutate(text: str, ops: list[tuple[str, int, int, str]]) -> str:
    for op, a, b, extra in ops:
        lines = text.splitlines(keepends=True) or [""]
        i, j = a % len(lines), b % len(lines)
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "truncate":
            text = text[: a % (len(text) + 1)]
            continue
        elif op == "insert":
            at = a % (len(text) + 1)
            text = text[:at] + extra + text[at:]
            continue
        elif op == "digits":
            digit = str(b % 10)
            lines[i] = "".join(digit if ch.isdigit() else ch for ch in lines[i])
        elif op == "crlf":
            text = text.replace("\r\n", "\n") if "\r\n" in text else text.replace("\n", "\r\n")
            continue
        text = "".join(lines)
    return text


def _fuzz(folder: str) -> Callable[[], None]:
    parse = PARSERS[folder]

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        sample=st.sampled_from(SAMPLES[folder]),
        ops=st.lists(_OP, min_size=1, max_size=6),
    )
    def run(sample: str, ops: list[tuple[str, int, int, str]]) -> None:
        check_result(parse(_mutate(sample, ops)))

    return run


test_nvidia_smi_fuzz_topo = _fuzz("topo")
test_nvidia_smi_fuzz_query_gpu = _fuzz("query-csv")
test_nvidia_smi_fuzz_smi_q = _fuzz("smi-q")
test_nvidia_smi_fuzz_smi_table = _fuzz("smi-table")
test_nvidia_smi_fuzz_dmon = _fuzz("dmon")
test_nvidia_smi_fuzz_pmon = _fuzz("pmon")


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=400))
def test_nvidia_smi_fuzz_arbitrary_text(text: str) -> None:
    for parse in PARSERS.values():
        check_result(parse(text))


GARBAGE = [
    "",
    " \n\n\t\n",
    "hello world",
    "\x00\xff\ufffd" * 20,
    "|" * 200,
    "#\n#\n#",
    "GPU0\nGPU0 GPU0\n",
    ",,,,\n,,,,",
    "bash: nvidia-smi: command not found",
    "Failed to initialize NVML: Driver/library version mismatch",
]


@pytest.mark.parametrize("folder", list(PARSERS))
@pytest.mark.parametrize("text", GARBAGE, ids=[f"garbage{i}" for i in range(len(GARBAGE))])
def test_nvidia_smi_empty_and_garbage_are_unparsed(folder: str, text: str) -> None:
    result = PARSERS[folder](text)
    check_result(result)
    assert not result.parsed


@pytest.mark.parametrize("folder", list(PARSERS))
def test_nvidia_smi_reports_the_tools_own_error(folder: str) -> None:
    result = PARSERS[folder]("$ nvidia-smi\nNo devices were found\n")
    assert not result.parsed
    assert result.problems == ["nvidia-smi reported an error: No devices were found"]


@pytest.mark.parametrize("folder", list(PARSERS))
def test_nvidia_smi_other_tools_output_is_not_claimed(folder: str) -> None:
    """Given another command's output (any corpus folder), a parser says it cannot read it."""
    parse = PARSERS[folder]
    others = [path for path in CORPUS.glob("*/*.txt") if path.parent.name != folder]
    assert others
    for path in others:
        result = parse(read_sample(path))
        check_result(result)
        assert not result.parsed, f"{folder} parser claimed {path.parent.name}/{path.name}"
