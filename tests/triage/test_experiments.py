"""``casefile experiment``: an A/B of one benchmark, and the evidence its rule gives."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK

from casefile.domain.kinds import STATED_RELIABILITY
from tests.cli.conftest import CLI
from tests.triage.conftest import nccl_table


def log(cli: CLI, case: str) -> list[dict[str, object]]:
    result = cli("log", case, "--json")
    assert result.code == 0, result.err
    events: list[dict[str, object]] = json.loads(result.out)
    return events


def ab(cli: CLI, case: str, *args: str) -> dict[str, object]:
    """``casefile experiment CASE ARGS --json``, which must succeed, as its JSON."""
    done = cli("experiment", case, *args, "--json")
    assert done.code == 0, done.err
    out: dict[str, object] = json.loads(done.out)
    return out


def paste(
    cli: CLI, case: str, tmp_path: Path, name: str, text: str, probe: str = "nccl-tests"
) -> int:
    path = tmp_path / name
    path.write_text(text)
    result = cli("probe", case, probe, "--paste", str(path), "--json")
    assert result.code == 0, result.err
    return int(json.loads(result.out.splitlines()[0])["probe_run_seq"])


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow all-reduce", "--id", "x1", "--playbook", "gpu-throughput").code == 0
    return "x1"


def test_an_experiment_records_both_numbers_and_the_rules_verdict(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    base = paste(cli, case, tmp_path, "a.txt", nccl_table(6.0, "NVIDIA A40"))
    variant = paste(cli, case, tmp_path, "b.txt", nccl_table(18.0, "NVIDIA A40"))
    result = cli(
        "experiment",
        case,
        "--change",
        "NCCL_P2P_DISABLE=1",
        "--baseline",
        str(base),
        "--variant",
        str(variant),
        "--json",
    )
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert out["experiment_id"] == "x1"
    assert out["metric"] == "nccl.busbw.large"
    assert (out["baseline_value"], out["variant_value"]) == (6.0, 18.0)
    assert out["speedup"] == pytest.approx(3.0)
    assert (out["rule"], out["outcome"]) == ("experiment.p2p-disable", "faster")
    events = log(cli, case)
    recorded = next(e for e in events if e["type"] == "experiment.recorded")
    assert recorded["payload"]["change"] == "NCCL_P2P_DISABLE=1"  # type: ignore[index]
    assert recorded["payload"]["baseline_seq"] == base  # type: ignore[index]
    verdict = events[-1]
    assert verdict["type"] == "evidence.assessed"
    payload = verdict["payload"]
    assert payload["experiment_id"] == "x1"  # type: ignore[index]
    assert payload["probe_run_seq"] == variant  # type: ignore[index]
    # the case opened "gpu-throughput": the newest version's rule
    rule = next(r for r in PLAYBOOK.experiments if r.id == "p2p-disable")
    assert payload["likelihoods"] == {h: row["faster"] for h, row in rule.rule.likelihoods.items()}  # type: ignore[index]


def test_a_change_within_the_noise_margin_is_same(cli: CLI, case: str, tmp_path: Path) -> None:
    base = paste(cli, case, tmp_path, "a.txt", nccl_table(20.0, "NVIDIA A40"))
    variant = paste(cli, case, tmp_path, "b.txt", nccl_table(20.6, "NVIDIA A40"))  # +3 %
    result = cli(
        "experiment",
        case,
        "--change",
        "NCCL_P2P_DISABLE=1",
        "--baseline",
        str(base),
        "--variant",
        str(variant),
    )
    assert result.code == 0, result.err
    assert "rule experiment.p2p-disable: same" in result.out


def test_a_change_no_rule_reads_is_recorded_without_evidence(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    base = paste(cli, case, tmp_path, "a.txt", nccl_table(20.0, "NVIDIA A40"))
    variant = paste(cli, case, tmp_path, "b.txt", nccl_table(10.0, "NVIDIA A40"))
    result = cli(
        "experiment",
        case,
        "--change",
        "moved the box to rack 7",
        "--baseline",
        str(base),
        "--variant",
        str(variant),
    )
    assert result.code == 0, result.err
    assert "no evidence: no rule of the case's playbook reads this change" in result.out
    assert log(cli, case)[-1]["type"] == "experiment.recorded"


def test_a_slower_metric_counts_when_lower_is_better(cli: CLI, case: str, tmp_path: Path) -> None:
    """With a throughput fact from the command probe, a batch-size change that doubles it is
    "faster" (compute-launch's signature)."""
    seqs = []
    for name, rate in (("a.txt", 410.0), ("b.txt", 1630.0)):
        path = tmp_path / name
        path.write_text(f"Throughput: {rate} tokens/s\n")
        result = cli(
            "probe",
            case,
            "command",
            "--paste",
            str(path),
            "--json",
            "--fact",
            r"throughput=Throughput: (?P<throughput>[0-9.]+)",
            "--",
            "bench",
        )
        assert result.code == 0, result.err
        seqs.append(int(json.loads(result.out.splitlines()[0])["probe_run_seq"]))
    result = cli(
        "experiment",
        case,
        "--change",
        "batch size 1 -> 16",
        "--baseline",
        str(seqs[0]),
        "--variant",
        str(seqs[1]),
        "--json",
    )
    out = json.loads(result.out)
    assert (out["rule"], out["outcome"], out["metric"]) == (
        "experiment.batch-size",
        "faster",
        "throughput",
    )


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        ("probes", [], "an experiment compares one benchmark"),
        ("gpus", [], "not the same kind of GPU"),
        ("same", [], "the baseline and the variant are the same run"),
        ("none", ["--variant", "1"], "--baseline SEQ is missing"),
        ("none", ["--baseline", "1"], "--variant SEQ is missing"),
        ("note", [], "is not a probe run"),
    ],
)
def test_bad_experiments_are_one_line_and_record_nothing(
    cli: CLI, case: str, tmp_path: Path, setup: str, args: list[str], message: str
) -> None:
    a = paste(cli, case, tmp_path, "a.txt", nccl_table(6.0, "NVIDIA A40"))
    pair: list[str] = []
    if setup == "probes":
        smi = paste(cli, case, tmp_path, "q.txt", "name\nNVIDIA A40\n", "nvidia-smi-query")
        pair = ["--baseline", str(a), "--variant", str(smi)]
    elif setup == "gpus":
        b = paste(cli, case, tmp_path, "b.txt", nccl_table(200.0, "NVIDIA H100 80GB HBM3"))
        pair = ["--baseline", str(a), "--variant", str(b)]
    elif setup == "same":
        pair = ["--baseline", str(a), "--variant", str(a)]
    elif setup == "note":
        note = int(cli("note", case, "a note").out.strip() or 0) or len(log(cli, case))
        pair = ["--baseline", str(a), "--variant", str(note)]
    before = len(log(cli, case))
    result = cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", *pair, *args)
    assert result.code != 0
    assert message in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1
    assert len(log(cli, case)) == before


def test_the_same_pair_is_not_compared_twice(cli: CLI, case: str, tmp_path: Path) -> None:
    a = paste(cli, case, tmp_path, "a.txt", nccl_table(6.0, "NVIDIA A40"))
    b = paste(cli, case, tmp_path, "b.txt", nccl_table(12.0, "NVIDIA A40"))
    args = ["--change", "NCCL_P2P_DISABLE=1", "--baseline", str(a), "--variant", str(b)]
    assert cli("experiment", case, *args).code == 0
    again = cli("experiment", case, *args)
    assert again.code == 1 and "already compares" in again.err


FAKE_BENCH = """#!/bin/sh
# all_reduce_perf stand-in: faster with P2P disabled, as on a box whose ACS reroutes P2P
here="$(dirname "$0")"
if [ "$NCCL_P2P_DISABLE" = "1" ]; then cat "$here/fast.txt"; else cat "$here/slow.txt"; fi
"""


def test_run_both_sides_here_with_an_environment_change(
    cli: CLI, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "slow.txt").write_text(nccl_table(5.0, "NVIDIA A40"))
    (bin_dir / "fast.txt").write_text(nccl_table(19.0, "NVIDIA A40"))
    script = bin_dir / "all_reduce_perf"
    script.write_text(FAKE_BENCH)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    result = cli(
        "experiment",
        case,
        "--change",
        "NCCL_P2P_DISABLE=1",
        "--run",
        "nccl-tests",
        "--json",
        "--",
        "all_reduce_perf",
        "-b",
        "8",
        "-e",
        "1G",
    )
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert out["outcome"] == "faster" and out["speedup"] == pytest.approx(3.8)
    events = log(cli, case)
    runs = [e for e in events if e["type"] == "probe.ran"]
    assert [r["payload"]["argv"] for r in runs] == [  # type: ignore[index]
        ["all_reduce_perf", "-b", "8", "-e", "1G"],
        ["env", "NCCL_P2P_DISABLE=1", "all_reduce_perf", "-b", "8", "-e", "1G"],
    ]
    # the variant ran under the change: kept as another setup, so no rule reads it as the
    # case's state (its transport and its environment would read as P2P switched off)
    baseline, variant = (r["payload"]["conditions"] for r in runs)  # type: ignore[index]
    assert "setup" not in baseline and variant["setup"] == "NCCL_P2P_DISABLE=1"
    by_rule = [
        e["payload"]["probe_run_seq"]  # type: ignore[index]
        for e in events
        if e["type"] == "evidence.assessed" and "experiment_id" not in e["payload"]  # type: ignore[operator]
    ]
    assert runs[0]["seq"] in by_rule and runs[1]["seq"] not in by_rule


def test_a_pasted_run_of_another_setup_is_kept_to_compare_but_read_by_no_rule(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    """The fast version's output, pasted for comparison, must not count as the slow system's
    state; as an experiment's baseline it still gives the comparison its numbers."""
    path = tmp_path / "old.txt"
    path.write_text(nccl_table(19.0, "NVIDIA A40"))
    before = len(log(cli, case))
    result = cli(
        "probe", case, "nccl-tests", "--paste", str(path), "--setup", "NCCL 2.22 (fast)", "--json"
    )
    assert result.code == 0, result.err
    line = json.loads(result.out.splitlines()[0])
    assert line["setup"] == "NCCL 2.22 (fast)" and line["evidence"] == []
    events = log(cli, case)[before:]
    assert [e["type"] for e in events] == ["probe.ran", "observation.recorded"]
    assert events[1]["payload"]["conditions"]["setup"] == "NCCL 2.22 (fast)"  # type: ignore[index]
    text = cli("log", case)
    assert "[other setup: NCCL 2.22 (fast)]" in text.out
    shown = cli("show", case, str(line["probe_run_seq"]))
    assert "other setup: NCCL 2.22 (fast) (kept to compare; no rule read it)" in shown.out
    slow = paste(cli, case, tmp_path, "new.txt", nccl_table(6.0, "NVIDIA A40"))
    ab = cli(
        "experiment", case, "--change", "nccl 2.22 -> 2.23", "--baseline",
        str(line["probe_run_seq"]), "--variant", str(slow), "--json",
    )  # fmt: skip
    assert ab.code == 0, ab.err
    # the new version is slower, and the case says nothing of an upgrade before the trouble:
    # read as it is (the version the case runs is the better one)
    assert json.loads(ab.out)["outcome"] == "slower"


@pytest.mark.parametrize(
    ("setup", "says"),
    [("   ", "--setup needs a few words"), ("a\nb", "one line"), ("x" * 201, "in 200")],
)
def test_a_setup_label_it_cannot_keep_is_refused_with_nothing_recorded(
    cli: CLI, case: str, tmp_path: Path, setup: str, says: str
) -> None:
    path = tmp_path / "t.txt"
    path.write_text(nccl_table(19.0, "NVIDIA A40"))
    before = len(log(cli, case))
    result = cli("probe", case, "nccl-tests", "--paste", str(path), "--setup", setup)
    assert result.code != 0
    assert says in result.err and len(result.err.strip().splitlines()) == 1
    assert len(log(cli, case)) == before


@pytest.mark.parametrize("change", ["NCCL_X=" + "x" * 220, "A=1\tB=\x1b[2J"])
def test_run_both_keeps_any_change_it_runs_as_the_variants_setup(
    cli: CLI, case: str, tmp_path: Path, change: str
) -> None:
    """The variant's setup label is settled before the baseline runs: a long change, or one
    with a control character, ran and was refused after the baseline had been recorded."""
    table = tmp_path / "t.txt"
    table.write_text(nccl_table(6.0, "NVIDIA A40"))
    result = cli(
        "experiment", case, "--change", change, "--run", "nccl-tests", "--", "cat", str(table)
    )
    runs = [e for e in log(cli, case) if e["type"] == "probe.ran"]
    assert len(runs) == 2, result.err
    label = runs[1]["payload"]["conditions"]["setup"]  # type: ignore[index]
    assert len(label) <= 200 and label.isprintable()
    assert result.code == 0 or "--setup" not in result.err


def test_run_both_refuses_a_change_it_cannot_apply(cli: CLI, case: str) -> None:
    before = len(log(cli, case))
    result = cli("experiment", case, "--change", "iommu=pt in GRUB", "--run", "nccl-tests")
    assert result.code == 1
    assert "--run applies only environment changes" in result.err
    assert len(log(cli, case)) == before


def test_experiments_survive_a_saved_fold(cli: CLI, case: str, tmp_path: Path) -> None:
    """The fold a one-shot command restores knows the experiment (a second identical one is
    still refused) and the case's environment."""
    from casefile.domain.beliefs import project
    from casefile.domain.beliefs.fold_codec import dump_fold, restore_fold
    from casefile.domain.events import Event

    a = paste(cli, case, tmp_path, "a.txt", nccl_table(6.0, "NVIDIA A40"))
    b = paste(cli, case, tmp_path, "b.txt", nccl_table(12.0, "NVIDIA A40"))
    assert (
        cli(
            "experiment",
            case,
            "--change",
            "NCCL_P2P_DISABLE=1",
            "--baseline",
            str(a),
            "--variant",
            str(b),
        ).code
        == 0
    )
    events = [Event(**{k: v for k, v in e.items()}) for e in log(cli, case)]  # type: ignore[arg-type]
    folded = project(events)
    restored = restore_fold(dump_fold(folded))
    assert restored.experiments == folded.experiments
    assert restored.environment == folded.environment
    assert dump_fold(restored) == dump_fold(folded)


def test_log_and_report_show_the_experiment_as_such(cli: CLI, case: str, tmp_path: Path) -> None:
    a = paste(cli, case, tmp_path, "a.txt", nccl_table(6.0, "NVIDIA A40"))
    b = paste(cli, case, tmp_path, "b.txt", nccl_table(18.0, "NVIDIA A40"))
    assert cli("intake", case, "--answer", "scaling=worse").code == 0
    assert cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--baseline", str(a),
               "--variant", str(b)).code == 0  # fmt: skip
    text = cli("log", case).out
    assert f"experiment x1: NCCL_P2P_DISABLE=1 — nccl-tests seq {a} vs seq {b}" in text
    assert "nccl.busbw.large 6 → 18 GB/s (3.00×)" in text
    assert "read by rule experiment.p2p-disable v1 → 'faster' (3.00×)" in text
    assert "intake scaling: 'worse' → evidence" in text
    out = tmp_path / "report.md"
    assert cli("report", case, "--format", "md", "-o", str(out)).code == 0
    report = out.read_text(encoding="utf-8")
    assert "| experiment |" in report
    assert "intake scaling → worse (answered)" in report


def test_figures_stated_in_a_thread_are_a_reported_experiment(cli: CLI, case: str) -> None:
    result = cli(
        "experiment", case, "--change", "ACS disabled on the host's bridges", "--reported",
        "27:48", "--unit", "GB/s", "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert (out["rule"], out["outcome"], out["reported"]) == (
        "experiment.iommu-acs-off",
        "faster",
        True,
    )
    recorded, verdict = log(cli, case)[-2:]
    assert recorded["type"] == "experiment.recorded"
    assert recorded["payload"]["reported"] is True  # type: ignore[index]
    assert "baseline_seq" not in recorded["payload"]  # type: ignore[operator]
    assert verdict["payload"]["kind"] == "reported"  # type: ignore[index]
    # figures a person states count as what they state, firmer than an outcome in words
    assert verdict["payload"]["reliability"] == STATED_RELIABILITY  # type: ignore[index]
    assert "probe_run_seq" not in verdict["payload"]  # type: ignore[operator]
    assert "nccl-tests, reported figures" in cli("log", case).out


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--reported", "27"], 2, "BASELINE:VARIANT"),
        (["--reported", "0:48"], 2, "positive numbers"),
        (["--reported", "27:48", "--baseline", "1"], 1, "drop --baseline"),
        (["--reported", "27:48", "--probe", "nope"], 1, "no probe 'nope'"),
    ],
)
def test_bad_reported_figures_record_nothing(
    cli: CLI, case: str, args: list[str], code: int, message: str
) -> None:
    before = len(log(cli, case))
    result = cli("experiment", case, "--change", "ACS off", *args)
    assert result.code == code and message in result.err, result.err
    assert len(log(cli, case)) == before


@pytest.mark.parametrize(
    ("change", "unit", "rule", "probe", "metric"),
    [
        # a serving switch's tokens/s: the server's own figure (once refused: the default
        # probe, nccl-tests, is not one this rule reads)
        ("--disable-custom-all-reduce", "tok/s", "custom-allreduce-off", "command", "throughput"),
        # the collective library's switch timed by the application, then by nccl-tests
        ("NCCL_P2P_DISABLE=1", "tok/s", "p2p-disable", "command", "throughput"),
        ("NCCL_P2P_DISABLE=1", "GB/s", "p2p-disable", "nccl-tests", "nccl.busbw.large"),
        # named as the unit says: milliseconds are a time, not the rule's first metric
        ("eager -> CUDA graphs", "ms", "cuda-graphs", "command", "time"),
    ],
)
def test_reported_figures_without_a_probe_are_taken_as_the_rules_measure_of_that_unit(
    cli: CLI, change: str, unit: str, rule: str, probe: str, metric: str
) -> None:
    assert cli("new", "slow TP decode", "--id", "r3", "--env", "gpus=2x A100").code == 0
    assert cli("playbook", "open", "r3", "gpu-throughput@3").code == 0
    result = cli(
        "experiment", "r3", f"--change={change}", "--reported", "40:55", "--unit", unit, "--json"
    )
    assert result.code == 0, result.err
    assert json.loads(result.out)["rule"] == f"experiment.{rule}"
    recorded = next(e for e in log(cli, "r3") if e["type"] == "experiment.recorded")
    assert (recorded["payload"]["probe"], recorded["payload"]["metric"]) == (probe, metric)


def test_a_change_that_starts_with_a_dash_is_told_how_to_give_it(cli: CLI) -> None:
    """argparse takes "--disable-custom-all-reduce" after --change for the next option; the
    usage error says to write --change=VALUE, and that form is read."""
    assert cli("new", "slow TP decode", "--id", "d3", "--env", "gpus=2x A100").code == 0
    refused = cli(
        "experiment", "d3", "--change", "--disable-custom-all-reduce", "--outcome", "fixed"
    )
    assert refused.code == 2
    assert "is given as --change=VALUE" in refused.err
    assert cli("playbook", "open", "d3", "gpu-throughput@3").code == 0
    read = cli("experiment", "d3", "--change=--disable-custom-all-reduce", "--outcome", "fixed")
    assert read.code == 0, read.err
    assert "custom-allreduce-off" in read.out
