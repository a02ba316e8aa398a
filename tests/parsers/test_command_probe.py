"""The generic ``command`` probe: exit status and duration facts, where the output went, and
facts pulled out with patterns (``Probe.with_facts``; the CLI side is in
tests/cli/test_command_probe_cli.py)."""

from __future__ import annotations

import pytest
from casefile_probes.command import PROBE as COMMAND
from casefile_probes.command import parse_command_run

from casefile.probes.api import RunOutput
from casefile.probes.patterns import fact_pattern, read_value


def run(stdout: str = "", stderr: str = "", **kw: object) -> RunOutput:
    options: dict[str, object] = {"exit_status": 0, "duration_s": 1.25, "source": "local"}
    options.update(kw)
    return RunOutput(("tool", "--flag"), stdout, stderr, **options)  # type: ignore[arg-type]


def values(result: object) -> dict[str, object]:
    return {f.name: f.value for f in result.facts}  # type: ignore[attr-defined]


def test_a_run_has_its_exit_status_and_duration_as_facts() -> None:
    result = COMMAND.safe_parse("ok\n", run("ok\n", exit_status=3, duration_s=0.5))
    assert result.parsed and result.problems == []
    assert values(result) == {"command.exit_status": 3, "command.duration": 0.5}
    assert {f.unit for f in result.facts if f.name == "command.duration"} == {"s"}


def test_pasted_output_has_no_duration_and_no_exit_status_unless_known() -> None:
    result = parse_command_run(run("ok\n", exit_status=None, duration_s=None, source="pasted"))
    assert values(result) == {}


def test_nothing_on_stdout_says_where_the_output_went() -> None:
    result = parse_command_run(run("", "e" * 3847, exit_status=1))
    assert result.problems == ["nothing on stdout (3,847 bytes on stderr)"]
    assert values(result)["command.exit_status"] == 1
    assert parse_command_run(run("", "x")).problems == ["nothing on stdout (1 byte on stderr)"]
    assert parse_command_run(run("  \n")).problems == ["nothing on stdout or stderr"]


def test_without_a_run_the_text_parser_answers() -> None:
    assert COMMAND.safe_parse("anything").facts == []


def test_patterns_read_stdout_then_stderr() -> None:
    probe = COMMAND.with_facts(
        [fact_pattern("rate", r"([0-9.]+) tok/s"), fact_pattern("warm", r"warmup done")]
    )
    result = probe.safe_parse("", run("decode 11.5 tok/s\n", "warmup done\n"))
    facts = values(result)
    assert facts["rate"] == 11.5 and facts["warm"] == "warmup done"
    assert "command.exit_status" in facts
    assert "rate" in probe.facts and COMMAND.facts == ()


def test_a_pattern_that_matches_makes_an_unreadable_output_count() -> None:
    from casefile_probes.query_gpu import PROBE as QUERY

    probe = QUERY.with_facts([fact_pattern("gpus", r"^Found (\d+) GPUs")])
    result = probe.safe_parse("Found 8 GPUs\n", run("Found 8 GPUs\n"))
    assert result.parsed and values(result) == {"gpus": 8}
    missing = probe.safe_parse("nothing\n", run("nothing\n"))
    assert not missing.parsed
    assert "--fact gpus: no match in the output" in missing.problems


def test_every_match_is_a_fact() -> None:
    probe = COMMAND.with_facts([fact_pattern("lat", r"lat=(\d+)us")])
    result = probe.safe_parse("", run("lat=12us\nlat=15us\n"))
    assert [f.value for f in result.facts if f.name == "lat"] == [12, 15]


@pytest.mark.parametrize(
    ("name", "regex", "problem"),
    [
        ("9lives", "x", "fact name '9lives'"),
        ("rate", "(", "regex '(' does not compile"),
        ("rate", "(a)(b)", "has 2 groups; give at most one"),
    ],
)
def test_bad_patterns_are_refused_in_one_line(name: str, regex: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(")) as caught:
        fact_pattern(name, regex)
    assert "\n" not in str(caught.value)


def test_values_read_as_numbers_when_they_are() -> None:
    assert read_value(" 42 ") == 42 and read_value("4.5e3") == 4500.0
    assert read_value("1.0") == 1.0 and isinstance(read_value("1.0"), float)
    assert read_value("n/a") == "n/a"


def test_pasted_output_that_parses_alone_is_not_read_again() -> None:
    from casefile_probes.query_gpu import PROBE as QUERY

    text = "index, name\n0, NVIDIA H200\n"
    pasted = run(text, source="pasted", exit_status=None, duration_s=None)
    alone = QUERY.safe_parse(text)
    assert QUERY.safe_parse(text, pasted).facts == alone.facts
    # output that cannot be read alone is read after the command line it came from
    bare = "0, NVIDIA H200\n"
    assert not QUERY.safe_parse(bare).parsed
    given = RunOutput(
        ("nvidia-smi", "--query-gpu=index,name", "--format=csv,noheader"), bare, source="pasted"
    )
    assert {f.name for f in QUERY.safe_parse(bare, given).facts} >= {"name"}
    # only for pasted output: what casefile ran printed no prompt
    ran = RunOutput(given.argv, bare, exit_status=0, duration_s=0.1, source="local")
    assert not QUERY.safe_parse(bare, ran).parsed
