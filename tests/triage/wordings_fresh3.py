"""A third round of fresh public A/B wordings, collected and labelled (rule, and which way)
blind, before any reader of gpu-throughput@3 saw them; sources and searches in
cases/dev/notes-fresh-wordings-3.md."""

from __future__ import annotations

from tests.triage.wording_case import case

FRESH3 = [
    # https://github.com/huggingface/accelerate/issues/2328
    case(
        "Why do you unilaterally disable p2p when detecting RTX 3090",
        "p2p-disable",
    ),
    # https://github.com/huggingface/accelerate/pull/2195
    case(
        "Explicitly disable P2P using `launch`, and pick up in `state` if a user will face issues.",
        "p2p-disable",
    ),
    # https://github.com/NVIDIA/nccl/issues/1305
    case(
        "why two GPU far than PXB under intel cpu use P2P will be slower(without NVLink)",
        "p2p-level",
        misread="read as interconnect",
    ),
    # https://github.com/NVIDIA/nccl/issues/525
    case(
        "Notes: setting `NCCL_SHM_DISABLE=1` works.",
        "shm-disable",
    ),
    # https://github.com/NVIDIA/nccl/issues/762
    case("Here Surprisingly Ring is faster than tree.", "algorithm", misread="unread"),
    # https://github.com/NVIDIA/nccl/issues/530
    case(
        "Based on my experiment with NCCL 2.8.3, ring seems to be faster than tree on "
        "AWS P4 machines.",
        "algorithm",
        misread="read as version",
    ),
    # https://github.com/sgl-project/sglang/pull/631
    case("Disable NCCL_NVLS by default", "algorithm"),
    # https://github.com/lightseekorg/tokenspeed/pull/1127
    case("stop forcing NCCL's NVLS and cuMem paths off", "algorithm", misread="unread"),
    # https://github.com/NVIDIA/nccl/issues/1703
    case(
        "To force NCCL to use only one channel, I set the following environment variables:",
        "nccl-override",
    ),
    # https://github.com/ROCm/rocm-systems/issues/11253
    case(
        "Two starts of the same workload, one with `NCCL_MIN_NCHANNELS=112`",
        "nccl-override",
    ),
    # https://github.com/NVIDIA/nccl/issues/387
    case(
        "I have found that NCCL_BUFFSIZE can affect the performance a lot in my case.",
        "nccl-override",
    ),
    # https://github.com/sgl-project/sglang/issues/4436
    case(
        "enable SGLang custom all reduce by default",
        "custom-allreduce-off",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/ray-project/ray/pull/28633
    case("Automatically set `NCCL_SOCKET_IFNAME` to prefer ethernet.", "network-path"),
    # https://github.com/NVIDIA/nccl/issues/398
    case(
        "Set the `NCCL_SOCKET_NTHREADS=4` or `NCCL_SOCKET_NTHREADS=6` didn't seem to "
        "make the bus bandwidth getting better",
        "network-path",
    ),
    # https://github.com/open-mmlab/mmdetection/issues/6817
    case("I updated our device from ethernet to InfiniBand", "network-path"),
    # https://github.com/microsoft/DLWorkspace/pull/694
    case(
        "Add NCCL_IB_DISABLE=1 to disable IB usage in user application",
        "network-path",
    ),
    # https://github.com/BlackSamorez/tensor_parallel/issues/66
    case(
        "nvlink does not affect the result.",
        "interconnect",
    ),
    # https://github.com/horovod/horovod/pull/15
    case(
        "`--mca btl_smcuda_use_cuda_ipc 0` flag for OpenMPI",
        "transport",
        backwards=True,
        misread="read the wrong way round (forwards)",
    ),
    # https://github.com/criteo/tf-yarn/pull/61
    case("Use NCCL when running on GPU and fallback on GLOO", "transport"),
    # https://github.com/xCuri0/ReBarUEFI/issues/67
    case(
        "You need to use option in NVIDIA driver `NVreg_EnableResizableBar=1` to do "
        "resizing by Linux kernel",
        "numa-bios",
    ),
    # https://github.com/Mellanox/ngc_multinode_perf/pull/8
    case(
        "BIOS tuning per CPU",
        "numa-bios",
    ),
    # https://github.com/gbasilveira/telly-spelly/pull/15
    case(
        'Add a `force_gpu` setting plus a "Force GPU (CUDA) acceleration" checkbox in Settings',
        "gpu-offload",
    ),
    # https://github.com/OHF-Voice/piper1-gpl/issues/116
    case(
        "When enabling GPU acceleration in Piper (use_cuda=True), inference becomes "
        "slower than CPU-only mode.",
        "gpu-offload",
    ),
    # https://github.com/ggml-org/whisper.cpp/pull/1472
    case("whisper : add full CUDA and Metal offloading", "gpu-offload", misread="unread"),
    # https://github.com/ggml-org/whisper.cpp/issues/89
    case(
        "with cuBLAS encoder runs ~10x quicker",
        "gpu-offload",
    ),
    # https://github.com/QwenLM/Qwen3-Embedding/issues/73
    case("采用transformers单卡推理，速度比2卡慢很多", "fewer-gpus"),
    # https://github.com/QwenLM/Qwen/issues/744
    case("试了一下限制在一张卡跑，仍然很慢", "fewer-gpus"),
    # https://github.com/QwenLM/Qwen/issues/511
    case(
        "单机单卡推机大约7s，换成8卡之后变成了40s了", "fewer-gpus", backwards=True, misread="unread"
    ),
    # https://github.com/PKU-YuanGroup/Video-LLaVA/issues/105
    case(
        'You can specify device_map = {"",0} to load everything on the same CUDA device',
        "fewer-gpus",
        misread="unread",
    ),
    # https://github.com/Peterande/D-FINE/issues/5
    case(
        "I already changed num_workers: 0 in dataloader.yml",
        "data-pipeline",
        backwards=True,
    ),
    # https://github.com/svc-develop-team/so-vits-svc/issues/101
    case("尝试过把num_works改成24，但是比原来更慢了", "data-pipeline"),
    # https://github.com/SaladTechnologies/comfyui-api/issues/77
    case(
        "if you enable the --highvram option in ComfyUI’s startup parameters, models "
        "will remain loaded",
        "host-sync",
        misread="unread",
    ),
    # https://github.com/hpcaitech/ColossalAI/issues/3331
    case(
        "finally I use placement_policy='cpu' with colossalai_zero2 and use 4 gpus can run normal",
        "host-sync",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/vllm-project/vime/pull/445
    case(
        "an explicit `--no-offload-train` is honoured under `--colocate`",
        "host-sync",
        misread="unread",
    ),
    # https://github.com/NVIDIA-NeMo/RL/pull/3628
    case("optimizer_cpu_offload: true", "host-sync", backwards=True, misread="unread"),
    # https://github.com/ggml-org/whisper.cpp/issues/220
    case(
        "Use of NVBLAS_AUTOPIN_MEM_ENABLED flag can be essential for good performance",
        "host-sync",
        misread="unread",
    ),
    # https://github.com/transferable-samplers/transferable-samplers/pull/12
    case("Set torch num threads to 2 instead of autodetect", "host-threads"),
    # https://github.com/mir-group/nequip/issues/495
    case(
        "I found that dataset pre-processing was much faster when setting `OMP_NUM_THREADS=1`",
        "host-threads",
    ),
    # https://github.com/NVlabs/stylegan2-ada-pytorch/issues/310
    case(
        "Upon stopping one of the docker containers, the training speed increases back to normal.",
        "host-threads",
        misread="unread",
    ),
    # https://github.com/aws/sagemaker-pytorch-training-toolkit/pull/27
    case(
        "Do not run nccl backend in local mode in multiple containers.",
        "container-gpus",
    ),
    # https://github.com/huggingface/text-generation-inference/pull/1703
    case(
        '--cuda-graphs "0"  # Disabling it entirely',
        "cuda-graphs",
        backwards=True,
    ),
    # https://github.com/ggml-org/llama.cpp/pull/27721
    case(
        "One of these is manually unlocking CUDA graphs.",
        "cuda-graphs",
    ),
    # https://github.com/NVIDIA/JAX-Toolbox/pull/708
    case(
        "`--xla_gpu_cuda_graph_level=0`: Disallows XLA from using CUDA graphs.",
        "cuda-graphs",
        backwards=True,
    ),
    # https://github.com/tonyd2wild/DeepSeek-v4-Flash-Vision-Exp-DSpark-1M-NVFP4-KV-2x-DGX-Spark/pull/5
    case(
        "Fix max-cudagraph-capture-size truncation",
        "cuda-graphs",
    ),
    # https://github.com/vllm-project/vllm-ascend/issues/16049
    case(
        "off-stride `max_num_seqs` silently disables ACL graph capture for the largest "
        "batches (~7.5x slower decode)",
        "cuda-graphs",
        backwards=True,
        misread="read as batch-size",
    ),
    # https://github.com/pytorch/torchtitan/pull/3685
    case(
        "vLLM generator: use FULL_DECODE_ONLY cudagraph mode",
        "cuda-graphs",
    ),
    # https://github.com/NavodPeiris/speechlib/pull/39
    case(
        "added fp16 support when running regular whisper on gpu", "weight-bytes", misread="unread"
    ),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/9838
    case(
        "`--no-half` is what gives me +200% speed.",
        "weight-bytes",
        backwards=True,
        misread="unread",
    ),
    # https://binzhango.github.io/2025/10/vllm-throughput
    case(
        "Quantise the KV-cache (FP8) to increase capacity",
        "weight-bytes",
    ),
    # https://github.com/bitsandbytes-foundation/bitsandbytes/issues/490
    case(
        "`load_in_8bit` is extremely slow, about 5x as slow as bf16, and 150% slower "
        "than load_in_4bit.",
        "weight-bytes",
        misread="unread",
    ),
    # https://github.com/lm-sys/FastChat/issues/2692
    case(
        "why use --load-8bit is more slow than not add",
        "weight-bytes",
    ),
    # https://github.com/ionfury/homelab/pull/1355
    case(
        "`OLLAMA_KV_CACHE_TYPE=q8_0` — quantizes KV cache from fp16 to q8_0, halving "
        "cache VRAM usage",
        "weight-bytes",
    ),
    # https://github.com/Hal0ai/hal0/pull/1067
    case(
        "our explicit `--parallel 1` opts out of upstream's multi-client default.",
        "batch-size",
        backwards=True,
    ),
    # https://github.com/SYSTRAN/faster-whisper/issues/1143
    case(
        "I tested with batch sizes of 64, 128, and 512 on an A100 GPU.",
        "batch-size",
    ),
    # https://github.com/speaches-ai/speaches/issues/169
    case(
        "faster whisper recently added BatchedInference support in version 1.1.0, "
        "allowing up to **4x faster transcription**",
        "batch-size",
    ),
    # https://github.com/0jc1/py-autovod/pull/228
    case(
        "enables the new `[clipception.transcription]` options (`batched = true`, "
        "`batch_size = 8`)",
        "batch-size",
    ),
    # https://github.com/ollama/ollama/issues/11310
    case(
        "单独设置OLLAMA_NUM_PARALLEL =1,则输出的每秒tokens会下降20%",
        "batch-size",
        backwards=True,
    ),
    # https://github.com/Comfy-Org/ComfyUI/issues/4757
    case(
        "Update your pytorch to at least 2.3 and your nvidia drivers to the latest.",
        "version",
    ),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/pull/10681
    case(
        "You may consider migrating to PyTorch 2.1 early and experience performance "
        "improvements at the same time.",
        "version",
    ),
    # https://github.com/tbepler/topaz/issues/255
    case(
        "run time in v0.3.18 was more than two times as long as in v0.2.5",
        "version",
        misread="unread",
    ),
    # https://github.com/pkuliyi2015/multidiffusion-upscaler-for-automatic1111/issues/250
    case("rollback your nvidia driver back to 531.xx.", "version"),
    # https://github.com/mosaicml/llm-foundry/issues/464
    case("[FEATURE] Upgrade to FlashAttention V2 (2x speed up)", "version", misread="unread"),
    # https://github.com/pytorch/helion/pull/3572
    case(
        "Warm the GPU to its steady clock before the autotuner's final verification",
        "heat-soak",
        misread="unread",
    ),
    # https://www.varidata.com/blog-tc/does-gpu-heat-cause-throttling-during-training/
    case(
        "a GPU can look healthy in a quick test and still sag during a full epoch once "
        "the entire server reaches thermal equilibrium",
        "heat-soak",
    ),
    # https://github.com/Gy920/segment-anything-2-real-time/issues/18
    case(
        "Don't forget to activate the full power of the jetson using 'sudo "
        "/usr/jetson_clocks --fan'",
        "power-limit",
    ),
    # https://github.com/NVIDIA-AI-IOT/Lidar_AI_Solution/issues/175
    case(
        "Change to MAXN can use the command: `sudo nvpmodel -m 0`.",
        "power-limit",
    ),
    # https://github.com/jakeday/linux-surface/issues/360
    case(
        "You're right, disconnecting the power immediately pulls the clock down to 139 MHz.",
        "power-limit",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/12029
    case(
        "When i launch web ui with `--ui-debug-mode` argument, i get the speed around 16 "
        "it/s as opposed to 25 it/s without it",
        "debug-setting",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/plasma-umass/scalene/issues/634
    case(
        "Docs: recommend CUDA_LAUNCH_BLOCKING=1", "debug-setting", backwards=True, misread="unread"
    ),
    # https://github.com/ashleve/lightning-hydra-template/pull/342
    case(
        "Add `deterministic` flag to default trainer config",
        "debug-setting",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/alibaba/rtp-llm/issues/64
    case("若把模型从cuda1设备移至cuda0则速度就不受影响", "visible-devices", misread="unread"),
    # https://github.com/NVIDIA/Megatron-LM/issues/258
    case(
        "The comparison is done using 8 tensor parallelism size and 8 pipeline parallelism.",
        "launch-config",
    ),
    # https://github.com/pytorch/ci-infra/pull/490
    case("Add /dev/shm tmpfs mount to workflow pods", "launch-config"),
    # https://github.com/deepspeedai/DeepSpeed/issues/3338
    case(
        "I manually set bucket size to 5e10, which is sufficiently large to disable bucketing",
        None,
    ),
    # https://github.com/deepspeedai/DeepSpeedExamples/pull/846
    case(
        "Enable overlap of backward computation and gradient all-reduce.",
        None,
    ),
    # https://github.com/horovod/horovod/pull/2468
    case(
        "Changed default cycle time from 5ms to 1ms and fusion threshold from 64MB to 128MB",
        None,
    ),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/pull/8367
    case(
        "To use it, remove all xformers-related flags and add flag `--opt-sdp-attention` "
        "to your webui-user file.",
        None,
    ),
    # https://github.com/Tanguille/cluster/pull/3258
    case(
        "Removing MTP lets continuous batching actually scale the slots.",
        None,
        misread="read as batch-size",
    ),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/287
    case(
        "Use the main branch and build with `-multi-block-mode`",
        None,
    ),
    # https://github.com/neuroailab/VIE/issues/15
    case(
        "you can use change image resolutions to 112, it will make the training faster",
        None,
    ),
    # https://github.com/mattn/tensai/pull/143
    case(
        "Measure steady state in bench instead of one cold pass",
        None,
    ),
    # https://fridayswithfaraday.com/posts/vllm-v1-configuration-tuning-guide
    case("Changing gpu_memory_utilization from 0.9 to 0.95 can increase throughput by 15%.", None),
    # https://github.com/huggingface/transformers/issues/28022
    case(
        "I found enabling GC didn't save memory and didn't slow down training, which is "
        "weird to me.",
        None,
    ),
    # https://github.com/hiyouga/LlamaFactory/issues/1556
    case(
        "开启FlashAttention-2后，预训练速度变慢",
        None,
    ),
    # https://github.com/ollama/ollama/issues/11310
    case(
        "为什么我单独设置OLLAMA_FLASH_ATTENTION=1,则输出的每秒tokens会下降35%",
        None,
    ),
    # https://github.com/turboderp-org/exllamav2/issues/199
    case(
        "You can disable it `no_flash_attn = True` in the config or with `-nfa` on the "
        "command line.",
        None,
    ),
]
