"""``--query-gpu=…`` read from a pasted command line as a shell reads it: quotes taken off.

Before, ``$ nvidia-smi --query-gpu="index,name" --format=csv,noheader`` named its columns
``"index`` and ``name"``: facts with a quote in their name, on subjects by position.
"""

from __future__ import annotations

import pytest
from casefile_probes._text import split_command
from casefile_probes.query_gpu import parse_query_gpu

ROWS = "0, NVIDIA H200, 535.86.10\n1, NVIDIA H200, 535.86.10\n"
UNQUOTED = {
    ("gpu0", "name"): "NVIDIA H200",
    ("gpu1", "name"): "NVIDIA H200",
    ("host", "driver_version"): "535.86.10",
    ("gpu0", "query.samples"): 1,
    ("gpu1", "query.samples"): 1,
}


def facts(text: str) -> dict[tuple[str, str], object]:
    result = parse_query_gpu(text)
    assert result.parsed, result.problems
    return {(f.subject, f.name): f.value for f in result.facts}


@pytest.mark.parametrize(
    "command",
    [
        'nvidia-smi --query-gpu="index,name,driver_version" --format=csv,noheader',
        "nvidia-smi --query-gpu='index,name,driver_version' --format=csv,noheader",
        'nvidia-smi "--query-gpu=index,name,driver_version" --format="csv,noheader"',
        'nvidia-smi --query-gpu="index, name, driver_version" --format=csv,noheader',
        # a quote the paste cut short: split on blanks, the stray quote ignored
        'nvidia-smi --query-gpu="index,name,driver_version --format=csv,noheader',
    ],
)
def test_quoted_fields_name_the_columns_without_their_quotes(command: str) -> None:
    assert facts(f"$ {command}\n{ROWS}") == UNQUOTED


def test_an_unquoted_command_line_reads_as_before() -> None:
    command = "nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader"
    assert facts(f"$ {command}\n{ROWS}") == UNQUOTED


def test_a_quoted_gpu_id_picks_the_subjects() -> None:
    text = '$ nvidia-smi -i "3" --query-gpu="name" --format=csv,noheader\nNVIDIA H200\n'
    assert facts(text) == {("gpu3", "name"): "NVIDIA H200", ("gpu3", "query.samples"): 1}


def test_split_command_reads_shell_quoting_and_falls_back_on_blanks() -> None:
    assert split_command("a --q=\"x,y\" 'b c'") == ["a", "--q=x,y", "b c"]
    assert split_command('a "unclosed b') == ["a", '"unclosed', "b"]
    assert split_command("") == []
