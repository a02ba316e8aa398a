"""How people write the one thing they changed between two runs, and which A/B rule reads it.

Each change below is a public report's own words (trimmed to the change, never reworded), about
a slow GPU job: training, inference servers, llama.cpp and Ollama, NCCL and several GPUs, data
loading, power and heat, PCIe and firmware, drivers and versions. Each says which rule of
gpu-throughput@3 should read it, as a GPU performance engineer would, and whether it runs that
rule's own A/B (``backwards=False``) or its reverse (``backwards=True``: the variant is the
rule's baseline, what :meth:`ExperimentRule.undoes` should say); ``None`` where no rule should.
The rule is the one ``casefile experiment`` picks (:func:`experiment_rule`, the first in file
order whose pattern reads the change) for a case that states no intake answers, so no rule's
``requires`` rules it out.

A change the current playbook reads wrong (another rule, no rule, or the wrong way round) is
marked ``xfail(strict=True)`` with what goes wrong: the file passes today, and a fix that reads
one right turns its xfail into a failure to be lifted.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest
from _pytest.mark import ParameterSet
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.app.experiment_reading import experiment_rule


def _case(
    change: str, rule: str | None, *, backwards: bool = False, misread: str | None = None
) -> ParameterSet:
    marks = () if misread is None else (pytest.mark.xfail(strict=True, reason=misread),)
    return pytest.param(change, rule, backwards, marks=marks, id=f"{rule}: {change[:60]}")


WORDINGS = [
    # --- p2p-disable ---
    # https://github.com/NVIDIA/nccl/issues/1439
    _case("NCCL_P2P_DISABLE=1", "p2p-disable"),
    # https://github.com/tinygrad/open-gpu-kernel-modules/issues/17
    _case(
        "Enabling P2P capability on 8 RTX 4090 GPUs",
        "p2p-disable",
        backwards=True,
        misread=(
            "unread: p2p-disable reads only NCCL_P2P_DISABLE=1 (P2P enabled is its A/B reversed)"
        ),
    ),
    # --- shm-disable ---
    # https://github.com/NVIDIA/nccl-tests/issues/293
    _case("NCCL_SHM_DISABLE=1", "shm-disable"),
    # --- network-path ---
    # https://github.com/NVIDIA/nccl/issues/278
    _case("NCCL_SOCKET_IFNAME=enP1p1s0f0,enP1p1s0f1", "network-path"),
    # https://github.com/NVIDIA/nccl/issues/1411
    _case("NCCL_CROSS_NIC=0", "network-path"),
    # https://github.com/NVIDIA/nccl-tests/issues/293
    _case("NCCL_NET_GDR_LEVEL=SYS", "network-path"),
    # --- custom-allreduce-off ---
    # https://github.com/1CatAI/1Cat-vLLM/issues/652
    _case("workaround: --disable-custom-all-reduce", "custom-allreduce-off"),
    # https://github.com/vllm-project/vllm/pull/47751
    _case("Disable custom all-reduce on consumer Blackwell (sm_12x)", "custom-allreduce-off"),
    # https://github.com/sgl-project/sglang/pull/4210
    _case(
        "Test no vllm custom allreduce",
        "custom-allreduce-off",
    ),
    # --- pcie-link ---
    # https://github.com/dartraiden/NVIDIA-patcher/issues/106
    _case("reseating card in pcie slot", "pcie-link"),
    # https://github.com/dartraiden/NVIDIA-patcher/issues/106
    _case(
        "pulled it out and put it back in",
        "pcie-link",
        misread="unread: pcie-link reads 're-seat' but not a reseat told in other words",
    ),
    # https://github.com/amoghmunikote/cmpunlocker/pull/19
    _case("persistent PCIe Gen2 link retrain", "pcie-link"),
    # https://github.com/Dasharo/dasharo-issues/issues/618
    _case("force PCIe 3.0", "pcie-link"),
    # https://github.com/Cyclenerd/ethereum_nvidia_miner/issues/40
    _case(
        'explicitly set the x16 PCIe to "gen2" instead of "auto"',
        "pcie-link",
        backwards=True,
        misread=(
            "backwards: the link generation forced down from auto reads as the link fixed "
            "(undoes needs BEFORE -> AFTER)"
        ),
    ),
    # https://github.com/nanopool/ewbf-miner/issues/12
    _case(
        "moved one card off mobo with riser cable",
        "pcie-link",
        backwards=True,
        misread=(
            "backwards: a card moved onto a riser (a worse link) reads as the link fixed "
            "(undoes needs BEFORE -> AFTER)"
        ),
    ),
    # https://github.com/ethereum-mining/ethminer/issues/1078
    _case("switching out the riser", "pcie-link"),
    # --- iommu-acs-off ---
    # https://github.com/NVIDIA/caffe/issues/10
    _case("disable the ACS directly in the BIOS of the server", "iommu-acs-off"),
    # https://github.com/NVIDIA/nccl/issues/257
    _case("Booting the kernel with intel_iommu=off", "iommu-acs-off"),
    # https://github.com/ROCm/rccl/issues/1129
    _case("added iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT", "iommu-acs-off"),
    # https://github.com/NVIDIA/nccl-tests/issues/115
    _case("setting amd_iommu=off", "iommu-acs-off"),
    # https://github.com/aikitoria/open-gpu-kernel-modules/issues/25
    _case(
        "disabled IOMMU in BIOS and in GRUB kernel arguments",
        "iommu-acs-off",
    ),
    # https://github.com/aikitoria/open-gpu-kernel-modules/issues/25
    _case(
        "P2P works after disabling intel_iommu",
        "iommu-acs-off",
    ),
    # https://github.com/tinygrad/open-gpu-kernel-modules/issues/18
    _case(
        "Disabling IOMMU fixed this behavior",
        "iommu-acs-off",
    ),
    # https://github.com/tinygrad/open-gpu-kernel-modules/issues/18
    _case("Just set iommu=pt", "iommu-acs-off"),
    # --- numa-bios ---
    # https://github.com/NVIDIA/nccl-tests/issues/115
    _case(
        "Setting NPS to 4",
        "numa-bios",
    ),
    # https://github.com/aikitoria/open-gpu-kernel-modules/issues/25
    _case("enable Resizable BAR support in BIOS", "numa-bios"),
    # --- numa-binding ---
    # https://github.com/vllm-project/vllm/pull/30492
    _case("numactl --cpunodebind=N --membind=N vllm serve", "numa-binding"),
    # https://github.com/AI-Hypercomputer/accelerator-microbenchmarks/pull/98
    _case("numactl  --cpunodebind=0 --membind=0 $CMD", "numa-binding"),
    # https://github.com/NVIDIA/srt-slurm/pull/248
    _case(
        "Add numactl prefix for gb200 and gb300 trtllm workers",
        "numa-binding",
        misread=(
            "wrong rule: numa-binding needs numactl's node flags, so launch-config takes a "
            "bare 'numactl'"
        ),
    ),
    # https://github.com/vllm-project/vllm/pull/38635
    _case(
        "--numa-bind",
        "numa-binding",
    ),
    # https://github.com/NVIDIA-NeMo/RL/pull/2613
    _case(
        "NUMA-aware CPU affinity + memory binding",
        "numa-binding",
    ),
    # --- gpu-offload ---
    # https://github.com/n4ze3m/page-assist/issues/168
    _case("num_gpu", "gpu-offload"),
    # https://github.com/evshiron/rocm_lab/issues/13
    _case(
        "Without -ngl",
        "gpu-offload",
        backwards=True,
        misread=(
            "backwards: a run without -ngl (no offload) reads as the offload turned on "
            "(undoes needs BEFORE -> AFTER)"
        ),
    ),
    # https://github.com/psugihara/FreeChat/pull/71
    _case("-ngl 99", "gpu-offload"),
    # https://github.com/pytorch/torchchat/pull/586
    _case(
        "install pytorch nightly with cuda",
        "gpu-offload",
    ),
    # https://github.com/rrtucci/SentenceAx/issues/1
    _case(
        "pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu121",
        "gpu-offload",
        misread="unread: gpu-offload reads '+cpu' and 'CPU-only torch', not a CUDA wheel index",
    ),
    # https://github.com/FP-Studio/framepack-studio/pull/301
    _case(
        "Force CUDA torch version to be installed",
        "gpu-offload",
    ),
    # --- fewer-gpus ---
    # https://github.com/vllm-project/vllm/issues/689
    _case(
        "When I set tensor_parallel_size to > 1",
        "fewer-gpus",
        backwards=True,
        misread=(
            "wrong rule: launch-config reads a tensor-parallel size; going from one GPU to "
            "several is fewer-gpus read the other way round"
        ),
    ),
    # https://github.com/BlackSamorez/tensor_parallel/issues/117
    _case(
        "remove tensor_parallel and instead just use a single GPU",
        "fewer-gpus",
    ),
    # https://github.com/zai-org/ChatGLM-6B/issues/595
    _case(
        "修改了CUDA_VISIBLE_DEVICES=0为CUDA_VISIBLE_DEVICES=0,1",
        "fewer-gpus",
        backwards=True,
        misread=(
            "wrong rule: one GPU to two written with 为 (no arrow the normal form knows) is "
            "read by visible-devices, not fewer-gpus the other way round"
        ),
    ),
    # https://github.com/ggml-org/llama.cpp/issues/5619
    _case("--split-mode none", "fewer-gpus"),
    # --- data-pipeline ---
    # https://github.com/harryjo97/GDSS/issues/13
    _case(
        "Using 4 workers",
        "data-pipeline",
        misread=(
            "unread: data-pipeline reads num_workers / 'loader workers', not a bare worker count"
        ),
    ),
    # https://github.com/aws/sagemaker-pytorch-training-toolkit/issues/117
    _case(
        "Running training with num_workers=0",
        "data-pipeline",
        backwards=True,
        misread=(
            "backwards: a run with no loader workers reads as more workers (undoes needs "
            "BEFORE -> AFTER)"
        ),
    ),
    # https://github.com/visionml/pytracking/issues/121
    _case("Buy an SSD", "data-pipeline"),
    # https://github.com/yjxiong/action-detection/issues/41
    _case(
        "decrease batch size and increasing number of workers",
        "data-pipeline",
    ),
    # https://github.com/clovaai/voxceleb_trainer/issues/67
    _case(
        "use more data loader threads",
        "data-pipeline",
    ),
    # https://github.com/nianticlabs/monodepth2/issues/157
    _case(
        "use lru cache on the image loading function",
        "data-pipeline",
    ),
    # https://github.com/kmaninis/OSVOS-PyTorch/pull/38
    _case(
        "Add Training Data Cache",
        "data-pipeline",
    ),
    # https://github.com/raspstephan/nwp-downscale/issues/32
    _case("Switch to SSD on GPU machine", "data-pipeline"),
    # https://github.com/MILVLG/mcan-vqa/issues/8
    _case(
        "num_worker=15",
        "data-pipeline",
    ),
    # https://github.com/AlexeyAB/darknet/issues/4903
    _case("Compile Darknet with OpenCV", "data-pipeline"),
    # https://github.com/sthalles/PyTorch-BYOL/pull/17
    _case("Add DALI support for faster data loading", "data-pipeline"),
    # --- host-sync ---
    # https://github.com/kohya-ss/musubi-tuner/pull/700
    _case(
        "with pinned memory",
        "host-sync",
    ),
    # https://github.com/kohya-ss/musubi-tuner/pull/700
    _case(
        "without pinned memory",
        "host-sync",
        backwards=True,
        misread=(
            "unread: host-sync reads pin.?memory, which does not match 'pinned memory' (and "
            "without an arrow it could only read it backwards)"
        ),
    ),
    # https://github.com/constantinpape/torch-em/pull/357
    _case("Set non_blocking to True for tensor device allocation", "host-sync"),
    # https://github.com/ostris/ai-toolkit/pull/813
    _case("pin_memory: true", "host-sync"),
    # https://github.com/allenai/allennlp/issues/4670
    _case(
        "We tried memory pinning",
        "host-sync",
    ),
    # --- host-threads ---
    # https://github.com/kmaninis/OSVOS-PyTorch/issues/19
    _case("export OMP_NUM_THREADS=4", "host-threads"),
    # https://github.com/NVIDIA-NeMo/Speech/issues/8141
    _case(
        "explicitly set the CPU count per task (directive #SBATCH --cpus-per-task)", "host-threads"
    ),
    # https://github.com/ggml-org/llama.cpp/issues/18
    _case("4 threads is much faster than 8", "host-threads"),
    # https://github.com/ggml-org/llama.cpp/issues/767
    _case(
        "explicitly setting the number of threads to a substantially lower number",
        "host-threads",
    ),
    # https://github.com/oobabooga/textgen/issues/1639
    _case("python server.py --threads 64", "host-threads"),
    # https://github.com/ggml-org/llama.cpp/issues/13735
    _case(
        "Try using fewer threads.",
        "host-threads",
    ),
    # --- container-gpus ---
    # https://github.com/NVIDIA/nccl-tests/issues/93
    _case(
        "run nccl_test with one docker holding four cards",
        "container-gpus",
    ),
    # https://github.com/NVIDIA/nccl/issues/324
    _case(
        "docker run --gpus=all",
        "container-gpus",
    ),
    # https://github.com/NVIDIA/nvidia-docker/issues/1253
    _case("if I run in the same container", "container-gpus"),
    # --- cuda-graphs ---
    # https://github.com/ai-dynamo/dynamo/pull/2109
    _case("rm enforce eager from vllm deploy", "cuda-graphs"),
    # https://github.com/EleutherAI/lm-evaluation-harness/pull/3020
    _case("removes the forced enforce_eager=True", "cuda-graphs"),
    # https://github.com/scaleapi/llm-engine/pull/851
    _case("stop forcing --enforce-eager on all LLM endpoints", "cuda-graphs"),
    # https://github.com/vllm-project/vllm/issues/15598
    _case(
        "using -- enforce-eager",
        "cuda-graphs",
        backwards=True,
    ),
    # https://github.com/sillsdev/machine.py/issues/72
    _case("model = torch.compile(model)", "cuda-graphs"),
    # https://github.com/torchgeo/torchgeo/pull/1225
    _case("Use torch.compile if available", "cuda-graphs"),
    # https://github.com/goodfire-ai/spd/pull/322
    _case("Speedup with torch compile", "cuda-graphs"),
    # --- weight-bytes ---
    # https://github.com/dphnAI/sonar/pull/294
    _case(
        "Use --load-in-4bit to convert the FP16 model weights to 4bit at runtime", "weight-bytes"
    ),
    # https://github.com/turboderp-org/exllamav2/issues/499
    _case("[FP16] -> [Q4]", "weight-bytes"),
    # --- batch-size ---
    # https://github.com/junyanz/VON/issues/16
    _case("increase batch size", "batch-size"),
    # https://github.com/vllm-project/vllm-omni/pull/5071
    _case("changed only max_num_seqs from 8 to 32", "batch-size"),
    # https://github.com/vllm-project/recipes/pull/573
    _case(
        "Update max sequence number from 2 to 16",
        "batch-size",
    ),
    # https://github.com/vllm-project/vllm/issues/17598
    _case("max-num-seqs value increased from 16 to 32", "batch-size"),
    # --- version ---
    # https://github.com/bmaltais/kohya_ss/issues/884
    _case(
        "Roll back on version 21.5.12",
        "version",
    ),
    # https://github.com/bmaltais/kohya_ss/issues/884
    _case("downgrade driver on 532.03 version", "version"),
    # https://github.com/vladmandic/sdnext/issues/1638
    _case("Downgrade to nvidia driver 531.", "version"),
    # https://github.com/ggml-org/llama.cpp/issues/23765
    _case("Update the NVIDIA driver to a version newer than 576.33", "version"),
    # https://github.com/ollama/ollama/issues/8349
    _case("upgrading from 0.3.12->0.5.4", "version"),
    # https://github.com/ollama/ollama/issues/8199
    _case("upgraded the ollama from 0.1.14 to 0.5.4", "version"),
    # https://github.com/ollama/ollama/issues/11055
    _case("After upgrading to CUDA 12.8", "version"),
    # https://github.com/ggml-org/llama.cpp/issues/10977
    _case(
        "slowdown between b4363 and b4365",
        "version",
    ),
    # https://github.com/ggml-org/llama.cpp/issues/13735
    _case(
        "After release b5450",
        "version",
    ),
    # https://github.com/ikawrakow/ik_llama.cpp/issues/1389
    _case("from b4110 to current (b4267)", "version"),
    # --- power-limit ---
    # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/483
    _case("I unlocked 140W power consumption", "power-limit"),
    # https://github.com/microsoft/onnxruntime/issues/7449
    _case(
        "from adaptive to max/consistent",
        "power-limit",
        misread=(
            "unread: power-limit reads 'power mode', not the driver's power-management "
            "choice named without 'power'"
        ),
    ),
    # https://github.com/jetsonhacks/installCaffeJTX2/issues/1
    _case("sudo nvpmodel -m 0", "power-limit"),
    # https://github.com/dusty-nv/jetson-inference/issues/20
    _case(
        "used the jetson_max_l4t.sh to max performance with tx1",
        "power-limit",
    ),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/1614
    _case(
        "have my power set to 90%",
        "power-limit",
        backwards=True,
        misread=(
            "unread: power-limit reads 'power limit/cap' and watts, not a percentage "
            "setting (a lower limit: the rule's A/B reversed)"
        ),
    ),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/1614
    _case(
        "set a lower power/temp limit",
        "power-limit",
        backwards=True,
        misread=(
            "unread: power-limit reads 'power limit', not 'power/temp limit' (a lower "
            "limit: the rule's A/B reversed)"
        ),
    ),
    # https://inventivehq.com/blog/gpu-power-limit-tokens-per-watt
    _case(
        "cut the power cap by 17% (180 W → 150 W)",
        "power-limit",
        backwards=True,
    ),
    # https://forums.developer.nvidia.com/t/gpu-is-throttled-nv-gpu-perf-decrease-reason-api-triggered/205097
    _case("use nvidia-smi to set the enforced power limit to the maximum", "power-limit"),
    # https://github.com/microsoft/pai/issues/3387
    _case(
        "sudo nvidia-smi -pm ENABLED -i 3; sudo nvidia-smi -ac 2505,875 -i 3",
        "power-limit",
        misread=(
            "unread: power-limit reads -pl and stuck P-states in words, not persistence "
            "mode and application clocks set"
        ),
    ),
    # --- cooling ---
    # https://github.com/ROCm/tensorflow-upstream/issues/213
    _case("Setting the fan to 100%", "cooling"),
    # --- debug-setting ---
    # https://github.com/icon-lab/SynDiff/issues/43
    _case(
        "deleted this line of code: torch.autograd.set_detect_anomaly(True)",
        "debug-setting",
    ),
    # https://github.com/Lightning-AI/pytorch-lightning/issues/12344
    _case(
        "Enabling the Trainer option detect_anomaly",
        "debug-setting",
        backwards=True,
    ),
    # https://github.com/facebookresearch/mmf/pull/434
    _case("Move anomaly detection to an option", "debug-setting"),
    # https://github.com/stanford-iprl-lab/nerf_shared/issues/10
    _case(
        "detect_anomaly(True) in utils.py ... just turn this off",
        "debug-setting",
    ),
    # https://github.com/OpenRLHF/OpenRLHF/pull/46
    _case("remove cuda_launch_blocking", "debug-setting"),
    # https://github.com/k2-fsa/icefall/pull/554
    _case("Disable CUDA_LAUNCH_BLOCKING in wenetspeech recipes.", "debug-setting"),
    # https://github.com/kynema/kynema-sgf/pull/1406
    _case("Turn on CUDA_LAUNCH_BLOCKING only for fcompare", "debug-setting"),
    # https://github.com/ByteDance-Seed/VeOmni/pull/115
    _case("add no_cuda_launch_blocking", "debug-setting"),
    # https://github.com/horenbergerb/BernoulliDiffusion/issues/23
    _case(
        'os.environ["CUDA_LAUNCH_BLOCKING"] = "1" is set in trainer.py',
        "debug-setting",
        backwards=True,
        misread=(
            "unread: a debugging switch set on alone is the rule's A/B reversed, which a "
            "one-sided change cannot say (it had read as turned off, the quotes hiding the =1)"
        ),
    ),
    # --- visible-devices ---
    # https://github.com/chatchat-space/Langchain-Chatchat/issues/1526
    _case("CUDA_VISIBLE_DEVICES=2 python startup.py -a", "visible-devices"),
    # https://github.com/mozilla/DeepSpeech/issues/1457
    _case("run by CUDA_VISIBLE_DEVICES=3 python train.py", "visible-devices"),
    # --- launch-config ---
    # https://github.com/oobabooga/textgen/issues/6424
    _case("using both GPUs without TP", "launch-config"),
    # https://github.com/ollama/ollama/issues/2191
    _case(
        'split_mode = "row"',
        "launch-config",
    ),
    # https://github.com/ollama/ollama/issues/5458
    _case(
        "-sm row",
        "launch-config",
    ),
    # https://github.com/ggml-org/llama.cpp/issues/6043
    _case(
        "Use -sm row to restore the previous behavior",
        "launch-config",
    ),
    # --- none ---
    # https://github.com/intel/ipex-llm/issues/12806
    _case("unsetting the environment variable SYCL_PI_LEVEL_ZERO_USE_IMMEDIATE_COMMANDLISTS", None),
]


def _reading(change: str) -> tuple[str | None, bool]:
    """The rule the experiment command picks for ``change`` in a gpu-throughput@3 case with no
    intake answers, and whether that rule reads the change the other way round."""
    registry = SimpleNamespace(playbook=lambda _name: PLAYBOOK_V3)
    question = SimpleNamespace(playbook="gpu-throughput@3", id=PLAYBOOK_V3.question_id, answers={})
    projection = SimpleNamespace(questions={question.id: question})
    rule = experiment_rule(cast(Any, registry), cast(Any, projection), change, None, None)
    return (None, False) if rule is None else (rule.id, rule.undoes(change))


def test_the_wordings_are_many_and_distinct() -> None:
    changes = [p.values[0] for p in WORDINGS]
    assert len(changes) >= 100
    assert len(set(changes)) == len(changes)


@pytest.mark.parametrize(("change", "rule", "backwards"), WORDINGS)
def test_the_rule_that_should_read_a_change_reads_it_the_right_way(
    change: str, rule: str | None, backwards: bool
) -> None:
    assert _reading(change) == (rule, backwards)
