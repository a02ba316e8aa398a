"""A communication benchmark on its own (nccl-tests, a P2P bandwidth test) on gpu-throughput@3:
it reads no input data, splits no model and cannot run without its GPUs, so data loading, an
over-split model and "the GPU is not used" do not apply once intake says what runs; the
application log's data-time reading is no longer offered first; an answer that names the
application brings them back (issue: guidance that generalizes, structure before statistics)."""

from __future__ import annotations

import json
from typing import Any

from tests.cli.conftest import CLI

#: what a benchmark on its own cannot be limited by
NOT_A_BENCHMARK = ("data-loading", "over-split", "gpu-unused")


def status(cli: CLI, case: str) -> dict[str, Any]:
    result = cli("status", case, "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def rows_of(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {h["id"]: h for h in data["hypotheses"]}


def test_a_communication_benchmark_weighs_no_data_loading_model_split_or_idle_gpu(
    cli: CLI,
) -> None:
    opened = cli(
        "new", "allreduce below the fabric", "--id", "b", "--playbook", "gpu-throughput",
        "--env", "gpus=8x A100", "--env", "nodes=single",
    )  # fmt: skip
    assert opened.code == 0, opened.err
    before = rows_of(status(cli, "b"))
    # not stated yet: each is weighed like any other cause
    for hid in NOT_A_BENCHMARK:
        assert before[hid]["status"] == "open" and before[hid]["confidence"] > 0.02, hid
    answered = cli("intake", "b", "--answer", "workload=nccl-tests")  # a synonym of benchmark
    assert answered.code == 0, answered.err
    data = status(cli, "b")
    rows = rows_of(data)
    for hid in NOT_A_BENCHMARK:
        assert rows[hid]["status"] == "does not apply", hid
        assert rows[hid]["confidence"] == 0, hid
        assert rows[hid]["does_not_apply"].startswith("workload = benchmark (seq "), hid
    # host-side and misconfiguration keep their other mechanisms (CPU contention, a launcher)
    assert rows["host-cpu"]["status"] == "open" and rows["host-cpu"]["confidence"] > 0.01
    assert rows["misconfiguration"]["confidence"] > 0.01
    first = data["next_steps"][0]
    assert (first["probe"], first["rule"]) != ("app-log", "data-time-share"), first


def test_a_later_answer_naming_the_application_brings_them_back(cli: CLI) -> None:
    assert cli("new", "slow", "--id", "t", "--playbook", "gpu-throughput").code == 0
    assert cli("intake", "t", "--answer", "workload=benchmark").code == 0
    assert rows_of(status(cli, "t"))["data-loading"]["status"] == "does not apply"
    result = cli("intake", "t", "--answer", "workload=training")
    assert result.code == 0, result.err
    assert "was benchmark" in result.out
    rows = rows_of(status(cli, "t"))
    for hid in NOT_A_BENCHMARK:
        if hid == "over-split":  # it also needs several GPUs, not stated in this case
            continue
        assert rows[hid]["status"] == "open" and rows[hid]["confidence"] > 0.02, hid
        assert "does_not_apply" not in rows[hid]
