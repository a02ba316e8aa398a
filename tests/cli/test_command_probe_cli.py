"""``casefile probe … command``: ``--fact NAME=REGEX``, where a run's output went, and
command lines split (pasted ones only) and shown as a shell would take them back."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import CLI


def log(cli: CLI, case: str) -> list[dict[str, object]]:
    return json.loads(cli("log", case, "--json").out)  # type: ignore[no-any-return]


def test_fact_option_records_facts_from_a_run(cli: CLI) -> None:
    case = cli("new", "facts").out.strip()
    result = cli(
        "probe", case, "command", "--fact", "rate=([0-9.]+) tok/s",
        "--", "sh", "-c", "echo 'decode 11.5 tok/s'; echo noise >&2",
    )  # fmt: skip
    assert result.code == 0, result.err
    observation = log(cli, case)[-1]["payload"]
    assert isinstance(observation, dict)
    facts = {f["name"]: f["value"] for f in observation["facts"]}
    assert facts["rate"] == 11.5 and facts["command.exit_status"] == 0
    assert isinstance(facts["command.duration"], float)


def test_a_run_with_only_stderr_says_so(cli: CLI) -> None:
    case = cli("new", "stderr only").out.strip()
    result = cli("probe", case, "command", "--", "sh", "-c", "printf 'e%.0s' $(seq 3847) >&2")
    assert result.code == 0, result.err
    assert "nothing on stdout (3,847 bytes on stderr)" in result.out
    assert "printed nothing" not in result.out


def test_a_bad_fact_option_is_a_usage_error_and_runs_nothing(cli: CLI, tmp_path: Path) -> None:
    case = cli("new", "bad fact").out.strip()
    marker = tmp_path / "ran"
    result = cli("probe", case, "command", "--fact", "rate", "--", "touch", str(marker))
    assert result.code == 2 and "give NAME=REGEX" in result.err
    result = cli("probe", case, "command", "--fact", "r=(", "--", "touch", str(marker))
    assert result.code == 2 and "does not compile" in result.err
    assert not marker.exists() and len(log(cli, case)) == 1


def test_a_pasted_command_line_is_split_as_a_shell_would(cli: CLI, tmp_path: Path) -> None:
    pasted = tmp_path / "out.csv"
    pasted.write_text("index, name\n0, NVIDIA H200\n")
    case = cli("new", "pasted").out.strip()
    line = 'nvidia-smi --query-gpu="index,name" --format=csv'
    result = cli("probe", case, "nvidia-smi-query", "--paste", str(pasted), "--", line)
    assert result.code == 0, result.err
    ran = next(e for e in log(cli, case) if e["type"] == "probe.ran")["payload"]
    assert isinstance(ran, dict)
    assert ran["argv"] == ["nvidia-smi", "--query-gpu=index,name", "--format=csv"]
    # shown so that it can be copied back into a shell
    assert "`nvidia-smi --query-gpu=index,name --format=csv`" in cli("log", case).out


def test_an_unbalanced_pasted_command_line_is_refused(cli: CLI, tmp_path: Path) -> None:
    pasted = tmp_path / "out.txt"
    pasted.write_text("x\n")
    case = cli("new", "unbalanced").out.strip()
    result = cli("probe", case, "command", "--paste", str(pasted), "--", "echo 'oops")
    assert result.code == 1
    assert result.err.count("\n") == 1 and "does not split" in result.err
    assert len(log(cli, case)) == 1  # nothing appended


def test_a_command_casefile_runs_is_never_re_split(cli: CLI) -> None:
    case = cli("new", "literal").out.strip()
    result = cli("probe", case, "command", "--", "echo hi")
    assert result.code == 1  # a program called "echo hi" does not exist
    ran = next(e for e in log(cli, case) if e["type"] == "probe.ran")["payload"]
    assert isinstance(ran, dict) and ran["argv"] == ["echo hi"]
    assert "`'echo hi'`" in cli("log", case).out


def test_noheader_csv_pasted_alone_is_read_with_the_command_given_after_dashes(
    cli: CLI, tmp_path: Path
) -> None:
    pasted = tmp_path / "out.csv"
    pasted.write_text("0, NVIDIA H200\n1, NVIDIA H200\n")  # no header, no prompt line
    case = cli("new", "noheader").out.strip()
    line = 'nvidia-smi --query-gpu="index,name" --format=csv,noheader'
    result = cli("probe", case, "nvidia-smi-query", "--paste", str(pasted), "--", line)
    assert result.code == 0, result.err
    observation = next(e for e in log(cli, case) if e["type"] == "observation.recorded")
    payload = observation["payload"]
    assert isinstance(payload, dict)
    names = {(f["name"], f["subject"]) for f in payload["facts"]}
    assert ("name", "gpu0") in names and ("name", "gpu1") in names
    assert not any(name.startswith('"') or name.endswith('"') for name, _ in names)
    # the stored output is what was pasted, byte for byte
    ran = next(e for e in log(cli, case) if e["type"] == "probe.ran")["payload"]
    assert isinstance(ran, dict)
    exported = tmp_path / "exported"
    assert cli("export", case, str(exported)).code == 0
    stored = (exported / "artifacts" / str(ran["stdout_artifact"])).read_text()
    assert stored == pasted.read_text()
