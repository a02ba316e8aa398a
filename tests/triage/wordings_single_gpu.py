"""Public A/B wordings for the single-GPU, host and version rules (gpu-offload to launch-config,
and one no rule should read), each with its source; read by ``test_wording_breadth``."""

from __future__ import annotations

from tests.triage.wording_case import case

SINGLE_GPU = [
    # --- gpu-offload ---
    # https://github.com/n4ze3m/page-assist/issues/168
    case("num_gpu", "gpu-offload"),
    # https://github.com/evshiron/rocm_lab/issues/13
    case("Without -ngl", "gpu-offload", backwards=True),
    # https://github.com/psugihara/FreeChat/pull/71
    case("-ngl 99", "gpu-offload"),
    # https://github.com/pytorch/torchchat/pull/586
    case(
        "install pytorch nightly with cuda",
        "gpu-offload",
    ),
    # https://github.com/rrtucci/SentenceAx/issues/1
    case(
        "pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu121",
        "gpu-offload",
    ),
    # https://github.com/FP-Studio/framepack-studio/pull/301
    case(
        "Force CUDA torch version to be installed",
        "gpu-offload",
    ),
    # --- fewer-gpus ---
    # https://github.com/vllm-project/vllm/issues/689
    case(
        "When I set tensor_parallel_size to > 1",
        "fewer-gpus",
        backwards=True,
        misread=(
            "wrong rule: launch-config reads a tensor-parallel size; going from one GPU to "
            "several is fewer-gpus read the other way round"
        ),
    ),
    # https://github.com/BlackSamorez/tensor_parallel/issues/117
    case(
        "remove tensor_parallel and instead just use a single GPU",
        "fewer-gpus",
    ),
    # https://github.com/zai-org/ChatGLM-6B/issues/595
    case(
        "修改了CUDA_VISIBLE_DEVICES=0为CUDA_VISIBLE_DEVICES=0,1",
        "fewer-gpus",
        backwards=True,
        misread=(
            "wrong rule: one GPU to two written with 为 (no arrow the normal form knows) is "
            "read by visible-devices, not fewer-gpus the other way round"
        ),
    ),
    # https://github.com/ggml-org/llama.cpp/issues/5619
    case("--split-mode none", "fewer-gpus"),
    # --- data-pipeline ---
    # https://github.com/harryjo97/GDSS/issues/13
    case(
        "Using 4 workers",
        "data-pipeline",
        misread=(
            "unread: data-pipeline reads num_workers / 'loader workers', not a bare worker count"
        ),
    ),
    # https://github.com/aws/sagemaker-pytorch-training-toolkit/issues/117
    case("Running training with num_workers=0", "data-pipeline", backwards=True),
    # https://github.com/visionml/pytracking/issues/121
    case("Buy an SSD", "data-pipeline"),
    # https://github.com/yjxiong/action-detection/issues/41
    case(
        "decrease batch size and increasing number of workers",
        "data-pipeline",
    ),
    # https://github.com/clovaai/voxceleb_trainer/issues/67
    case(
        "use more data loader threads",
        "data-pipeline",
    ),
    # https://github.com/nianticlabs/monodepth2/issues/157
    case(
        "use lru cache on the image loading function",
        "data-pipeline",
    ),
    # https://github.com/kmaninis/OSVOS-PyTorch/pull/38
    case(
        "Add Training Data Cache",
        "data-pipeline",
    ),
    # https://github.com/raspstephan/nwp-downscale/issues/32
    case("Switch to SSD on GPU machine", "data-pipeline"),
    # https://github.com/MILVLG/mcan-vqa/issues/8
    case(
        "num_worker=15",
        "data-pipeline",
    ),
    # https://github.com/AlexeyAB/darknet/issues/4903
    case("Compile Darknet with OpenCV", "data-pipeline"),
    # https://github.com/sthalles/PyTorch-BYOL/pull/17
    case("Add DALI support for faster data loading", "data-pipeline"),
    # --- host-sync ---
    # https://github.com/kohya-ss/musubi-tuner/pull/700
    case(
        "with pinned memory",
        "host-sync",
    ),
    # https://github.com/kohya-ss/musubi-tuner/pull/700
    case(
        "without pinned memory",
        "host-sync",
        backwards=True,
        misread=(
            "unread: host-sync reads pin.?memory, which does not match 'pinned memory' (and "
            "without an arrow it could only read it backwards)"
        ),
    ),
    # https://github.com/constantinpape/torch-em/pull/357
    case("Set non_blocking to True for tensor device allocation", "host-sync"),
    # https://github.com/ostris/ai-toolkit/pull/813
    case("pin_memory: true", "host-sync"),
    # https://github.com/allenai/allennlp/issues/4670
    case(
        "We tried memory pinning",
        "host-sync",
    ),
    # --- host-threads ---
    # https://github.com/kmaninis/OSVOS-PyTorch/issues/19
    case("export OMP_NUM_THREADS=4", "host-threads"),
    # https://github.com/NVIDIA-NeMo/Speech/issues/8141
    case(
        "explicitly set the CPU count per task (directive #SBATCH --cpus-per-task)", "host-threads"
    ),
    # https://github.com/ggml-org/llama.cpp/issues/18
    case("4 threads is much faster than 8", "host-threads"),
    # https://github.com/ggml-org/llama.cpp/issues/767
    case(
        "explicitly setting the number of threads to a substantially lower number",
        "host-threads",
    ),
    # https://github.com/oobabooga/textgen/issues/1639
    case("python server.py --threads 64", "host-threads"),
    # https://github.com/ggml-org/llama.cpp/issues/13735
    case(
        "Try using fewer threads.",
        "host-threads",
    ),
    # --- container-gpus ---
    # https://github.com/NVIDIA/nccl-tests/issues/93
    case(
        "run nccl_test with one docker holding four cards",
        "container-gpus",
    ),
    # https://github.com/NVIDIA/nccl/issues/324
    case(
        "docker run --gpus=all",
        "container-gpus",
    ),
    # https://github.com/NVIDIA/nvidia-docker/issues/1253
    case("if I run in the same container", "container-gpus"),
    # --- cuda-graphs ---
    # https://github.com/ai-dynamo/dynamo/pull/2109
    case("rm enforce eager from vllm deploy", "cuda-graphs"),
    # https://github.com/EleutherAI/lm-evaluation-harness/pull/3020
    case("removes the forced enforce_eager=True", "cuda-graphs"),
    # https://github.com/scaleapi/llm-engine/pull/851
    case("stop forcing --enforce-eager on all LLM endpoints", "cuda-graphs"),
    # https://github.com/vllm-project/vllm/issues/15598
    case(
        "using -- enforce-eager",
        "cuda-graphs",
        backwards=True,
    ),
    # https://github.com/sillsdev/machine.py/issues/72
    case("model = torch.compile(model)", "cuda-graphs"),
    # https://github.com/torchgeo/torchgeo/pull/1225
    case("Use torch.compile if available", "cuda-graphs"),
    # https://github.com/goodfire-ai/spd/pull/322
    case("Speedup with torch compile", "cuda-graphs"),
    # --- weight-bytes ---
    # https://github.com/dphnAI/sonar/pull/294
    case("Use --load-in-4bit to convert the FP16 model weights to 4bit at runtime", "weight-bytes"),
    # https://github.com/turboderp-org/exllamav2/issues/499
    case("[FP16] -> [Q4]", "weight-bytes"),
    # --- batch-size ---
    # https://github.com/junyanz/VON/issues/16
    case("increase batch size", "batch-size"),
    # https://github.com/vllm-project/vllm-omni/pull/5071
    case("changed only max_num_seqs from 8 to 32", "batch-size"),
    # https://github.com/vllm-project/recipes/pull/573
    case(
        "Update max sequence number from 2 to 16",
        "batch-size",
    ),
    # https://github.com/vllm-project/vllm/issues/17598
    case("max-num-seqs value increased from 16 to 32", "batch-size"),
    # --- version ---
    # https://github.com/bmaltais/kohya_ss/issues/884
    case(
        "Roll back on version 21.5.12",
        "version",
    ),
    # https://github.com/bmaltais/kohya_ss/issues/884
    case("downgrade driver on 532.03 version", "version"),
    # https://github.com/vladmandic/sdnext/issues/1638
    case("Downgrade to nvidia driver 531.", "version"),
    # https://github.com/ggml-org/llama.cpp/issues/23765
    case("Update the NVIDIA driver to a version newer than 576.33", "version"),
    # https://github.com/ollama/ollama/issues/8349
    case("upgrading from 0.3.12->0.5.4", "version"),
    # https://github.com/ollama/ollama/issues/8199
    case("upgraded the ollama from 0.1.14 to 0.5.4", "version"),
    # https://github.com/ollama/ollama/issues/11055
    case("After upgrading to CUDA 12.8", "version"),
    # https://github.com/ggml-org/llama.cpp/issues/10977
    case(
        "slowdown between b4363 and b4365",
        "version",
    ),
    # https://github.com/ggml-org/llama.cpp/issues/13735
    case(
        "After release b5450",
        "version",
    ),
    # https://github.com/ikawrakow/ik_llama.cpp/issues/1389
    case("from b4110 to current (b4267)", "version"),
    # --- power-limit ---
    # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/483
    case("I unlocked 140W power consumption", "power-limit"),
    # https://github.com/microsoft/onnxruntime/issues/7449
    case(
        "from adaptive to max/consistent",
        "power-limit",
        misread=(
            "unread: power-limit reads 'power mode', not the driver's power-management "
            "choice named without 'power'"
        ),
    ),
    # https://github.com/jetsonhacks/installCaffeJTX2/issues/1
    case("sudo nvpmodel -m 0", "power-limit"),
    # https://github.com/dusty-nv/jetson-inference/issues/20
    case(
        "used the jetson_max_l4t.sh to max performance with tx1",
        "power-limit",
    ),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/1614
    case(
        "have my power set to 90%",
        "power-limit",
        backwards=True,
        misread=(
            "unread: power-limit reads 'power limit/cap' and watts, not a percentage "
            "setting (a lower limit: the rule's A/B reversed)"
        ),
    ),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/1614
    case("set a lower power/temp limit", "power-limit", backwards=True),
    # https://inventivehq.com/blog/gpu-power-limit-tokens-per-watt
    case(
        "cut the power cap by 17% (180 W → 150 W)",
        "power-limit",
        backwards=True,
    ),
    # https://forums.developer.nvidia.com/t/gpu-is-throttled-nv-gpu-perf-decrease-reason-api-triggered/205097
    case("use nvidia-smi to set the enforced power limit to the maximum", "power-limit"),
    # https://github.com/microsoft/pai/issues/3387
    case("sudo nvidia-smi -pm ENABLED -i 3; sudo nvidia-smi -ac 2505,875 -i 3", "power-limit"),
    # --- cooling ---
    # https://github.com/ROCm/tensorflow-upstream/issues/213
    case("Setting the fan to 100%", "cooling"),
    # --- debug-setting ---
    # https://github.com/icon-lab/SynDiff/issues/43
    case(
        "deleted this line of code: torch.autograd.set_detect_anomaly(True)",
        "debug-setting",
    ),
    # https://github.com/Lightning-AI/pytorch-lightning/issues/12344
    case(
        "Enabling the Trainer option detect_anomaly",
        "debug-setting",
        backwards=True,
    ),
    # https://github.com/facebookresearch/mmf/pull/434
    case("Move anomaly detection to an option", "debug-setting"),
    # https://github.com/stanford-iprl-lab/nerf_shared/issues/10
    case(
        "detect_anomaly(True) in utils.py ... just turn this off",
        "debug-setting",
    ),
    # https://github.com/OpenRLHF/OpenRLHF/pull/46
    case("remove cuda_launch_blocking", "debug-setting"),
    # https://github.com/k2-fsa/icefall/pull/554
    case("Disable CUDA_LAUNCH_BLOCKING in wenetspeech recipes.", "debug-setting"),
    # https://github.com/kynema/kynema-sgf/pull/1406
    case("Turn on CUDA_LAUNCH_BLOCKING only for fcompare", "debug-setting"),
    # https://github.com/ByteDance-Seed/VeOmni/pull/115
    case("add no_cuda_launch_blocking", "debug-setting"),
    # https://github.com/horenbergerb/BernoulliDiffusion/issues/23
    case(
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
    case("CUDA_VISIBLE_DEVICES=2 python startup.py -a", "visible-devices"),
    # https://github.com/mozilla/DeepSpeech/issues/1457
    case("run by CUDA_VISIBLE_DEVICES=3 python train.py", "visible-devices"),
    # --- launch-config ---
    # https://github.com/oobabooga/textgen/issues/6424
    case("using both GPUs without TP", "launch-config"),
    # https://github.com/ollama/ollama/issues/2191
    case(
        'split_mode = "row"',
        "launch-config",
    ),
    # https://github.com/ollama/ollama/issues/5458
    case(
        "-sm row",
        "launch-config",
    ),
    # https://github.com/ggml-org/llama.cpp/issues/6043
    case(
        "Use -sm row to restore the previous behavior",
        "launch-config",
    ),
    # --- none ---
    # https://github.com/intel/ipex-llm/issues/12806
    case("unsetting the environment variable SYCL_PI_LEVEL_ZERO_USE_IMMEDIATE_COMMANDLISTS", None),
]
