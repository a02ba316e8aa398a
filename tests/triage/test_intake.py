"""``casefile intake``: answers become reported evidence carrying the playbook's own table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V2, PLAYBOOK_V3

from casefile.cli import intake_commands
from tests.cli.conftest import CLI


def log(cli: CLI, case: str) -> list[dict[str, object]]:
    result = cli("log", case, "--json")
    assert result.code == 0, result.err
    events: list[dict[str, object]] = json.loads(result.out)
    return events


def evidence(cli: CLI, case: str) -> list[dict[str, object]]:
    return [e["payload"] for e in log(cli, case) if e["type"] == "evidence.assessed"]  # type: ignore[misc]


def answers_to(cli: CLI, case: str, question: str) -> list[dict[str, object]]:
    """The evidence answering one intake question (the case's --env answers others at open)."""
    return [p for p in evidence(cli, case) if (p.get("intake") or {}).get("id") == question]  # type: ignore[union-attr]


@pytest.fixture
def case(cli: CLI) -> str:
    result = cli(
        "new",
        "slow all-reduce",
        "--id",
        "c1",
        "--playbook",
        "gpu-throughput@2",
        "--env",
        "nvlink=no",
        "--env",
        "gpus=8x A40",
    )
    assert result.code == 0, result.err
    return "c1"


def test_an_answer_is_reported_evidence_with_the_playbooks_likelihoods(cli: CLI, case: str) -> None:
    result = cli("intake", case, "--answer", "scaling=worse", "--no-known")
    assert result.code == 0, result.err
    assert "scaling: worse → evidence e2" in result.out  # e1: --env nvlink=no, at open
    (payload,) = answers_to(cli, case, "scaling")
    question = PLAYBOOK_V2.intake_question("scaling")
    assert payload["kind"] == "reported"
    assert payload["rule"] == {"id": "intake.scaling", "version": 1}
    assert payload["outcome"] == "worse"
    assert payload["intake"] == {"id": "scaling", "answer": "worse", "source": "answered"}
    assert payload["reliability"] == question.rule.reliability
    expected = {h: row["worse"] for h, row in question.rule.likelihoods.items()}
    assert payload["likelihoods"] == expected
    assert payload["otherwise"] == question.rule.otherwise["worse"]


def test_env_answers_are_recorded_when_the_playbook_opens(cli: CLI, case: str) -> None:
    """--env nvlink=no answers the NVLink question in the append that opens the playbook,
    as the same evidence `casefile intake` records, and counts until an answer replaces it."""
    events = log(cli, case)
    opening = [e for e in events if e["type"] in ("question.proposed", "hypothesis.proposed")]
    (payload,) = evidence(cli, case)
    answer_seq = next(e["seq"] for e in events if e["type"] == "evidence.assessed")
    assert answer_seq == int(opening[-1]["seq"]) + 1  # type: ignore[call-overload]
    assert payload["intake"] == {  # type: ignore[index]
        "id": "nvlink",
        "answer": "no",
        "source": "environment",
        "basis": "--env nvlink=no",
    }
    assert "from --env nvlink=no" in str(payload["rationale"])
    listed = json.loads(cli("intake", case, "--list", "--json").out)
    nvlink = next(item for item in listed if item["id"] == "nvlink")
    assert (nvlink["answer"], nvlink["source"], nvlink["known"]) == ("no", "environment", None)
    out = json.loads(cli("intake", case, "--json").out)
    assert out["recorded"] == [] and "nvlink" not in out["pending"]
    assert len(evidence(cli, case)) == 1  # not counted twice
    changed = cli("intake", case, "--answer", "nvlink=yes")
    assert f"nvlink: yes (was no, seq {answer_seq}) → evidence e2" in changed.out


def test_playbook_open_records_env_answers_too(cli: CLI) -> None:
    assert cli("new", "later", "--id", "l1", "--env", "nodes=multi").code == 0
    assert cli("playbook", "open", "l1", "gpu-throughput@2").code == 0
    (payload,) = evidence(cli, "l1")
    assert payload["intake"]["id"] == "nodes" and payload["outcome"] == "multi"  # type: ignore[index]


def test_known_answers_of_an_older_case_are_recorded_by_intake(
    cli: CLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case opened before --env answers were recorded at open holds none: `casefile intake`
    records them, saying where they came from."""
    from casefile.app import intake

    with monkeypatch.context() as patched:
        patched.setattr(intake, "environment_answers", lambda *_: None)
        made = cli(
            "new", "old", "--id", "c0", "--playbook", "gpu-throughput@2", "--env", "nvlink=no"
        )
    assert made.code == 0, made.err
    assert evidence(cli, "c0") == []
    listed = json.loads(cli("intake", "c0", "--list", "--json").out)
    nvlink = next(item for item in listed if item["id"] == "nvlink")
    assert nvlink["known"] == {"answer": "no", "source": "environment", "basis": "--env nvlink=no"}
    assert "no (answered by --env nvlink=no; not recorded yet)" in cli("intake", "c0", "--list").out
    result = cli("intake", "c0", "--json")
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert out["recorded"] == [
        {"question": "nvlink", "answer": "no", "evidence_id": "e1", "source": "environment"}
    ]
    assert "scaling" in out["pending"]
    (payload,) = evidence(cli, "c0")
    assert payload["intake"]["basis"] == "--env nvlink=no"  # type: ignore[index]


def test_a_changed_answer_supersedes_and_the_same_answer_records_nothing(
    cli: CLI, case: str
) -> None:
    assert cli("intake", case, "--answer", "scope=all", "--no-known").code == 0
    before = len(log(cli, case))
    again = cli("intake", case, "--answer", "scope=ALL", "--no-known")
    assert again.code == 0 and "scope: unchanged" in again.out
    assert len(log(cli, case)) == before
    assert cli("intake", case, "--answer", "scope=one-pair", "--no-known").code == 0
    first, second = answers_to(cli, case, "scope")
    assert second["supersedes"] == first["evidence_id"]
    assert second["outcome"] == "one-pair"


def test_synonyms_answer_too(cli: CLI, case: str) -> None:
    assert cli("intake", case, "--answer", "after-upgrade=NCCL", "--no-known").code == 0
    (payload,) = answers_to(cli, case, "after-upgrade")
    assert payload["outcome"] == "collective-library"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("scaling=maybe", "intake scaling: 'maybe' is not an answer (yes / no / worse)"),
        ("colour=blue", "no intake question 'colour'"),
    ],
)
def test_a_bad_answer_is_one_line_and_records_nothing(
    cli: CLI, case: str, answer: str, message: str
) -> None:
    before = len(log(cli, case))
    result = cli("intake", case, "--answer", "nodes=single", "--answer", answer)
    assert result.code != 0
    assert message in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert "Traceback" not in result.err
    assert len(log(cli, case)) == before  # not even the good answer, nor the known ones


def test_a_malformed_answer_option_is_a_usage_error(cli: CLI, case: str) -> None:
    result = cli("intake", case, "--answer", "scaling")
    assert result.code == 2
    assert "use QUESTION=ANSWER" in result.err


def test_a_case_without_a_playbook_has_no_intake(cli: CLI) -> None:
    assert cli("new", "bare", "--id", "b1").code == 0
    result = cli("intake", "b1", "--answer", "scaling=no")
    assert result.code == 1
    assert "has no intake questions" in result.err


def test_a_case_opened_from_version_1_has_no_intake(cli: CLI) -> None:
    assert cli("new", "old", "--id", "o1", "--playbook", "gpu-throughput@1").code == 0
    result = cli("intake", "o1", "--list")
    assert result.code == 1
    assert "has no intake questions" in result.err


VIRT = "systemd-detect-virt: kvm\n"


def test_an_answer_an_observation_holds_is_not_counted_twice(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    """virt-detect said "kvm": its own rule counted that; the platform question is answered
    by it, and recording it again as an answer would count the same reading twice."""
    paste = tmp_path / "virt.txt"
    paste.write_text("kvm\n")
    assert (
        cli("probe", case, "virt-detect", "--paste", str(paste), "--", "systemd-detect-virt").code
        == 0
    )
    rule_evidence = [e for e in evidence(cli, case) if e["rule"]["id"] == "virtualised-host"]  # type: ignore[index]
    assert len(rule_evidence) == 1
    listed = {item["id"]: item for item in json.loads(cli("intake", case, "--list", "--json").out)}
    assert listed["platform"]["known"]["answer"] == "vm"
    assert listed["platform"]["counted_by"] == rule_evidence[0]["evidence_id"]
    result = cli("intake", case)
    assert result.code == 0, result.err
    assert f"platform: already counted by evidence {rule_evidence[0]['evidence_id']}" in result.out
    assert not [e for e in evidence(cli, case) if e["rule"]["id"] == "intake.platform"]  # type: ignore[index]


def test_an_observation_answers_a_question_no_rule_reads(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    """No version-2 rule reads topo.link, so a topology with NVLink answers the NVLink question
    (and overrides nothing: the --env answer in force stays unless asked)."""
    assert cli("new", "nv", "--id", "n1", "--playbook", "gpu-throughput").code == 0
    topo = tmp_path / "topo.txt"
    topo.write_text(
        "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tNV12\t0-63\t0\n"
        "GPU1\tNV12\t X \t0-63\t0\n"
    )
    assert cli("probe", "n1", "nvidia-smi-topo", "--paste", str(topo)).code == 0
    result = cli("intake", "n1", "--json")
    out = json.loads(result.out)
    (nvlink,) = [r for r in out["recorded"] if r["question"] == "nvlink"]
    assert nvlink["answer"] == "yes" and nvlink["source"] == "observation"
    payload = next(e for e in evidence(cli, "n1") if e["rule"]["id"] == "intake.nvlink")  # type: ignore[index]
    assert "topo.link = NV12" in payload["intake"]["basis"]  # type: ignore[index]
    assert isinstance(payload["observation_seq"], int)


def test_another_setups_observation_answers_nothing(cli: CLI, tmp_path: Path) -> None:
    """A topology pasted from another machine (``--setup``) says nothing about this one's
    NVLink: only runs of the setup under investigation answer intake."""
    assert cli("new", "nv", "--id", "n2", "--playbook", "gpu-throughput").code == 0
    topo = tmp_path / "topo.txt"
    topo.write_text(
        "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tNV12\t0-63\t0\n"
        "GPU1\tNV12\t X \t0-63\t0\n"
    )
    pasted = cli(
        "probe", "n2", "nvidia-smi-topo", "--paste", str(topo), "--setup", "the reference box"
    )
    assert pasted.code == 0, pasted.err
    listed = {item["id"]: item for item in json.loads(cli("intake", "n2", "--list", "--json").out)}
    assert listed["nvlink"]["known"] is None


def test_the_terminal_asks_each_open_question(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from casefile.app.intake import IntakeItem

    items = [
        IntakeItem("p@2", "scaling", "Does it scale?", ("yes", "no", "worse"), "help"),
        IntakeItem("p@2", "nodes", "Nodes?", ("single", "multi"), "", answer="single"),
        IntakeItem("p@2", "scope", "Scope?", ("one-pair", "all"), ""),
    ]
    replies = iter(["perhaps", "Worse", ""])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(replies))
    questions = {q.id: q for q in PLAYBOOK_V2.intake}
    assert intake_commands._ask(items, questions) == {"scaling": "worse"}
    out = capsys.readouterr().out
    assert "'perhaps' is not one of yes / no / worse" in out
    assert "Nodes?" not in out  # answered already: not asked


def test_the_terminal_does_not_ask_what_an_answer_just_given_makes_moot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "one" GPU typed at the first prompt: NVLink is not asked next, nor a question the case
    already holds moot; the platform still is."""
    from casefile.app.intake import IntakeItem

    several = (("gpu-count", ("several",)),)
    items = [
        IntakeItem("p@3", "gpu-count", "GPUs?", ("one", "several"), ""),
        IntakeItem("p@3", "nvlink", "NVLink?", ("yes", "no"), "", requires=several),
        IntakeItem("p@3", "scope", "Scope?", ("one-pair", "all"), "", does_not_apply="x"),
        IntakeItem("p@3", "platform", "Platform?", ("bare-metal", "vm"), ""),
    ]
    replies = iter(["one", "vm"])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(replies))
    questions = {q.id: q for q in PLAYBOOK_V3.intake}
    assert intake_commands._ask(items, questions) == {"gpu-count": "one", "platform": "vm"}
    out = capsys.readouterr().out
    assert "NVLink?" not in out and "Scope?" not in out


def test_a_bare_table_is_judged_against_the_path_the_case_describes(
    cli: CLI, tmp_path: Path
) -> None:
    """One result row names no GPU and no host; the case's ``--env gpus`` and its intake
    answers (8 nodes, NVLink) say which rate the run should reach: NVLSTree's, which 104 GB/s
    is below (read against a PCIe fallback it was "as expected")."""
    from tests.triage.test_rules_v2 import ONE_ROW

    made = cli(
        "new", "slow multi-node all-reduce", "--id", "m1", "--playbook", "gpu-throughput",
        "--env", "gpus=8 nodes x 8x H100 (p5)",
    )  # fmt: skip
    assert made.code == 0, made.err
    answered = cli("intake", "m1", "--answer", "nodes=multi", "--answer", "nvlink=yes")
    assert answered.code == 0, answered.err
    table = tmp_path / "row.txt"
    table.write_text(ONE_ROW)
    assert cli("probe", "m1", "nccl-tests", "--paste", str(table)).code == 0
    (busbw,) = [e for e in evidence(cli, "m1") if e["rule"]["id"] == "nccl-bus-bandwidth"]  # type: ignore[index]
    assert busbw["outcome"] == "below"
    assert busbw["statistic"] == pytest.approx(104.2 / 180.0, rel=1e-3)  # out-of-place


def test_unanswered_questions_rank_among_the_next_steps_at_no_cost(cli: CLI, case: str) -> None:
    """ "Did it start after an upgrade?" costs nothing to ask, and is offered before the A/B
    on another version that would show the same; once answered it is no longer offered."""

    def offered() -> dict[str, dict[str, object]]:
        out = json.loads(cli("status", case, "--json").out)
        return {step["probe"]: step for step in out["next_steps"]}

    before = offered()
    assert before["intake after-upgrade"]["cost"] == "instant"
    assert before["intake after-upgrade"]["rule"] == "intake.after-upgrade"
    assert cli("intake", case, "--answer", "after-upgrade=no").code == 0
    after = offered()
    assert "intake after-upgrade" not in after
    assert any(name.startswith("intake ") for name in after)  # the others are still open


def test_a_question_a_probes_rule_already_answered_is_not_offered(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    """virt-detect's rule counted "kvm": offering the platform question would invite the same
    reading counted twice."""
    paste = tmp_path / "virt.txt"
    paste.write_text("kvm\n")
    assert cli("probe", case, "virt-detect", "--paste", str(paste)).code == 0
    steps = {s["probe"] for s in json.loads(cli("status", case, "--json").out)["next_steps"]}
    assert "intake platform" not in steps
