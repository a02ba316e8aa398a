"""``casefile ingest``: each format lands the right runs; damage and repeats append nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CLI
from tests.ingest.samples import FORGED_LOG, MARKDOWN, asciicast, forged_session, typescript


def _events(cli: CLI, case: str) -> list[dict[str, Any]]:
    outcome = cli("log", case, "--json")
    assert outcome.code == 0, outcome.err
    events: list[dict[str, Any]] = json.loads(outcome.out)
    return events


def _runs(cli: CLI, case: str) -> list[dict[str, Any]]:
    return [e for e in _events(cli, case) if e["type"] == "probe.ran"]


def _new_case(cli: CLI) -> str:
    outcome = cli("new", "GLM-5 throughput", "--id", "glm", "--playbook", "gpu-throughput")
    assert outcome.code == 0, outcome.err
    return "glm"


def _observations(cli: CLI, case: str) -> dict[int, dict[str, Any]]:
    return {
        e["payload"]["probe_run_seq"]: e["payload"]
        for e in _events(cli, case)
        if e["type"] == "observation.recorded"
    }


def test_markdown_story_lands_runs_notes_times_and_evidence(cli: CLI, tmp_path: Path) -> None:
    case = _new_case(cli)
    source = tmp_path / "story.md"
    source.write_text(MARKDOWN)
    outcome = cli("ingest", case, str(source), "--load", "under-load", "--yes")
    assert outcome.code == 0, outcome.err
    assert "appended 2 run(s)" in outcome.out
    events = _events(cli, case)
    runs = [e for e in events if e["type"] == "probe.ran"]
    assert [r["payload"]["probe"] for r in runs] == ["nvidia-smi-topo", "nvidia-smi-query"]
    assert {r["payload"]["host"] for r in runs} == {"inference-vm"}
    assert [r["occurred_at"][:16] for r in runs] == ["2026-03-02T09:57", "2026-03-02T10:15"]
    raw = source.read_bytes()
    for run in runs:
        ref = run["payload"]["transcript"]
        assert ref["format"] == "markdown"
        piece = raw[ref["offset"] : ref["offset"] + ref["length"]]
        assert run["payload"]["argv"][0].encode() in piece
    observations = _observations(cli, case)
    facts = observations[runs[1]["seq"]]["facts"]
    assert {"name": "utilization.gpu", "value": 100} in [
        {"name": f["name"], "value": f["value"]} for f in facts if f["subject"] == "gpu0"
    ]
    assert any(e["type"] == "evidence.assessed" for e in events)  # the playbook's rules ran
    notes = [e["payload"]["text"] for e in events if e["type"] == "note.added"]
    assert any("PCIe-bound at ~11 tok/s" in text for text in notes)
    assert any("compute-bound, not PCIe-bound" in text for text in notes)
    # the transcript is an artifact the case verifies
    assert cli("verify", case).code == 0


def test_second_ingest_of_the_same_file_is_refused(cli: CLI, tmp_path: Path) -> None:
    case = _new_case(cli)
    source = tmp_path / "story.md"
    source.write_text(MARKDOWN)
    assert cli("ingest", case, str(source), "--yes").code == 0
    before = len(_events(cli, case))
    again = cli("ingest", case, str(source), "--yes")
    assert again.code == 1
    assert "ingested into glm already" in again.err
    assert len(again.err.strip().splitlines()) == 1
    assert len(_events(cli, case)) == before


def test_typescript_with_timing(cli: CLI, tmp_path: Path) -> None:
    case = _new_case(cli)
    data, timing = typescript()
    (tmp_path / "session").write_bytes(data)
    (tmp_path / "session.tm").write_bytes(timing)
    outcome = cli(
        "ingest",
        case,
        str(tmp_path / "session"),
        "--timing",
        str(tmp_path / "session.tm"),
        "--load",
        "under-load",
        "--yes",
    )
    assert outcome.code == 0, outcome.err
    runs = _runs(cli, case)
    assert [r["payload"]["probe"] for r in runs] == [
        "nvidia-smi-topo",
        "command",
        "nvidia-smi-query",
        "command",
    ]
    assert runs[0]["occurred_at"].startswith("2026-03-02T09:57:00")
    assert runs[2]["occurred_at"].startswith("2026-03-02T10:15:00")
    assert runs[1]["payload"]["argv"] == ["echo", "done"]  # the backspaces applied
    observations = _observations(cli, case)
    assert observations[runs[0]["seq"]]["parsed"] is True
    assert (
        len([f for f in observations[runs[2]["seq"]]["facts"] if f["name"] == "utilization.gpu"])
        == 8
    )


@pytest.mark.parametrize("version", [2, 3])
def test_asciicast(cli: CLI, tmp_path: Path, version: int) -> None:
    """v3 (asciinema 3.0's default) was refused as "not an asciinema v2 header"."""
    case = _new_case(cli)
    (tmp_path / "demo.cast").write_bytes(asciicast(version))
    outcome = cli("ingest", case, str(tmp_path / "demo.cast"), "--yes")
    assert outcome.code == 0, outcome.err
    runs = _runs(cli, case)
    assert [(r["payload"]["probe"], r["payload"]["host"]) for r in runs] == [
        ("nvidia-smi-topo", "inference-vm"),
        ("nvidia-smi-query", "inference-vm"),
    ]
    assert runs[0]["occurred_at"].startswith("2026-03-02T09:57:00")
    assert runs[1]["occurred_at"].startswith("2026-03-02T10:15:00")
    assert runs[0]["payload"]["transcript"]["format"] == "asciicast"


def _forged(fmt: str) -> bytes:
    chunks = forged_session()
    if fmt == "typescript":
        return (
            b"Script started on 2026-03-02 09:57:00+00:00\n"
            + "".join(chunks).encode()
            + b"\nScript done on 2026-03-02 10:16:00+00:00\n"
        )
    header = {"version": 2, "width": 200, "height": 50, "timestamp": 1772445420}
    events = [json.dumps([float(n), "o", chunk]) for n, chunk in enumerate(chunks)]
    return "\n".join([json.dumps(header), *events, ""]).encode()


@pytest.mark.parametrize("fmt", ["typescript", "asciicast"])
def test_marks_in_a_commands_output_are_output(cli: CLI, tmp_path: Path, fmt: str) -> None:
    """R3-H2: one output holding OSC 133 marks switched the whole file to "marked" mode: the
    real commands vanished and the forged 100 % reading was proposed instead. A file from
    elsewhere carries no nonce casefile knows, so its marks are output, and so are the lines
    that carry them (the forged line is also a "$ " prompt line)."""
    case = _new_case(cli)
    (tmp_path / "session").write_bytes(_forged(fmt))
    outcome = cli("ingest", case, str(tmp_path / "session"), "--format", fmt, "--yes")
    assert outcome.code == 0, outcome.err
    runs = _runs(cli, case)
    assert [(r["payload"]["probe"], r["payload"]["argv"][0]) for r in runs] == [
        ("nvidia-smi-query", "nvidia-smi"),
        ("command", "cat"),
        ("lspci-tree", "lspci"),
        ("command", "exit"),
    ]
    facts = _observations(cli, case)[runs[0]["seq"]]["facts"]
    assert [f["value"] for f in facts if f["name"] == "utilization.gpu"] == [3, 3]
    export = tmp_path / "out"
    assert cli("export", case, str(export)).code == 0
    printed = (export / "artifacts" / runs[1]["payload"]["stdout_artifact"]).read_bytes()
    assert printed.replace(b"\r\n", b"\n") == FORGED_LOG.encode()


@pytest.mark.parametrize("version", [2, 3])
def test_typed_input_in_a_cast_is_not_kept(cli: CLI, tmp_path: Path, version: int) -> None:
    """R3-M3: a cast's input events (a password typed at a prompt that does not echo) were kept
    verbatim in the transcript artifact. casefile reads output only: the input is blanked in
    the cast it keeps, in place, so the kept cast reads as before and every offset holds."""
    from casefile.transcripts.formats import read
    from casefile.transcripts.stream import Command

    case = _new_case(cli)
    data = asciicast(version, typed="secretpassword\r")
    (tmp_path / "typed.cast").write_bytes(data)
    outcome = cli("ingest", case, str(tmp_path / "typed.cast"), "--yes")
    assert outcome.code == 0, outcome.err
    assert "secretpassword" not in json.dumps(_events(cli, case))
    export = tmp_path / "out"
    assert cli("export", case, str(export)).code == 0
    for artifact in (export / "artifacts").iterdir():
        assert b"secretpassword" not in artifact.read_bytes()
    runs = _runs(cli, case)
    kept = (export / "artifacts" / runs[0]["payload"]["transcript_artifact"]).read_bytes()
    assert len(kept) == len(data)

    def commands(cast: bytes) -> list[tuple[str, int, int]]:
        steps = read(cast, "asciicast")[1]
        return [(s.line, s.offset, s.length) for s in steps if isinstance(s, Command)]

    assert commands(kept) == commands(data)


#: an asciicast v2 header, for the damaged casts
CAST = b'{"version": 2, "width": 80, "height": 24, "timestamp": 1767261600}\n'
LS = b', "o", "$ ls\\r\\n"]\n'


def _damaged() -> list[tuple[str, bytes, str]]:
    data, _ = typescript()
    cast = asciicast().splitlines(keepends=True)
    v3 = b'{"version": 3, "term": {"cols": 80, "rows": 24}, "timestamp": 1767261600}\n'
    return [
        # R3-M6: each of these printed a traceback (RecursionError, OverflowError, ValueError)
        ("asciicast", CAST + b"[" * 100_000 + b"]" * 100_000 + b"\n", "cast line 2"),
        ("asciicast", b'{"version": 2, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", "line 1"),
        ("asciicast", CAST + b"[NaN" + LS, "cast line 2"),
        ("asciicast", CAST + b"[1e400" + LS, "cast line 2"),
        ("asciicast", CAST + b"[1" + b"0" * 400 + LS, "cast line 2"),
        ("asciicast", CAST + b"[1e12" + LS, "cast line 2"),
        ("asciicast", CAST + b"[-1" + LS, "cast line 2"),
        ("asciicast", CAST.replace(b"1767261600", b"1e300") + b"[0.1" + LS, "cast line 1"),
        ("asciicast", CAST.replace(b"1767261600", b"-99999999999") + b"[0.1" + LS, "line 1"),
        ("asciicast", v3 + b"[1e308" + LS, "cast line 2"),
        # (v3 times are intervals: each fits, their sum is past the year 9999)
        ("asciicast", v3 + b"[2e11" + LS + b"[2e11" + LS, "cast line 3"),
        ("asciicast", b'{"version": 4}\n[0.1' + LS, "cast line 1"),
        (
            "typescript",
            b"Script started on 0001-01-01 00:00:00+14:00\n$ ls\n\nScript done on 0001\n",
            "typescript line 1",
        ),
        ("markdown", b"[at 0001-01-01T00:00:00+14:00]\n[bash] ls\n", "markdown line 1"),
        ("markdown", b"[at 9999-12-31T23:59:59-14:00]\n[bash] ls\n", "markdown line 1"),
        ("typescript", data[: len(data) // 2], "truncated"),
        ("asciicast", b"".join(cast[:3]) + cast[3][:20] + b"\n", "cast line 4"),
        ("asciicast", b'{"version": 1}\n[0.1, "o", "$ ls\\r\\n"]\n', "cast line 1"),
        ("markdown", b"[bash] nvidia-smi topo -m\n```\nGPU0 X\n", "never closed"),
        ("shell-log", b"just some words\nno prompt at all\n", "no recognisable command"),
        # another terminal's shell integration: its marks could be any output's, and prompts
        # that carry them are not told from forged ones
        (
            "typescript",
            b"\x1b]133;A\x07\xe2\x9e\x9c \x1b]133;B\x07ls\r\n\x1b]133;C\x07a b\r\n\x1b]133;D;0\x07",
            "OSC 133 marks are not casefile record's own",
        ),
    ]


@pytest.mark.parametrize(("fmt", "data", "said"), _damaged(), ids=lambda v: str(v)[:20])
def test_damaged_inputs_append_nothing(
    cli: CLI, tmp_path: Path, fmt: str, data: bytes, said: str
) -> None:
    case = _new_case(cli)
    before = len(_events(cli, case))
    (tmp_path / "bad").write_bytes(data)
    outcome = cli("ingest", case, str(tmp_path / "bad"), "--format", fmt, "--yes")
    assert outcome.code == 1
    assert said in outcome.err
    assert len(outcome.err.strip().splitlines()) == 1
    assert len(_events(cli, case)) == before


@pytest.mark.parametrize(
    ("timing", "said"),
    [
        (b"0.1 999999\n", "timing file line 8"),
        # an OverflowError or ValueError traceback in the time handling before
        (b"inf 1\n", "timing file line 8"),
        (b"nan 1\n", "timing file line 8"),
        (b"1e12 1\n", "timing file: the start time plus its delays"),
    ],
)
def test_damaged_timing_file_names_its_line(
    cli: CLI, tmp_path: Path, timing: bytes, said: str
) -> None:
    case = _new_case(cli)
    before = len(_events(cli, case))
    data, good = typescript()
    (tmp_path / "s").write_bytes(data)
    (tmp_path / "t").write_bytes(good + timing)
    outcome = cli("ingest", case, str(tmp_path / "s"), "--timing", str(tmp_path / "t"), "--yes")
    assert outcome.code == 1
    assert said in outcome.err
    assert len(outcome.err.strip().splitlines()) == 1
    assert len(_events(cli, case)) == before


def test_without_a_terminal_and_without_yes_it_refuses(cli: CLI, tmp_path: Path) -> None:
    case = _new_case(cli)
    (tmp_path / "story.md").write_text(MARKDOWN)
    before = len(_events(cli, case))
    outcome = cli("ingest", case, str(tmp_path / "story.md"))
    assert outcome.code == 1
    assert "pass --yes" in outcome.err
    assert len(_events(cli, case)) == before


def test_secrets_are_scrubbed_before_sealing(cli: CLI, tmp_path: Path) -> None:
    case = _new_case(cli)
    log = (
        "$ GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 curl -H 'Authorization: Bearer "
        "sekrit-bearer-value' https://admin:hunter2pass@example.invalid/api\n"
        "ok\n"
        "$ mysql -uroot -pS3cretPw -e 'select 1'\n"
        "1\n"
        "$ env\n"
        "AWS_SECRET_ACCESS_KEY=abcdEFGH1234secret\n"
    )
    (tmp_path / "shell.log").write_text(log)
    outcome = cli("ingest", case, str(tmp_path / "shell.log"), "--yes")
    assert outcome.code == 0, outcome.err
    assert "scrubbed" in outcome.err
    dump = json.dumps(_events(cli, case))
    for secret in ("ghp_abcdefghij", "sekrit-bearer", "hunter2pass", "S3cretPw", "abcdEFGH1234"):
        assert secret not in dump
        assert secret not in outcome.out
    runs = _runs(cli, case)
    assert "Authorization header" in runs[0]["payload"]["transcript"]["scrubbed"]
    assert runs[1]["payload"]["transcript"]["scrubbed"] == ["-p<password>"]
    # the artifacts (each output and the transcript itself) hold no secret either
    export = tmp_path / "out"
    assert cli("export", case, str(export)).code == 0
    for artifact in (export / "artifacts").iterdir():
        content = artifact.read_bytes()
        for secret in (
            b"ghp_abcdefghij",
            b"sekrit-bearer",
            b"hunter2pass",
            b"S3cretPw",
            b"abcdEFGH",
        ):
            assert secret not in content


def test_a_quoted_secret_never_reaches_the_runs_setup(cli: CLI, tmp_path: Path) -> None:
    """The scrubber took only the first word of a quoted value, and the setup label copied the
    rest into the run's conditions (and so the report): the whole value is one secret now, and
    a credential is no change of setup."""
    case = _new_case(cli)
    (tmp_path / "shell.log").write_text(
        "$ MY_API_KEY='zq-alpha zq-omega' PASSWORD=hunter2 CUDA_VISIBLE_DEVICES=0,1 "
        "nvidia-smi --query-gpu=index,utilization.gpu --format=csv\n"
        "index, utilization.gpu [%]\n0, 97 %\n1, 95 %\n"
    )
    outcome = cli("ingest", case, str(tmp_path / "shell.log"), "--yes")
    assert outcome.code == 0, outcome.err
    (run,) = _runs(cli, case)
    assert run["payload"]["conditions"]["setup"] == "CUDA_VISIBLE_DEVICES=0,1"
    dump = json.dumps(_events(cli, case)) + outcome.out
    for secret in ("zq-alpha", "zq-omega", "hunter2"):
        assert secret not in dump


def test_output_over_the_cap_is_recorded_truncated(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from casefile.transcripts import proposal

    monkeypatch.setattr(proposal, "OUTPUT_CAP", 100)
    case = _new_case(cli)
    (tmp_path / "long.log").write_text("$ seq 1 1000\n" + "".join(f"{n}\n" for n in range(1000)))
    outcome = cli("ingest", case, str(tmp_path / "long.log"), "--yes")
    assert outcome.code == 0, outcome.err
    assert "recorded truncated" in outcome.err
    [run] = _runs(cli, case)
    [cut] = run["payload"]["truncated"]
    assert (cut["stream"], cut["head_bytes"] + cut["tail_bytes"]) == ("stdout", 100)
    assert cut["total_bytes"] == len("".join(f"{n}\n" for n in range(1000)))


def test_a_command_run_with_its_own_environment_is_kept_as_another_setup(
    cli: CLI, tmp_path: Path
) -> None:
    """``NCCL_P2P_DISABLE=1 all_reduce_perf`` in a session is the variant of an A/B: read as
    the system's state, its SHM transport and its environment would count as P2P switched off
    by a leftover. It is recorded as another setup, read by no rule, and compares as a variant."""
    from tests.triage.conftest import nccl_table

    case = _new_case(cli)
    session = tmp_path / "session.log"
    session.write_text(
        "$ ./build/all_reduce_perf -b 8 -e 1G -f 2 -g 8\n"
        + nccl_table(6.0, "NVIDIA A40")
        + "$ NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO ./build/all_reduce_perf -b 8 -e 1G -f 2 -g 8\n"
        + "box1:4242:4250 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n"
        + nccl_table(18.0, "NVIDIA A40")
    )
    outcome = cli("ingest", case, str(session), "--format", "shell-log", "--yes")
    assert outcome.code == 0, outcome.err
    assert "[other setup: NCCL_P2P_DISABLE=1]" in outcome.out
    events = _events(cli, case)
    runs = [e for e in events if e["type"] == "probe.ran"]
    assert [r["payload"]["conditions"].get("setup") for r in runs] == [None, "NCCL_P2P_DISABLE=1"]
    # with NCCL_DEBUG=INFO the run is still nccl-tests: its table and its log both read
    assert [r["payload"]["probe"] for r in runs] == ["nccl-tests", "nccl-tests"]
    variant = _observations(cli, case)[runs[1]["seq"]]["facts"]
    assert {"nccl.busbw", "nccl.transport"} <= {f["name"] for f in variant}
    read = {e["payload"].get("probe_run_seq") for e in events if e["type"] == "evidence.assessed"}
    assert runs[0]["seq"] in read and runs[1]["seq"] not in read
    ab = cli(
        "experiment", case, "--change", "NCCL_P2P_DISABLE=1",
        "--baseline", str(runs[0]["seq"]), "--variant", str(runs[1]["seq"]), "--json",
    )  # fmt: skip
    assert ab.code == 0, ab.err
    assert json.loads(ab.out)["outcome"] == "faster"


def test_a_megabyte_command_line_is_recorded_as_a_command_in_bounded_time(
    cli: CLI, tmp_path: Path
) -> None:
    """shlex builds a word a character at a time: a 1 MB word took half a minute to split.
    A line longer than casefile splits is recorded whole, as the `command` probe's run."""
    import time

    from casefile.transcripts.commands import SPLIT_LIMIT

    case = _new_case(cli)
    line = "echo " + "a" * 1_000_000
    log = tmp_path / "long.log"
    log.write_text(f"user@box:~$ {line}\nok\nuser@box:~$ nvidia-smi topo -m\nGPU0\n")
    started = time.monotonic()
    result = cli("ingest", case, str(log), "--yes")
    took = time.monotonic() - started
    assert result.code == 0, result.err
    assert took < 20.0, f"{took:.1f} s (it was 28.8 s before the split limit)"
    long_run, topo = (run["payload"] for run in _runs(cli, case))
    assert long_run["probe"] == "command" and len(line) > SPLIT_LIMIT
    assert long_run["argv"] == [line]
    assert topo["argv"] == ["nvidia-smi", "topo", "-m"]  # the next command is read as usual
