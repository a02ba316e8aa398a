"""Case commands end to end: new, note, cases, log, verify, export, import, directories."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.cli.conftest import CLI

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
GOLDEN = ROOT / "tests" / "golden"


def test_new_note_log_cases(cli: CLI) -> None:
    case_id = cli("new", "Slow decode", "--symptom", "11 tok/s", "--env", "gpus=8").out.strip()
    assert cli("note", case_id, "first look", "--actor", "alice").out.strip() == "2"
    assert cli("note", case_id[:6], "prefix works").code == 0
    log = json.loads(cli("log", case_id, "--json").out)
    assert [e["seq"] for e in log] == [1, 2, 3]
    assert log[0]["payload"]["environment"] == {"gpus": "8"}
    assert log[1]["actor"] == "alice"
    assert "note: first look" in cli("log", case_id).out
    cases = json.loads(cli("cases", "--json").out)
    # the README's keys, exactly; the typed row adds more beside them
    assert [{k: c[k] for k in ("id", "title", "opened", "events")} for c in cases] == [
        {"id": case_id, "title": "Slow decode", "opened": log[0]["recorded_at"], "events": 3}
    ]
    assert cases[0]["head_hash"] == log[-1]["hash"]


def test_export_import_round_trip_and_directory_as_case(cli: CLI, tmp_path: Path) -> None:
    case_id = cli("new", "Round trip", "--id", "rt").out.strip()
    cli("note", case_id, "hello")
    export = tmp_path / "export"
    assert cli("export", case_id, str(export)).code == 0
    assert cli("verify", str(export)).code == 0
    # A case directory works as CASE, read in place …
    assert "note: hello" in cli("log", str(export)).out
    # … and written in place.
    assert cli("note", str(export), "appended to the directory").code == 0
    assert cli("verify", str(export)).code == 0
    assert "appended to the directory" in (export / "events.jsonl").read_text()
    # Import into another database, export again: byte-identical.
    other = f"sqlite:///{tmp_path / 'other.db'}"
    assert cli("import", str(export), "--db", other).out.strip() == "rt"
    again = tmp_path / "again"
    assert cli("export", "rt", str(again), "--db", other).code == 0
    for path in export.rglob("*"):
        if path.is_file():
            assert path.read_bytes() == (again / path.relative_to(export)).read_bytes()
    # Importing the same case again is a no-op; a different case under that id is refused.
    twice = cli("import", str(export), "--db", other)
    assert twice.code == 0 and "already imported" in twice.err
    cli("note", "rt", "diverges", "--db", other)
    diverged = cli("import", str(export), "--db", other)
    assert diverged.code == 1 and "different events" in diverged.err
    assert diverged.err.count("\n") == 1


def test_import_refuses_a_damaged_directory_and_changes_nothing(cli: CLI, tmp_path: Path) -> None:
    case_id = cli("new", "Damaged").out.strip()
    cli("note", case_id, "one")
    export = tmp_path / "d"
    cli("export", case_id, str(export))
    damaged = tmp_path / "damaged"
    shutil.copytree(export, damaged)
    lines = (damaged / "events.jsonl").read_text().splitlines(keepends=True)
    (damaged / "events.jsonl").write_text(lines[0] + lines[1][:-20] + "\n")
    other = f"sqlite:///{tmp_path / 'other.db'}"
    result = cli("import", str(damaged), "--db", other)
    assert result.code == 1 and "events.jsonl:2" in result.err
    assert json.loads(cli("cases", "--json", "--db", other).out) == []
    verify = cli("verify", str(damaged))
    assert verify.code == 1


def test_probe_paste_records_run_observation_and_evidence(cli: CLI, tmp_path: Path) -> None:
    case_id = cli("new", "Probe", "--playbook", "gpu-throughput").out.strip()
    sample = CORPUS / "lspci" / "002.txt"
    result = cli(
        "probe",
        case_id,
        "lspci",
        "--paste",
        str(sample),
        "--host",
        "box1",
        "--taken-at",
        "2026-01-05T10:00:00Z",
        "--load",
        "under-load",
        "--",
        "lspci",
        "-vv",
    )
    assert result.code == 0, result.err
    assert "facts" in result.out and "evidence" in result.out
    log = json.loads(cli("log", case_id, "--json").out)
    run = next(e for e in log if e["type"] == "probe.ran")
    assert run["payload"]["source"] == "pasted" and run["payload"]["host"] == "box1"
    assert run["occurred_at"] == "2026-01-05T10:00:00.000000Z"
    observation = next(e for e in log if e["type"] == "observation.recorded")
    assert observation["payload"]["probe_run_seq"] == run["seq"]
    downgraded = [f for f in observation["payload"]["facts"] if f["name"] == "pcie.link.downgraded"]
    assert downgraded and all(f["value"] for f in downgraded)
    evidence = [e for e in log if e["type"] == "evidence.assessed"]
    assert {e["payload"]["rule"]["id"] for e in evidence} >= {"lspci-link-downgraded"}


def test_unparsable_output_is_kept_and_warned_about(cli: CLI, tmp_path: Path) -> None:
    case_id = cli("new", "Garbage").out.strip()
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("NVIDIA-SMI has failed because it couldn't communicate with the driver\n")
    result = cli(
        "probe",
        case_id,
        "nvidia-smi-topo",
        "--paste",
        str(garbage),
        "--",
        "nvidia-smi",
        "topo",
        "-m",
    )
    # nothing was learned: exit 1 with one line, but the run and its raw output are recorded
    assert result.code == 1 and "did not parse" in result.out
    assert "output did not parse" in result.err and result.err.count("\n") == 1
    status = json.loads(cli("status", case_id, "--json").out)
    assert [w["code"] for w in status["warnings"]] == ["unparsed"]
    export = tmp_path / "e"
    cli("export", case_id, str(export))
    blobs = [p.read_bytes() for p in (export / "artifacts").iterdir()]
    assert garbage.read_bytes() in blobs


def test_local_probe_failure_is_recorded_as_data(cli: CLI) -> None:
    case_id = cli("new", "No GPU here").out.strip()
    result = cli("probe", case_id, "command", "--", "definitely-not-a-command-xyz")
    assert result.code == 1 and "definitely-not-a-command-xyz" in result.err
    log = json.loads(cli("log", case_id, "--json").out)
    assert [e["type"] for e in log] == ["case.opened", "probe.ran", "observation.recorded"]
    assert log[1]["payload"]["error"]


def test_parse_and_plugins(cli: CLI) -> None:
    parsed = cli("parse", "nvidia-smi-topo", str(CORPUS / "topo" / "001.txt"), "--json")
    assert parsed.code == 0
    assert json.loads(parsed.out)["parsed"] is True
    listing = cli("plugins").out
    for name in ("nvidia-smi-topo", "lspci", "nvml-sampler", "gpu-throughput"):
        assert name in listing
    missing = cli("parse", "no-such-probe", str(CORPUS / "topo" / "001.txt"))
    assert missing.code == 1 and "installed:" in missing.err


def test_parse_reads_a_paste_as_recording_it_would(cli: CLI, tmp_path: Path) -> None:
    """Given to ``command`` (or to a probe that cannot read it), a paste is offered to the
    probes that recognise it, as a recorded paste is: trying it shows what would be kept."""
    bench = GOLDEN / "app-log" / "116.txt"  # llama-batched-bench, pasted
    parsed = json.loads(cli("parse", "command", str(bench), "--json").out)
    assert parsed["read_as"] == ["app-log"]
    assert {f["name"]: f["value"] for f in parsed["facts"]}["tokens_per_s"] == 76.905
    text = cli("parse", "command", str(bench))
    assert text.code == 0 and "read as app-log" in text.err and "76.905" in text.out
    plain = tmp_path / "plain.txt"
    plain.write_text("hello\n")
    nothing = cli("parse", "command", str(plain))
    assert nothing.code == 0 and nothing.out == ""
    assert f"no facts in {plain} for command; no probe recognises it" in nothing.err
    failed = tmp_path / "failed.txt"  # bandwidthTest's banner, then only its error
    failed.write_text("[CUDA Bandwidth Test] - Starting...\nno CUDA-capable device is detected\n")
    tried = cli("parse", "command", str(failed))
    assert "cuda-bandwidth recognised it but read nothing" in tried.err
    # what parse shows is what recording the same paste keeps
    case_id = cli("new", "Parse", "--playbook", "gpu-throughput@3").out.strip()
    recorded = cli(
        "probe", case_id, "command", "--paste", str(bench), "--load", "under-load",
        "--", "llama-batched-bench", "-m", "model.gguf",
    )  # fmt: skip
    assert recorded.code == 0, recorded.err
    log = json.loads(cli("log", case_id, "--json").out)
    (observation,) = [e for e in log if e["type"] == "observation.recorded"]
    kept = {(f["name"], f["value"]) for f in observation["payload"]["facts"]}
    assert {(f["name"], f["value"]) for f in parsed["facts"]} == kept
    own = json.loads(
        cli("parse", "nvidia-smi-topo", str(CORPUS / "topo" / "001.txt"), "--json").out
    )
    assert own["read_as"] == []  # read by its own probe: offered to none


def test_replay_says_what_to_measure_when_the_leader_was_never_measured(
    cli: CLI, tmp_path: Path
) -> None:
    case_dir = tmp_path / "glm5"
    shutil.copytree(ROOT / "casefile" / "reference" / "glm5-pcie-pivot", case_dir)
    replay = json.loads(cli("replay", str(case_dir), "--json").out)
    suggested = [s for s in replay["steps"] if "suggestion" in s]
    assert suggested, "no suggestion where the never-measured warning was raised"
    first = suggested[0]
    assert any(w["code"] == "never-measured" for w in first["warnings_raised"])
    assert first["suggestion"]["load"] == "under-load"
    assert "pcie-link-busy" in first["suggestion"]["rules"]
    assert "→ measure next:" in cli("replay", str(case_dir)).out
