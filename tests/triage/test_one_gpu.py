"""A one-GPU job on gpu-throughput@3: once the GPU count is known, the inter-GPU families hold
no probability and no inter-GPU probe or A/B is suggested (issue: guidance that generalizes)."""

from __future__ import annotations

import json

import pytest

from casefile.app.views.steps import separation_line
from tests.cli.conftest import CLI

#: the PCIe-between-GPUs, peer-to-peer, collective-library and inter-node families
INTER_GPU = (
    "pcie-bandwidth", "p2p-lost", "acs-iommu", "consumer-no-p2p", "library-path",
    "p2p-policy", "transport-fallback", "internode-network", "over-split",
)  # fmt: skip
INTER_GPU_STEPS = (
    "nccl-tests", "nccl-debug", "cuda-p2p-bandwidth", "nvidia-smi-topo",
    "A/B p2p-disable", "A/B p2p-level", "A/B shm-disable", "A/B algorithm",
    "A/B network-path", "A/B container-gpus", "A/B fewer-gpus",
    # questions about how several GPUs behave together
    "intake scaling", "intake scope", "intake nvlink",
)  # fmt: skip


def status(cli: CLI, case: str) -> dict[str, object]:
    result = cli("status", case, "--json")
    assert result.code == 0, result.err
    data: dict[str, object] = json.loads(result.out)
    return data


def check_one_gpu(data: dict[str, object]) -> None:
    rows = {h["id"]: h for h in data["hypotheses"]}  # type: ignore[attr-defined,index]
    for hid in INTER_GPU:
        assert rows[hid]["confidence"] <= 0.05, hid
        assert rows[hid]["status"] == "does not apply"
        reason = rows[hid]["does_not_apply"]
        # its own requirement first: consumer cards' P2P limit needs consumer cards
        assert reason.startswith("gpu-count = one (seq ") or (
            hid == "consumer-no-p2p" and reason.startswith("gpu-class = datacenter")
        ), reason
    steps = {s["probe"] for s in data["next_steps"]}  # type: ignore[attr-defined,index]
    probes = {s["probe"] for s in data["best_probes"]}  # type: ignore[attr-defined,index]
    assert not (steps | probes) & set(INTER_GPU_STEPS), (steps | probes) & set(INTER_GPU_STEPS)
    # nvbandwidth measures between GPUs too, but it is offered on one GPU for its host-to-device
    # test alone (the GPU's own PCIe link), never for a rule between GPUs
    fed = {r for s in data["best_probes"] if s["probe"] == "nvbandwidth" for r in s["rules"]}  # type: ignore[attr-defined,index]
    assert fed <= {"h2d-link-rate"}, fed


@pytest.mark.parametrize(
    "how", [["--env", "gpus=1x GeForce RTX 4090"], ["--env", "gpu-count=1"], []]
)
def test_a_one_gpu_job_weighs_no_inter_gpu_cause(cli: CLI, how: list[str]) -> None:
    result = cli(
        "new", "slow decode", "--id", "one", "--playbook", "gpu-throughput", "--env",
        "workload=inference", *how,
    )  # fmt: skip
    assert result.code == 0, result.err
    if not how:
        # not stated at opening: inter-GPU causes are weighed until the question is answered
        before = status(cli, "one")
        rows = {h["id"]: h for h in before["hypotheses"]}  # type: ignore[attr-defined,index]
        assert rows["p2p-lost"]["confidence"] > 0.02
        assert cli("intake", "one", "--answer", "gpu-count=one").code == 0
    check_one_gpu(status(cli, "one"))


def test_a_later_answer_of_several_gpus_brings_them_back(cli: CLI) -> None:
    assert (
        cli(
            "new", "slow", "--id", "c", "--playbook", "gpu-throughput", "--env", "gpus=1x A100"
        ).code
        == 0
    )
    check_one_gpu(status(cli, "c"))
    result = cli("intake", "c", "--answer", "gpu-count=several")
    assert result.code == 0, result.err
    assert "was one" in result.out
    rows = {h["id"]: h for h in status(cli, "c")["hypotheses"]}  # type: ignore[attr-defined,index]
    assert rows["p2p-lost"]["status"] == "open" and rows["p2p-lost"]["confidence"] > 0.02
    assert "does_not_apply" not in rows["p2p-lost"]


def test_the_hypothesis_detail_says_why_it_does_not_apply(cli: CLI) -> None:
    assert (
        cli("new", "slow", "--id", "d", "--playbook", "gpu-throughput", "--env", "gpus=1x L4").code
        == 0
    )
    shown = cli("hypothesis", "show", "d", "p2p-lost")
    assert shown.code == 0, shown.err
    assert "does not apply (gpu-count = one (seq " in shown.out
    data = json.loads(cli("hypothesis", "show", "d", "p2p-lost", "--json").out)
    assert data["status"] == "does not apply" and data["confidence"] == 0.0
    assert data["does_not_apply"].startswith("gpu-count = one")
    report = cli("status", "d")
    assert "(does not apply: gpu-count = one (seq " in report.out


def test_a_change_read_by_a_rule_that_needs_several_gpus_is_not_read_on_one(cli: CLI) -> None:
    assert (
        cli("new", "slow", "--id", "e", "--playbook", "gpu-throughput", "--env", "gpus=1x A10").code
        == 0
    )
    result = cli(
        "experiment", "e", "--change", "NCCL_P2P_DISABLE=1", "--outcome", "fixed", "--json"
    )
    assert result.code == 0, result.err
    assert json.loads(result.out)["rule"] is None  # p2p-disable needs several GPUs


#: intake questions about how several GPUs behave together (``requires gpu-count: several``)
SEVERAL_GPU_QUESTIONS = ("scaling", "scope", "nvlink")


def test_intake_does_not_ask_a_one_gpu_job_about_several_gpus(cli: CLI) -> None:
    opened = cli(
        "new", "slow decode", "--id", "q", "--playbook", "gpu-throughput",
        "--env", "gpus=1x A100", "--env", "workload=inference",
    )  # fmt: skip
    assert opened.code == 0, opened.err
    listed = cli("intake", "q", "--list", "--json")
    assert listed.code == 0, listed.err
    rows = {row["id"]: row for row in json.loads(listed.out)}
    for qid in SEVERAL_GPU_QUESTIONS:
        assert rows[qid]["answer"] is None
        assert rows[qid]["does_not_apply"].startswith("gpu-count = one (seq "), rows[qid]
    assert rows["after-upgrade"]["does_not_apply"] is None
    shown = cli("intake", "q", "--list").out
    assert "nvlink               does not apply: gpu-count = one (seq " in shown
    # neither status nor intake counts them among the questions still to answer
    tail = cli("status", "q").out.rsplit("Intake:", 1)[1]
    pending = cli("intake", "q", "--answer", "after-upgrade=no").out
    for qid in SEVERAL_GPU_QUESTIONS:
        assert qid not in tail and qid not in pending.split("not answered yet:", 1)[1], qid
    assert "platform" in tail and "after-upgrade" in tail
    # a later answer of several GPUs makes them worth asking again
    assert cli("intake", "q", "--answer", "gpu-count=several").code == 0
    rows = {row["id"]: row for row in json.loads(cli("intake", "q", "--list", "--json").out)}
    assert all(rows[qid]["does_not_apply"] is None for qid in SEVERAL_GPU_QUESTIONS)


def test_a_step_that_leaves_the_leaders_alike_says_so_in_a_sentence(cli: CLI) -> None:
    """``status`` prints each step's line on the two leaders: "separates A against B: …", or
    "does not tell A from B" (once printed as "separates does not tell A from B")."""
    opened = cli(
        "new", "slow training", "--id", "s", "--playbook", "gpu-throughput",
        "--env", "gpus=1x A100", "--env", "workload=training",
    )  # fmt: skip
    assert opened.code == 0, opened.err
    lines = [line.strip() for line in cli("status", "s").out.splitlines()]
    alike = [line for line in lines if "does not tell" in line]
    assert all(line.startswith("does not tell ") for line in alike), alike
    assert any(line.startswith("separates data-loading against ") for line in lines)
    # which steps make the six shown moves with the playbook: the sentence is checked on every
    # step the ranking says leaves the leaders alike, as status would print it
    steps = json.loads(cli("status", "s", "--json").out)["next_steps"]
    said = [step["separates"] for step in steps if "does not tell" in step["separates"]]
    assert said and all(separation_line(s).startswith("does not tell ") for s in said)
    assert separation_line("a against b: x 0.5 against 0.1").startswith("separates a against")
