"""gpu-throughput@3's A/B on the host's own work (``experiment.host-work``): the remedy of the
host-CPU class, which had none but a thread count.

Work taken off the thread that drives the GPU (post-processing done on the GPU, a key cached
instead of rebuilt on every launch, a fast tokenizer) speeds the job up exactly when that thread
set the pace. The rule comes last, so each narrower rule keeps what it reads: the whole model
moved onto the GPU, the input pipeline, host-device round trips, thread counts, CUDA graphs.
"""

from __future__ import annotations

import json

import pytest

from casefile.domain.experiments import experiment_from_dict
from casefile.errors import RuleError
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log
from tests.triage.test_host_threads import playbook_rules, reading_rule

#: how much more a faster run must say for host-cpu than for each of these, at least
HOST_CPU_OVER = {"data-loading": 2.0, "compute-launch": 2.0, "host-transfer": 1.5}


@pytest.mark.parametrize(
    "change",
    [
        "NV12-to-RGBA colour conversion moved from sws_scale on the CPU into a GPU shader",
        "NMS: CPU -> GPU",
        "box decoding done on the GPU instead of the CPU",
        "GPU nms instead of CPU nms",
        "fla kernels launched with the cached config instead of rebuilding the key on every launch",
        "autotune lookup cached per call",
        "per-step host work removed",
        "Python overhead in the training loop cut",
        "lazy initialization of the metrics object",
        "fast tokenizer instead of the Python one",
        "use_fast=True",
        "detokenize=False for the per-step beam candidates",
        # a negation elsewhere in the sentence, or "slow" beside the tokenizer replaced, is
        # no opposite (a second review's wordings)
        "removed per-step Python overhead that did not need to run",
        "moved box decoding from the CPU to the GPU so it no longer blocks the loop",
        "stopped recomputing the position ids on every step",
        "the dispatch key is never rebuilt per call now (cached)",
        "slow tokenizer -> fast tokenizer",
        "switched from the slow tokenizer to the fast tokenizer",
        "cache dropout masks per step",
        "cached the attention mask per step instead of rebuilding it every step",
        "moved the input preprocessing from the CPU to the GPU",
    ],
)
def test_host_work_cut_or_moved_onto_the_gpu_is_read_as_such(change: str) -> None:
    assert reading_rule(change) == "host-work"


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ("the model moved from the CPU to the GPU", "gpu-offload"),
        ("image decoding moved from the CPU to the GPU (DALI)", "data-pipeline"),
        ("per-step .item() calls removed", "host-sync"),
        ("OMP_NUM_THREADS=8", "host-threads"),
        ("torch.compile(mode='reduce-overhead')", "cuda-graphs"),
        # an offload is no move of the host's work: its weights stay on the CPU
        (
            "enable_sequential_cpu_offload() added (weights kept on the CPU and copied to the GPU)",
            None,
        ),
        ("the colour conversion is no longer moved from the CPU to the GPU", None),
        ("NMS moved from the GPU to the CPU", None),
        ("GPU0 and GPU1 joined by NV12", "interconnect"),
        ("enable persistent prompt caching", None),
        ("Removing `wandb.log`", None),
    ],
)
def test_narrower_rules_keep_theirs_and_other_changes_are_not_read(
    change: str, rule: str | None
) -> None:
    assert reading_rule(change) == rule


def test_a_faster_run_speaks_for_host_cpu_far_more_than_for_its_neighbours() -> None:
    rule = next(r for r in playbook_rules() if r.id == "host-work").rule
    host_cpu = rule.likelihoods["host-cpu"]["faster"]
    for other, at_least in HOST_CPU_OVER.items():
        ratio = host_cpu / rule.likelihoods[other]["faster"]
        assert ratio >= at_least, f"host-cpu against {other}: {ratio:.2f}"
        assert rule.likelihoods[other]["faster"] > rule.otherwise["faster"]


def test_the_fast_tokenizer_turned_off_is_the_ab_run_backwards() -> None:
    rule = next(r for r in playbook_rules() if r.id == "host-work")
    assert rule.matches("use_fast=True -> False") and rule.undoes("use_fast=True -> False")
    assert not rule.undoes("use_fast=False -> True")


def test_a_recorded_ab_moves_a_one_gpu_training_case_toward_host_cpu(cli: CLI) -> None:
    new = cli(
        "new", "training is slow, the GPU waits", "--id", "hw", "--playbook", "gpu-throughput@3",
        "--env", "gpus=1x RTX 3090", "--env", "workload=training",
    )  # fmt: skip
    assert new.code == 0, new.err

    def share(hypothesis: str) -> float:
        status = json.loads(cli("status", "hw", "--json").out)
        return float(next(h["confidence"] for h in status["hypotheses"] if h["id"] == hypothesis))

    before = share("host-cpu")
    assert share("data-loading") > before  # a training job: data loading leads on its prior
    done = cli(
        "experiment", "hw", "--change", "loss metrics computed directly on the GPU",
        "--reported", "4.1:9.8", "--unit", "it/s",
    )  # fmt: skip
    assert done.code == 0, done.err
    payload = log(cli, "hw")[-1]["payload"]
    assert payload["rule"] == {"id": "experiment.host-work", "version": 1}  # type: ignore[index]
    assert payload["outcome"] == "faster"  # type: ignore[index]
    assert share("host-cpu") > 2 * before
    assert share("host-cpu") > share("data-loading")


@pytest.mark.parametrize(
    "change",
    [
        # said as not done, undone or taken back
        "stopped moving the colour conversion from the CPU to the GPU",
        "didn't move NMS from the CPU to the GPU",
        "reverted: NMS moved from the CPU to the GPU",
        # a cache taken away
        "removed the cache that avoided recomputing the key per call",
        "disabled caching of the autotune config per launch",
        "lru_cache removed from the dispatch lookup",
        "no caching per step",
        # the slow tokenizer
        "replaced the fast tokenizer with the slow one",
        "fast tokenizer unavailable, fell back to the slow one",
        "turned off the fast tokenizer",
        "no longer caching the config per call",
        # overhead added
        "Python overhead increased after adding hooks",
        "added host-side overhead by logging",
        # the GPU's own recomputation or caches, and copies said as an arrow
        "gradient checkpointing disabled to avoid recomputing activations",
        "prefix caching avoids recomputation",
        "reuse the KV cache per request",
        "CPU->GPU transfer made asynchronous",
        "moved tensors from CPU to GPU memory",
        "moved the embeddings from host to GPU memory",
        # an outcome, not a change
        "reduced CPU usage from 116% to 46%",
    ],
)
def test_changes_that_say_the_opposite_or_are_no_host_work_are_not_read(change: str) -> None:
    assert reading_rule(change) is None


@pytest.mark.parametrize(
    "change",
    [
        "NV12 planes uploaded as two textures",
        "NV12 to RGBA conversion moved to a CUDA kernel",
        "NV12->RGBA conversion",
        "-pix_fmt nv12",
        "NV12/RGBA conversion",
        "-vf hwdownload,format=nv12",
        "pixel format NV12",
        "NVDEC decode to NV12",
    ],
)
def test_a_pixel_format_is_no_nvlink(change: str) -> None:
    interconnect = next(r for r in playbook_rules() if r.id == "interconnect")
    assert not interconnect.matches(change)


@pytest.mark.parametrize(
    ("change", "backwards"),
    [("NV4 -> SYS", True), ("GPU0-GPU1: NV4 → SYS", True), ("PHB -> NV8", False)],
)
def test_an_nvlink_count_with_an_arrow_is_still_a_link(change: str, backwards: bool) -> None:
    interconnect = next(r for r in playbook_rules() if r.id == "interconnect")
    assert interconnect.matches(change) and interconnect.undoes(change) is backwards


def test_an_ab_rule_cannot_opt_into_reading_scope() -> None:
    data = {"id": "x", "only_where_required": True}
    with pytest.raises(RuleError, match="'only_where_required' is for probe rules"):
        experiment_from_dict(data, "throughput", set(), "test")
