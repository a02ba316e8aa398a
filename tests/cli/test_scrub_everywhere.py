"""No secret is sealed: probe output (pasted, local), a command's argv, a note, a case's
environment, an ingested transcript, and what a person writes, in the event log, the stored
artifacts and an exported case directory. ``--no-scrub`` keeps them, and the run says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from casefile.app.service import CaseService
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import CLI, builtin_registry
from tests.ingest.planted import DISTINCT, SECRETS, SHELL_LOG

SAID = f"casefile: {DISTINCT} secrets scrubbed from the output (--no-scrub keeps them)"


def log(cli: CLI, case: str) -> list[dict[str, Any]]:
    return json.loads(cli("log", case, "--json").out)  # type: ignore[no-any-return]


def leaked(cli: CLI, case: str, tmp_path: Path) -> list[str]:
    """The planted secrets anywhere sealed: the log, the database (events and artifacts) and
    the case exported to a directory."""
    export = tmp_path / "sealed" / case
    assert cli("export", case, str(export)).code == 0
    sealed = [cli("log", case, "--json").out.encode()]
    sealed += [path.read_bytes() for path in sorted(tmp_path.rglob("*")) if path.is_file()]
    everything = b"\n".join(sealed)
    return [secret for secret in SECRETS if secret.encode() in everything]


def pasted_file(tmp_path: Path) -> Path:
    outside = tmp_path.parent / f"{tmp_path.name}-input"
    outside.mkdir(exist_ok=True)
    pasted = outside / "secrets.log"
    pasted.write_text(SHELL_LOG)
    return pasted


def test_pasted_output_is_scrubbed_before_it_is_stored_or_parsed(cli: CLI, tmp_path: Path) -> None:
    case = cli("new", "pasted").out.strip()
    result = cli(
        "probe", case, "command", "--paste", str(pasted_file(tmp_path)),
        "--note", f"from the box, password: {SECRETS[2]}", "--", "cat", "session.log",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert result.err.count("secrets scrubbed") == 1
    assert SAID in result.err
    run = next(event for event in log(cli, case) if event["type"] == "probe.ran")
    assert run["payload"]["scrubbed"] == DISTINCT
    assert "scrub" not in run["payload"]
    assert leaked(cli, case, tmp_path) == []


def test_a_local_commands_argv_and_output_are_scrubbed(cli: CLI, tmp_path: Path) -> None:
    case = cli("new", "printf").out.strip()
    result = cli("probe", case, "command", "--", "printf", "%s", SHELL_LOG)
    assert result.code == 0, result.err
    assert SAID in result.err
    run = next(event for event in log(cli, case) if event["type"] == "probe.ran")
    assert run["payload"]["argv"][:2] == ["printf", "%s"]
    assert "[scrubbed]" in run["payload"]["argv"][2]
    assert run["payload"]["scrubbed"] == DISTINCT
    assert leaked(cli, case, tmp_path) == []


def test_a_note_and_the_cases_environment_are_scrubbed(cli: CLI, tmp_path: Path) -> None:
    case = cli("new", "noted", "--env", f"HF_TOKEN={SECRETS[4]}").out.strip()
    assert cli("note", case, SHELL_LOG).code == 0
    assert leaked(cli, case, tmp_path) == []
    opened = log(cli, case)[0]["payload"]
    assert opened["environment"] == {"HF_TOKEN": "[scrubbed]"}


def test_an_ingested_log_seals_none_and_says_how_many(cli: CLI, tmp_path: Path) -> None:
    case = cli("new", "ingested").out.strip()
    result = cli("ingest", case, str(pasted_file(tmp_path)), "--yes")
    assert result.code == 0, result.err
    assert f"casefile: {DISTINCT} secrets scrubbed from the transcript" in result.err
    runs = [event["payload"] for event in log(cli, case) if event["type"] == "probe.ran"]
    assert sum(run.get("scrubbed", 0) for run in runs) == DISTINCT
    assert leaked(cli, case, tmp_path) == []


def test_no_scrub_keeps_the_secrets_and_the_run_says_so(cli: CLI, tmp_path: Path) -> None:
    case = cli("new", "kept").out.strip()
    result = cli(
        "probe", case, "command", "--no-scrub", "--paste", str(pasted_file(tmp_path)),
        "--", "cat", "session.log",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "scrubbed" not in result.err
    run = next(event for event in log(cli, case) if event["type"] == "probe.ran")
    assert run["payload"]["scrub"] is False and "scrubbed" not in run["payload"]
    assert leaked(cli, case, tmp_path) == list(SECRETS)  # (the check sees what is there)


def test_ingest_with_no_scrub_says_so_in_every_event(cli: CLI, tmp_path: Path) -> None:
    case = cli("new", "kept ingest").out.strip()
    assert cli("ingest", case, str(pasted_file(tmp_path)), "--yes", "--no-scrub").code == 0
    kinds = ("probe.ran", "note.added")
    events = [event["payload"] for event in log(cli, case) if event["type"] in kinds]
    assert events and all(event["transcript"]["scrub"] is False for event in events)
    assert all(event["scrub"] is False for event in events if "probe" in event)


def test_what_a_person_writes_is_scrubbed() -> None:
    service = CaseService(MemoryEventStore(), builtin_registry())
    secret = "password: Sup3rS3cret!"
    case = service.writer.new_case(f"writing, {secret}", symptom=secret)
    question = service.writer.add_question(case, f"why slow? {secret}")
    hid = service.writer.add_hypothesis(case, f"link down {secret}", question, 0.5, meaning=secret)
    service.writer.add_hypothesis_rebalanced(case, secret, question, 0.6)
    service.writer.act(case, f"rotated the key, {secret}", outcome=f"now {SECRETS[4]}")
    service.writer.refine_hypothesis(case, hid, f"PCIe link at x8 {secret}", reason=secret)
    service.writer.assess(case, {hid: 0.8}, f"saw it with Bearer {SECRETS[1]}")
    service.writer.retire_hypothesis(case, hid, secret)
    service.writer.reinstate_hypothesis(case, hid, secret)
    service.writer.conclude(case, f"done; {secret}")
    payloads = json.dumps([event.payload for event in service.store.load(case)])
    assert "Sup3rS3cret" not in payloads and SECRETS[4] not in payloads
    assert SECRETS[1] not in payloads
    assert payloads.count("[scrubbed]") == 14


def test_an_ssh_runs_raw_output_is_masked_across_colour_codes() -> None:
    """What ``grep --color`` printed over SSH: the token split by escape sequences in the raw
    bytes, whole in the text parsed. Neither artifact nor event keeps it; offsets stay."""
    from casefile.probes.runners.result import RunResult

    service = CaseService(MemoryEventStore(), builtin_registry())
    case = service.writer.new_case("over ssh")
    raw = b"HF_TOKEN=\x1b[01;31m\x1b[Khf_\x1b[m\x1b[KSplitSgr0000111122223333aaaa\n"
    result = RunResult(
        argv=("sh", "-c", "env | grep --color=always hf_"),
        host="gpu-box-2",
        exit_status=0,
        stdout="HF_TOKEN=hf_SplitSgr0000111122223333aaaa\n",
        stderr="",
        started_at="2026-03-02T09:57:00Z",
        finished_at="2026-03-02T09:57:01Z",
        duration_s=1.0,
        source="ssh",
        stdout_bytes=raw,
    )
    record = service.probing.record_probe(case, service.probing.probe("command"), result)
    assert record.scrubbed == 1
    [run] = [event.payload for event in service.store.load(case) if event.type == "probe.ran"]
    assert run["scrubbed"] == 1
    stored = service.store.get_artifact(run["stdout_artifact"])
    assert len(stored) == len(raw) and stored.startswith(b"HF_TOKEN=")
    assert b"SplitSgr" not in stored and b"hf_" not in stored
    assert "SplitSgr" not in json.dumps([event.payload for event in service.store.load(case)])


def test_an_experiments_note_is_scrubbed() -> None:
    service = CaseService(MemoryEventStore(), builtin_registry())
    case = service.writer.new_case("experiment")
    service.writer.record_stated_experiment(
        case, "NCCL_P2P_DISABLE=1", "fixed", note=f"hf {SECRETS[4]}"
    )
    [event] = [event for event in service.store.load(case) if event.type == "experiment.recorded"]
    assert event.payload["note"] == "hf [scrubbed]"


def test_a_setup_label_and_an_experiments_change_are_scrubbed(cli: CLI, tmp_path: Path) -> None:
    token = "hf_" + "Qx7vLm2Np9Rt4Ws8Yz3Kb6Jd1Fg5Hc0Ae"
    case = cli("new", "setup and change").out.strip()
    output = tmp_path / "busbw.txt"
    output.write_text("busbw 20\n")
    runs = []
    for setup in (None, f"with HF_TOKEN={token}"):
        words = ["probe", case, "command", "--paste", str(output), "--", "echo", "busbw 20"]
        result = cli(*words, *(["--setup", setup] if setup else []))
        assert result.code == 0, result.err
        runs.append(next(e for e in reversed(log(cli, case)) if e["type"] == "probe.ran"))
    assert cli(
        "experiment", case, "--change", f"HF_TOKEN={token}", "--outcome", "same",
    ).code == 0  # fmt: skip
    sealed = cli("log", case, "--json").out
    assert token not in sealed
    assert "HF_TOKEN=" in json.dumps(runs[1]["payload"])  # the label is kept, its value masked
