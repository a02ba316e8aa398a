"""Fresh public A/B wordings, collected and labelled (rule, and which way) before any reader of
gpu-throughput@3 saw them; see benchmarks/README.md for what the readers make of them."""

from __future__ import annotations

from tests.triage.wording_case import case

FRESH = [
    # https://github.com/NVIDIA/nccl/issues/1614
    case("After the 4090 four card P2P was enabled", "p2p-disable", backwards=True),
    # https://github.com/vllm-project/vllm/issues/5484
    case("With your recommended `NCCL_P2P_DISABLE=1`", "p2p-disable"),
    # https://github.com/huggingface/accelerate/pull/2666
    case(
        "this PR allows people to try out P2P comms",
        "p2p-disable",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/NVIDIA/nccl/issues/1817
    case("when I set NCCL_P2P_LEVEL=SYS", "p2p-level"),
    # https://github.com/NVIDIA/nccl/issues/1817
    case("try with `NCCL_P2P_LEVEL=NODE` to at least limit it to each NUMA node", "p2p-level"),
    # https://github.com/vllm-project/vllm/issues/8087
    case("`NCCL_P2P_LEVEL=NVL`", "p2p-level"),
    # https://github.com/NVIDIA/nccl/issues/342
    case("Set environment variables `NCCL_SHM_DISABLE=1`", "shm-disable"),
    # https://github.com/NVIDIA/nccl/pull/602
    case("admins would want to set `NCCL_SHM_DISABLE=1`", "shm-disable"),
    # https://github.com/NVIDIA/nccl/issues/1368
    case("-x NCCL_ALGO=Ring", "algorithm"),
    # https://github.com/NVIDIA/nccl-tests/issues/312
    case("NCCL_NVLS_ENABLE=1  NCCL_ALGO=NVLS", "algorithm"),
    # https://github.com/NVIDIA/nccl-tests/issues/352
    case("we tried forcing the tree algorithm with NCCL_ALGO", "algorithm"),
    # https://github.com/LambdaLabsML/distributed-training-guide/issues/41
    case("Try setting `NCCL_MIN_NCHANNELS=32` for 405b", "nccl-override"),
    # https://github.com/NVIDIA/nccl/issues/559
    case("increasing the NCCL_BUFFSIZE to 16", "nccl-override"),
    # https://github.com/NVIDIA/nccl-tests/issues/86
    case("inject it inside the VM using `NCCL_TOPO_FILE`", "nccl-override"),
    # https://github.com/sgl-project/sglang/pull/1148
    case("after setting disable-custom-all-reduce", "custom-allreduce-off"),
    # https://github.com/1CatAI/1Cat-vLLM/pull/88
    case("--disable-custom-all-reduce", "custom-allreduce-off"),
    # https://github.com/ROCm/vllm/pull/287
    case("disable custom all reduce when two Navi GPUs are used", "custom-allreduce-off"),
    # https://github.com/NVIDIA/nccl-tests/issues/252
    case("adding the parameter NCCL_NET_GDR_LEVEL=0", "network-path"),
    # https://github.com/hiyouga/LlamaFactory/issues/3641
    case("在运行时指定NCCL_IB_DISABLE=1", "network-path"),
    # https://github.com/ROCm/rccl/issues/328
    case("export NCCL_SOCKET_IFNAME=eth0", "network-path"),
    # https://github.com/AlexeyAB/darknet/issues/2807
    case("After i switched all gpu's to the black pci-express slots", "pcie-link"),
    # https://github.com/NVIDIA/nccl/issues/340
    case("I decided to swith pci slot for two cards", "pcie-link"),
    # https://github.com/Cyridd/cmpunlocker/issues/4
    case("The latest version successfully unlocked pcie gen2", "pcie-link"),
    # https://github.com/NVIDIA/nccl/issues/340
    case(
        "I tear up the NVLINK BRIDGE, use only the  pcb board and outer case, "
        "and plug it in fully.",
        "interconnect",
    ),
    # https://github.com/NVIDIA/DeepLearningExamples/issues/1197
    case("A100 4 Gpus x 80G SXM Form Factor", "interconnect"),
    # https://github.com/vllm-project/vllm/pull/51377
    case("Enabled via `VLLM_KV_CACHE_FABRIC=1`", "interconnect", misread="unread"),
    # https://github.com/NVIDIA/nccl/pull/602
    case("Disable NET transport for intra-node communication by setting the env to 1", "transport"),
    # https://github.com/ultralytics/yolov5/pull/3705
    case(
        'The DDP backend now dynamically selects "nccl" if available', "transport", misread="unread"
    ),
    # https://github.com/NVIDIA/nccl/issues/907
    case("When we set NCCL_P2P_USE_CUDA_MEMCPY=1", "transport", misread="unread"),
    # https://github.com/NVIDIA/nccl-tests/issues/252
    case("After following your suggestion to disable ACS", "iommu-acs-off"),
    # https://github.com/vllm-project/vllm/issues/9920
    case("disable ACS and IOMMU solved the issue", "iommu-acs-off"),
    # https://github.com/harvester/harvester-installer/pull/364
    case("Add iommu=pt for PCI passthrough", "iommu-acs-off"),
    # https://github.com/NVIDIA/nccl/issues/182
    case("Turning off SVM (VT)", "numa-bios", misread="unread"),
    # https://github.com/NVIDIA/nccl/issues/182
    case("in BIOS, C-states should be disabled and Performance mode be checked", "numa-bios"),
    # https://github.com/ovh/infrastructure-roadmap/issues/468
    case("NPS2 or NPS1 would be more appropriate", "numa-bios"),
    # https://github.com/pytorch/torchtitan/pull/3519
    case("Pin each worker to the NUMA node of its GPU", "numa-binding"),
    # https://github.com/facebookresearch/d2go/pull/472
    case("Add NUMA binding to d2go", "numa-binding"),
    # https://github.com/mosaicml/composer/issues/3274
    case("use `numactl` to bind processes to NUMA nodes or physical cores", "numa-binding"),
    # https://github.com/ggml-org/llama.cpp/issues/9881
    case("specify the number of layers that you want to off load to the GPU", "gpu-offload"),
    # https://github.com/ggml-org/llama.cpp/pull/26622
    case(
        "Putting dense model layers on the CPU via `--ngl`",
        "gpu-offload",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/abetlen/llama-cpp-python/issues/1723
    case("`CMAKE_ARGS=-DGGML_CUDA=on`", "gpu-offload"),
    # https://github.com/openinterpreter/openinterpreter/issues/114
    case(
        'CMAKE_ARGS="-DLLAMA_CUBLAS=on" FORCE_CMAKE=1 pip install --upgrade --force-reinstall '
        "llama-cpp-python --no-cache-dir",
        "gpu-offload",
    ),
    # https://github.com/deepfakes/faceswap/issues/709
    case("Then I tested using 2 GPUS", "fewer-gpus", misread="unread"),
    # https://github.com/Fredreic1849/BranchGRPO/issues/8
    case("当使用16gpu训练", "fewer-gpus", backwards=True, misread="unread"),
    # https://github.com/xuebinqin/U-2-Net/pull/400
    case(
        "enable multi-gpu training ( torch.nn.DataParallel)",
        "fewer-gpus",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/ollama/ollama/issues/1656
    case(
        "changed the value of `CUDA_VISIBLE_DEVICES`  from `0,1` to `0`",
        "fewer-gpus",
        misread="read as visible-devices",
    ),
    # https://github.com/HabanaAI/vllm-fork/issues/204
    case("--tensor-parallel-size 2", "fewer-gpus", backwards=True, misread="read as launch-config"),
    # https://github.com/rosinality/style-based-gan-pytorch/issues/108
    case("using 1 workers", "data-pipeline", backwards=True, misread="unread"),
    # https://github.com/NVlabs/Deep_Object_Pose/issues/88
    case(
        "I have set num_workers to 0",
        "data-pipeline",
        backwards=True,
    ),
    # https://github.com/allenai/rslearn_projects/issues/193
    case("setting `data.init_args.num_workers=16`", "data-pipeline"),
    # https://github.com/aigc-apps/EasyAnimate/issues/64
    case("try to increase dataloader_num_workers", "data-pipeline"),
    # https://github.com/openvdb/fvdb-reality-capture/pull/144
    case(
        "we defer the first call in the pbar update until later on in the loop",
        "host-sync",
        misread="unread",
    ),
    # https://github.com/meta-pytorch/torchtune/pull/522
    case("we move the loss.item() operation into log_every_n_steps block", "host-sync"),
    # https://github.com/pytorch/pytorch/issues/44103
    case("After removing the item function", "host-sync"),
    # https://github.com/HuguesTHOMAS/KPConv-PyTorch/issues/22
    case("removing torch.cuda.synchronize", "host-sync"),
    # https://github.com/vllm-project/vllm/pull/6109
    case(
        "set OMP_NUM_THREADS to 1 by default when using the multiproc_gpu_executor", "host-threads"
    ),
    # https://github.com/deepjavalibrary/djl-serving/pull/1073
    case("Change default OMP_NUM_THREADS back to 1 for GPU", "host-threads"),
    # https://github.com/XPixelGroup/DiffBIR/issues/130
    case("torch.set_num_threads(17)", "host-threads"),
    # https://github.com/mozilla/TTS/issues/194
    case("Lowering openmp thread count", "host-threads"),
    # https://github.com/NVIDIA/nvidia-docker/issues/1706
    case("each vm bound with one card", "container-gpus", backwards=True, misread="unread"),
    # https://github.com/googledatalab/datalab/pull/1943
    case("Multiple GPUs much each be mapped into docker.", "container-gpus", misread="unread"),
    # https://github.com/ROCm/ROCm-docker/issues/111
    case(
        'run 2 instances of rocm-docker with "--gpus 0" and "--gpus 1"',
        "container-gpus",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/flagos-ai/vllm-plugin-FL/issues/396
    case("去掉 `--enforce-eager`", "cuda-graphs", misread="read the wrong way round (backwards)"),
    # https://github.com/huggingface/trl/pull/3310
    case("enforce_eager=True,  # dp requires eager mode", "cuda-graphs", backwards=True),
    # https://github.com/sgl-project/sglang/pull/1401
    case(
        "triton w/o cuda graph",
        "cuda-graphs",
        backwards=True,
        misread="read the wrong way round (forwards)",
    ),
    # https://github.com/ggml-org/llama.cpp/pull/6766
    case("Introduction of CUDA Graphs to LLama.cpp", "cuda-graphs"),
    # https://github.com/sgl-project/sglang/issues/2087
    case("with `--kv-cache-dtype fp8_e5m2`", "weight-bytes"),
    # https://github.com/vllm-project/vllm/pull/2279
    case("Quantize KV Cache to fp8", "weight-bytes"),
    # https://github.com/casper-hansen/AutoAWQ/issues/645
    case("quantization : awq int4", "weight-bytes"),
    # https://github.com/franciszzj/Leffa/issues/34
    case("Manually turning it back to float16", "weight-bytes", misread="unread"),
    # https://github.com/aliyun/conditional-lane-detection/issues/15
    case("将batchsize修改为64", "batch-size"),
    # https://github.com/weiliu89/caffe/issues/207
    case("with batch_size = 8", "batch-size"),
    # https://github.com/vllm-project/vllm/issues/9722
    case("Maximum request concurrency: 40", "batch-size"),
    # https://github.com/dnv2003/v100-skinny/issues/2
    case("with MNS=2", "batch-size", misread="unread"),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/1240
    case("compared to the previous TRT-LLM (v0.6.1) version", "version"),
    # https://github.com/ollama/ollama/issues/8023
    case("Back to v0.3.11 for the build", "version"),
    # https://github.com/NVIDIA/nccl/issues/770
    case("with NCCL 2.14.3 that I've been using up to now", "version"),
    # https://github.com/ollama/ollama/issues/16415
    case("After upgrading from driver 535 to 570", "version"),
    # https://github.com/vlfeat/matconvnet-fcn/issues/40
    case("after about an hour", "heat-soak", misread="unread"),
    # https://github.com/vlfeat/matconvnet-fcn/issues/40
    case("If we restart the training process", "heat-soak", backwards=True, misread="unread"),
    # https://github.com/jundot/omlx/issues/2689
    case("Running points **back-to-back**", "heat-soak", misread="unread"),
    # https://github.com/tlkh/tf-metal-experiments/issues/4
    case(
        "when you run the M1 Max in _low_ power mode",
        "power-limit",
        backwards=True,
        misread="read the wrong way round (forwards)",
    ),
    # https://github.com/nicehash/NiceHashQuickMiner/issues/223
    case(
        "When I set power limit to about 60%",
        "power-limit",
        backwards=True,
    ),
    # https://github.com/Tanguille/cluster/pull/4137
    case("Raises `POWER_LIMIT_WATTS` 210 → 250", "power-limit"),
    # https://github.com/xor2k/gpu_undervolt/issues/7
    case(
        "save around 100W (285 instead of 385)",
        "power-limit",
        backwards=True,
    ),
    # https://github.com/nicehash/NiceHashMiner/issues/391
    case("now my rig is opened", "cooling"),
    # https://github.com/ethereum-mining/ethminer/issues/879
    case("hook up some case fans on your rig", "cooling"),
    # https://github.com/system76/thelio/issues/40
    case("When I switched the GPUs out for two blower cards", "cooling"),
    # https://github.com/victorchall/EveryDream2trainer/pull/180
    case(
        "Added in torch anomaly detection",
        "debug-setting",
        backwards=True,
        misread="read the wrong way round (forwards)",
    ),
    # https://github.com/pytorch/pytorch/issues/51349
    case("If comment out the `set_detect_anomaly` line", "debug-setting"),
    # https://github.com/NVIDIA/nccl/issues/258
    case("compiling with debug", "debug-setting", backwards=True, misread="read as cuda-graphs"),
    # https://github.com/pytorch/pytorch/pull/110167
    case("Adding debug_msg only when guards log is enabled", "debug-setting", misread="unread"),
    # https://github.com/ollama/ollama/issues/7497
    case("set CUDA_VISIBLE_DEVICES=0,1", "visible-devices"),
    # https://github.com/ggml-org/llama.cpp/issues/12838
    case('$env:CUDA_VISIBLE_DEVICES = "0";', "visible-devices", misread="read as fewer-gpus"),
    # https://github.com/NVIDIA/nccl/issues/1130
    case(
        "using only devices 0,1,6,7 distributed across NUMA nodes",
        "visible-devices",
    ),
    # https://github.com/AlexeyAB/darknet/issues/6982
    case("by setting CUDA_DEVICE_ORDER=PCI_BUS_ID", "visible-devices"),
    # https://github.com/fal-ai-community/video-diffusion-speedrun/issues/2
    case("adding ` --shm-size=1g ` flag to Docker", "launch-config"),
    # https://github.com/AI-Hypercomputer/maxtext/pull/298
    case("`--shm-size`  is increased to `1g` for `docker run` on GPU", "launch-config"),
    # https://github.com/turboderp-org/exllamav2/issues/734
    case("With Tensor Parallelism", "launch-config"),
    # https://github.com/apache/mxnet/issues/20103
    case("I set kvstore = ‘local’ instead of 'decive'", "launch-config", misread="unread"),
    # https://github.com/microsoft/DLWorkspace/pull/1070
    case("disable nvlink related metrics", None),
    # https://github.com/RVC-Project/Retrieval-based-Voice-Conversion-WebUI/issues/1587
    case("I recently switched my 2060 SUPER 8gb for a 4060ti 16gb", None),
    # https://github.com/ostris/ai-toolkit/issues/225
    case("removing everything related to logs in the config file", None),
    # https://github.com/andysalerno/r9700-serving/issues/11
    case("with Qwen3.8", None),
    # https://github.com/sudoingX/qwen38-mtp/pull/5
    case("--spec-type draft-mtp --spec-draft-n-max 2", None),
    # https://github.com/dnv2003/v100-skinny/issues/2
    case("removing `--speculative-config` switch", None),
    # https://github.com/ultralytics/yolov3/issues/659
    case("I forget opening my anchor visualization code, which is time-consuming, close it", None),
    # https://github.com/bmaltais/kohya_ss/issues/1512
    case("turned off the function of generating images (Sample every n epochs=0)", None),
    # https://github.com/vllm-project/vllm/issues/13273
    case("我换了台机器就可以了", None),
    # https://github.com/deepset-ai/FARM/pull/504
    case("This PR adds a warm up run", None),
    # https://github.com/ggml-org/llama.cpp/pull/8187
    case("forces the warm-up to generate the full `n_gen` tokens", None),
    # https://github.com/qi-hua/async_cosyvoice/issues/92
    case("when we change the prompt speech in every time", None),
    # https://github.com/modelscope/ms-swift/issues/9626
    case("或者你试试 infer_backend vllm", None),
    # https://github.com/inferencerlabs/inferencer-feedback/issues/224
    case("enable persistent prompt caching", None),
    # https://github.com/mlcommons/training/issues/130
    case("running seed=1 and seed=2", None),
    # https://github.com/wandb/wandb/issues/8666
    case("Removing `wandb.log`", None),
    # https://github.com/facebookresearch/fairchem/pull/747
    case("Hide wandb.watch behind flag", None),
    # https://github.com/wandb/wandb/issues/950
    case("wandb.tensorboard.configure(rate_limit_seconds=2)", None),
    # https://github.com/pytorch/pytorch/issues/40134
    case("torch.backends.cudnn.benchmark = False", None),
    # https://github.com/NVlabs/Deep_Object_Pose/issues/88
    case("I have swapped to a linux OS", None),
]
