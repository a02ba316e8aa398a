"""Why an A/B is read by no rule, said so a person can act on it: a rule the case's answers
rule out is named with the answer, a case with no playbook is told to open one, and an A/B
named as a test of hypotheses that do not apply is refused before it records evidence that
would weigh nothing."""

from __future__ import annotations

import json

from tests.cli.conftest import CLI
from tests.triage.test_experiments import log


def _one_gpu(cli: CLI) -> str:
    new = cli("new", "slow decode", "--id", "g1", "--env", "gpus=1x RTX 4090", "--playbook",
              "gpu-throughput")  # fmt: skip
    assert new.code == 0, new.err
    return "g1"


def test_a_change_a_rule_reads_only_for_several_gpus_names_the_answer_that_rules_it_out(
    cli: CLI,
) -> None:
    case = _one_gpu(cli)
    read = cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--reported", "10:20",
               "--unit", "tok/s", "--json")  # fmt: skip
    assert read.code == 0, read.err
    out = json.loads(read.out)
    assert out["rule"] is None and out["evidence_id"] is None
    # not "no rule reads this change", which sent people looking for a wording
    assert out["unread"].startswith(
        "rule p2p-disable reads this change where gpu-count is several, and gpu-count = one "
        "(seq 27) rules that out"
    )
    assert out["nearest"] == []  # the reason, not a hint toward a rule that cannot apply
    # and once the case says several, the same change is read
    assert cli("intake", case, "gpu-count=several").code == 0
    again = cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--reported", "10:30",
                "--unit", "tok/s", "--json")  # fmt: skip
    assert json.loads(again.out)["rule"] == "experiment.p2p-disable"


def test_a_case_with_no_playbook_is_told_to_open_one(cli: CLI) -> None:
    assert cli("new", "bare", "--id", "b1").code == 0
    read = cli("experiment", "b1", "--change", "NCCL_P2P_DISABLE=1", "--reported", "10:20",
               "--unit", "tok/s", "--json")  # fmt: skip
    assert read.code == 0, read.err
    unread = json.loads(read.out)["unread"]
    assert unread.startswith("the case has no playbook") and "playbook open b1 " in unread
    assert "case's playbook" not in unread


def test_an_a_b_named_as_a_test_of_hypotheses_that_do_not_apply_is_refused(cli: CLI) -> None:
    case = _one_gpu(cli)
    before = len(log(cli, case))
    refused = cli("experiment", case, "--change", "SR-IOV=Disable", "--reported", "10:20",
                  "--unit", "tok/s", "--tests", "acs-iommu")  # fmt: skip
    assert refused.code == 1
    assert refused.err.strip() == (
        "casefile: error: the hypotheses tested do not apply to this case (acs-iommu: "
        "gpu-count = one (seq 27), through p2p-lost): an A/B of them would weigh nothing"
    )
    assert len(log(cli, case)) == before
    # one that applies among them: recorded and read
    mixed = cli("experiment", case, "--change", "SR-IOV=Disable", "--reported", "10:20",
                "--unit", "tok/s", "--tests", "acs-iommu,host-cpu", "--json")  # fmt: skip
    assert mixed.code == 0, mixed.err
    assert json.loads(mixed.out)["rule"] == "experiment.named"


def test_a_rule_the_probe_leaves_out_blames_no_answer(cli: CLI) -> None:
    """p2p-disable reads no torch profile: figures from one are unread whatever the GPU count,
    and re-answering it would change nothing, so the answer is not named."""
    case = _one_gpu(cli)
    read = cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--reported", "10:20",
               "--unit", "tok/s", "--probe", "torch-profiler", "--json")  # fmt: skip
    assert read.code == 0, read.err
    unread = json.loads(read.out)["unread"]
    assert "rules that out" not in unread and "no rule" in unread
