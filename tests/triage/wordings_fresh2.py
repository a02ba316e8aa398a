"""A second round of fresh public A/B wordings, collected and labelled (rule, and which way)
blind, before any reader of gpu-throughput@3 saw them; sources and searches in
cases/dev/notes-fresh-wordings-2.md."""

from __future__ import annotations

from tests.triage.wording_case import case

FRESH2 = [
    # https://github.com/facebookresearch/dinov2/issues/161
    case("had to disable p2p communication for it to even start", "p2p-disable"),
    # https://github.com/vllm-project/vllm/pull/36570
    case("Set NCCL_P2P_DISABLE=1 on non-fully-connected CUDA topology", "p2p-disable"),
    # https://github.com/NVIDIA/nccl/issues/332
    case("Setting the environnment variable NCCL_P2P_LEVEL to 1, 2, 3, 4, 5", "p2p-level"),
    # https://github.com/pytorch/pytorch/issues/73496
    case("I solved this problem by set NCCL_P2P_LEVEL=NVL.", "p2p-level"),
    # https://github.com/ROCm/rccl-tests/issues/96
    case("export NCCL_SHM_Disable=1", "shm-disable"),
    # https://github.com/NVIDIA/nccl/issues/1304
    case("when running with NCCL_ALGO=Tree,NCCL_PROTO=Simple", "algorithm"),
    # https://github.com/NVIDIA/nccl/issues/211
    case(
        "To force the ring algorithm for all sizes, you can set `NCCL_TREE_THRESHOLD` to 0.",
        "algorithm",
    ),
    # https://github.com/NVIDIA/nccl/issues/306
    case("trying to disable it (`NCCL_PROTO=^LL`)", "algorithm"),
    # https://github.com/NVIDIA/nccl/issues/238
    case("I worked around this problem by NCCL_LL_THRESHOLD=0.", "algorithm"),
    # https://github.com/NVIDIA/nccl-tests/issues/309
    case("`NCCL_MIN_CTAS=24` may get you above 380 GB/s", "nccl-override"),
    # https://github.com/FujitsuPolycom/sparkring/issues/193
    case("The +10.7% C6 that `NCCL_MAX_NCHANNELS=8` gives on tonyd2wild's fleet", "nccl-override"),
    # https://github.com/NVIDIA/nccl/issues/1739
    case("setting ll buffsize to 120B=122880 works fine", "nccl-override"),
    # https://github.com/ROCm/rccl/pull/1940
    case(
        "Changed the number of channels selected for reduceScatter on multi-node gfx950.",
        "nccl-override",
    ),
    # https://github.com/ROCm/rocm-systems/pull/9764
    case(
        "channels for multi-node collectives on MI350X/MI355X in SPX mode has been "
        "reduced from 64 to 48",
        "nccl-override",
    ),
    # https://github.com/weicj/vLLM-2080Ti-Definitive/pull/153
    case(
        "generalize PCIe custom all-reduce",
        "custom-allreduce-off",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/16899
    case("Custom all-reduce kernels are disabled, falling back to NCCL.", "custom-allreduce-off"),
    # https://github.com/HYGON-AI/vllm-plugin-das/issues/54
    case("`--disable-custom-all-reduce` (HCCL fallback) is stable.", "custom-allreduce-off"),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/1601
    case(
        "disabling `use_custom_all_reduce` solved the reported issue with TRT-LLM 0.11.0",
        "custom-allreduce-off",
    ),
    # https://github.com/NVIDIA/nccl-tests/issues/309
    case("Does your environment enable the nvidia_peermem module?", "network-path"),
    # https://github.com/NVIDIA/nccl/issues/465
    case(
        "I've installed the libibverbs drivers (without which I was getting 4GBps (IPoIB))",
        "network-path",
    ),
    # https://github.com/NVIDIA/nccl/issues/412
    case(
        "have the GPU Direct RDMA kernel module loaded (`nvidia-peermem` or `nv_peer_mem`)",
        "network-path",
    ),
    # https://github.com/Azure/aks-rdma-infiniband/pull/36
    case("force GPUDirect RDMA when running verify_gpudirect_rdma.py", "network-path"),
    # https://github.com/Tiiny-AI/PowerInfer/issues/237
    case(
        "My PCIe is degraded from version 4.0 to 2.0",
        "pcie-link",
        backwards=True,
    ),
    # https://github.com/loongson-community/discussions/issues/121
    case("setpci -s 0a:00.0 CAP_EXP+0x30.W=0x0004   # Gen4", "pcie-link"),
    # https://github.com/EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-Windows-10/issues/425
    case("I recently have 2 x 2070 super connected via NVlink.", "interconnect"),
    # https://github.com/bmaltais/kohya_ss/issues/2366
    case("you need to switch the backend to gloo", "transport", backwards=True),
    # https://github.com/ai-dynamo/nixl/issues/366
    case("UCX_TLS=cuda_ipc,cuda_copy,rc,tcp", "transport"),
    # https://github.com/ai-dynamo/nixl/issues/1097
    case(
        "I tried to use nixl[cu12] and configure cuda_ipc for two process communitication",
        "transport",
    ),
    # https://github.com/ai-dynamo/nixl/pull/1169
    case("Removed `UCX_TLS=^cuda_ipc` export from build script", "transport"),
    # https://github.com/facebookresearch/Detectron/issues/32
    case(
        "switch the all-reduce implementation to nccl by passing USE_NCCL True to train_net.py",
        "transport",
        misread="unread",
    ),
    # https://github.com/gardenlinux/gardenlinux/issues/4556
    case("we'd prefer a supported way to enable `iommu=pt`", "iommu-acs-off"),
    # https://github.com/tinygrad/open-gpu-kernel-modules/pull/22
    case("I have disabled iommu in grub.", "iommu-acs-off"),
    # https://github.com/NVIDIA/nccl/issues/489
    case("Also disabling ACS will probably help performance.", "iommu-acs-off"),
    # https://github.com/ROCm/legacy-rocm-build/pull/3416
    case("Disabling NUMA balancing", "numa-bios"),
    # https://github.com/spectrocloud/librarium/pull/11685
    case("told readers to enable Resizable BAR", "numa-bios"),
    # https://github.com/sapcc/helm-charts/pull/12427
    case("SubNumaClustering: Disabled", "numa-bios"),
    # https://github.com/huggingface/text-generation-inference/issues/1874
    case("Automatic NUMA binding", "numa-binding"),
    # https://github.com/stanford-futuredata/gavel/pull/197
    case("Restrict CPUs assigned to GPUs with NUMA", "numa-binding"),
    # https://github.com/apple-aiml-research/ml-depth-pro/issues/64
    case("I did model = model.cuda()  and image = image.cuda()", "gpu-offload"),
    # https://github.com/Lex-au/Orpheus-FastAPI/issues/50
    case("--n-gpu-layers -1", "gpu-offload"),
    # https://github.com/LostRuins/koboldcpp/issues/2347
    case(
        "it turned out that some of the layers are running on the CPU, fixed it",
        "gpu-offload",
        misread="unread",
    ),
    # https://github.com/LostRuins/koboldcpp/issues/723
    case(
        "If you want to get a generation speedup, you should offload layers to GPU.", "gpu-offload"
    ),
    # https://github.com/LostRuins/koboldcpp/issues/446
    case(
        "I gradually offloaded 5 layers at a time until the neural network was fully "
        "offloaded to the GPU.",
        "gpu-offload",
    ),
    # https://github.com/rhasspy/rhasspy3/issues/24
    case("is it possible to set cuda instead of cpu usage for faster-whisper", "gpu-offload"),
    # https://github.com/ollama/ollama/issues/5093
    case(
        "You can change this behavior by setting OLLAMA_SCHED_SPREAD to 1",
        "fewer-gpus",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/ollama/ollama/issues/4139
    case(
        "you could set it to `CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7,8,9,10,11,12`",
        "fewer-gpus",
        backwards=True,
        misread="read as visible-devices",
    ),
    # https://github.com/ollama/ollama/issues/2395
    case("I was told to try to run ollama on just one of them", "fewer-gpus", misread="unread"),
    # https://github.com/ollama/ollama/issues/1288
    case("we should use only the one gpu", "fewer-gpus"),
    # https://github.com/facebookresearch/dinov2/issues/161
    case("I tuned the num_workers", "data-pipeline"),
    # https://github.com/gidariss/wDAE_GNN_FewShot/issues/17
    case("I ran the code with dataloader num_workers=4", "data-pipeline"),
    # https://github.com/MIC-DKFZ/nnUNet/issues/1049
    case(
        "I used to set num_thread in dataloader to 2",
        "data-pipeline",
        backwards=True,
        misread="read the wrong way round (forwards)",
    ),
    # https://github.com/pytorch/pytorch/issues/12831
    case("Setting `persistent_workers=True` in an argument of DataLoader", "data-pipeline"),
    # https://github.com/marrlab/Med-AL-SSL/issues/17
    case("you have set `pin_memory=False` in PyTorch DataLoader", "host-sync", backwards=True),
    # https://github.com/FrancescoSaverioZuppichini/PyTorch-Deep-Learning-Template/pull/1
    case("added pin_memory", "host-sync"),
    # https://github.com/smthemex/ComfyUI_KV_Edit/issues/7
    case("关闭offload啊", "host-sync", misread="unread"),
    # https://github.com/Engineer-of-Stuff/stable-diffusion-paperspace/pull/18
    case("added medvram setting", "host-sync", backwards=True, misread="unread"),
    # https://github.com/NUST-Machine-Intelligence-Laboratory/HFAN/issues/3
    case("Just set `OMP_NUM_THREADS` to the number of available CPUs.", "host-threads"),
    # https://github.com/orcasound/orcahello/pull/371
    case("export MKL_NUM_THREADS=1", "host-threads"),
    # https://github.com/microsoft/onnxruntime/issues/10273
    case("pin the threads from each session to separate cores", "host-threads"),
    # https://github.com/SYSTRAN/faster-whisper/issues/26
    case('os.environ["OMP_NUM_THREADS"] = "4"', "host-threads"),
    # https://github.com/pytorch/pytorch/pull/96011
    case("enable taskset core pinning in addition to numactl", "host-threads"),
    # https://github.com/NVIDIA/nccl/issues/1781
    case(
        "Rank0 and Rank1 are run in two separate Pods on a a same node, each allocated "
        "with one GPU resource",
        "container-gpus",
        backwards=True,
        misread="read as fewer-gpus",
    ),
    # https://github.com/pokerfaceSad/GPUMounter/pull/15
    case(
        "The entire mount supports using only one slave pod to mount all GPU",
        "container-gpus",
        misread="unread",
    ),
    # https://github.com/kubeflow/pytorch-operator/issues/219
    case(
        "To spawn 4 pods with 1 gpu per each",
        "container-gpus",
        backwards=True,
        misread="read as fewer-gpus",
    ),
    # https://github.com/NVIDIA/nccl/issues/1529
    case(
        "two pods on the same node, with each pod allocated four GPUs",
        "container-gpus",
        backwards=True,
        misread="unread",
    ),
    # https://github.com/vllm-project/vllm/issues/13661
    case("unless you set `--enforce-eager=True`", "cuda-graphs", backwards=True),
    # https://github.com/rllm-org/rllm/issues/43
    case(
        "By enabling the cudagraph, the generation duration is further reduced to 62 seconds.",
        "cuda-graphs",
    ),
    # https://github.com/foundation-model-stack/foundation-model-stack/issues/96
    case('With `mode="reduce-overhead"` I am getting', "cuda-graphs"),
    # https://github.com/karpathy/build-nanogpt/issues/6
    case(
        'Consider using `torch.compile(model, fullgraph=True, mode="reduce-overhead")`',
        "cuda-graphs",
    ),
    # https://github.com/apple-aiml-research/ml-depth-pro/issues/64
    case(
        "Setting precision=torch.float16 seems to fix all of this.",
        "weight-bytes",
        misread="unread",
    ),
    # https://github.com/vllm-project/vllm/issues/3399
    case("--quantization gptq", "weight-bytes"),
    # https://github.com/SYSTRAN/faster-whisper/issues/42
    case('Can you try with `compute_type="int8"`?', "weight-bytes"),
    # https://github.com/ObscureAintSecure/TalkTrack/pull/48
    case("Use int8 on pre-Volta GPUs instead of float16", "weight-bytes"),
    # https://github.com/jwyang/faster-rcnn.pytorch/issues/574
    case("you might want to try increasing the batchsize?", "batch-size"),
    # https://github.com/Lex-au/Orpheus-FastAPI/issues/50
    case("batch_size = 64 if HIGH_END_GPU else 16 # changed to 128", "batch-size"),
    # https://github.com/vllm-project/vllm/issues/6641
    case("Decrease **max_num_seqs** or max_num_batched_tokens.", "batch-size", backwards=True),
    # https://github.com/vllm-project/vllm/issues/2308
    case("do I need to convert my code to be concurrent/send batch requests?", "batch-size"),
    # https://github.com/facebookresearch/fairseq/issues/789
    case("Can you try using an older version of NCCL (2.3.x)", "version"),
    # https://github.com/bmaltais/kohya_ss/issues/2366
    case("i recommend to use version 23.03 atm of kohya", "version"),
    # https://github.com/microsoft/onnxruntime/issues/8316
    case("When moving from 1.6.0 to 1.8.1", "version"),
    # https://github.com/vllm-project/vllm/issues/2367
    case("v2.0.7 becomed slower than v2.0.6", "version", misread="unread"),
    # https://github.com/huggingface/text-generation-inference/pull/727
    case("reverting the vllm update as part of this", "version"),
    # https://github.com/vllm-project/vllm/issues/18339
    case("I recently upgraded from vLLM v0.6.3 to v0.7.1", "version"),
    # https://github.com/pytorch/pytorch/issues/119458
    case("going from Pytorch2.0.1+cu118 to Pytorch 2.1.2+cu121", "version"),
    # https://github.com/pytorch/pytorch/issues/80310
    case("I downgraded to get the speed back.", "version"),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/pull/12661
    case("update xformers to 0.0.21", "version"),
    # https://github.com/tensara/tensara/issues/226
    case(
        "Queue benchmark runs until the GPU temperature falls below a set threshold, e.g., <35°C",
        "heat-soak",
        backwards=True,
        misread="read as cooling",
    ),
    # https://github.com/NVIDIA/nvbench/issues/338
    case(
        "execute more warm-ups to get GPU to settle into some equilibrium thermal state",
        "heat-soak",
    ),
    # https://github.com/tinygrad/tinygrad/pull/4484
    case("resnet setup power cap red box gpu to 350W", "power-limit"),
    # https://github.com/fireice-uk/xmr-stak/issues/1633
    case(
        "`nvidia-smi -i 0 -pl 10`",
        "power-limit",
        backwards=True,
        misread="read the wrong way round (forwards)",
    ),
    # https://github.com/ROCm/rocm-systems/pull/7375
    case("via the power_dpm_force_performance_level sysfs entry", "power-limit", misread="unread"),
    # https://github.com/NebuTech/NBMiner/issues/289
    case("U'd better replace the thermal pad with a high quality one.", "cooling"),
    # https://github.com/Tanguille/cluster/pull/4129
    case("`FAN_TARGET_TEMP_C: 80 → 70`", "cooling", misread="unread"),
    # https://github.com/trexminer/T-Rex/issues/526
    case(
        "add some better thermal pads to your vrm/chips on the back between the backplate",
        "cooling",
    ),
    # https://github.com/yenchenlin/nerf-pytorch/issues/42
    case("I'd like to suggest to turn it off as default", "debug-setting", misread="unread"),
    # https://github.com/Xingyu-Lin/mbpo_pytorch/issues/8
    case("Set to False returns to normal running speed", "debug-setting", misread="unread"),
    # https://github.com/flux-framework/flux-core/issues/1598
    case("GPU binding needs to set CUDA_DEVICE_ORDER=PCI_BUS_ID", "visible-devices"),
    # https://github.com/NVIDIA/NVFlare/pull/596
    case("Use PCI_BUS_ID as CUDA_DEVICE_ORDER in GPUResourceConsumer", "visible-devices"),
    # https://github.com/neuronets/kwyk/issues/17
    case("SINGULARITYENV_CUDA_VISIBLE_DEVICES=0", "visible-devices", misread="read as fewer-gpus"),
    # https://github.com/gwoltman/gpuowl/pull/30
    case("`prpll -pci 01:00.0` selects the card at 01:00.0", "visible-devices", misread="unread"),
    # https://github.com/mlcommons/training/issues/546
    case("please make sure you are using the `--ipc=host` flag", "launch-config"),
    # https://github.com/pytorch/PiPPy/pull/420
    case("Add shared memory settings to docker run", "launch-config", misread="unread"),
    # https://github.com/pytorch/torchtitan/issues/853
    case("Changing the action to default /dev/shm to 1GB rather than 16MB", "launch-config"),
    # https://github.com/xorbitsai/inference/issues/1622
    case("docker容器设置了shm-size也没用", "launch-config"),
    # https://github.com/NVIDIA/nccl/issues/606
    case("after increasing the size of `/dev/shm`", "launch-config"),
    # https://github.com/facebookresearch/fairseq/issues/789
    case("bucket-cap-mb: Try tuning this", None),
    # https://github.com/pytorch/pytorch/issues/113035
    case("torch.backends.cuda.matmul.allow_tf32 = True", None),
    # https://github.com/casper-hansen/AutoAWQ/issues/717
    case('removing `quantization="AWQ"`', None, misread="read as weight-bytes"),
    # https://github.com/Dao-AILab/flash-attention/pull/480
    case("enable checkpointing for gpt model def'n", None),
    # https://github.com/bghira/SimpleTuner/pull/1184
    case("`--gradient_checkpointing_interval=2`", None),
    # https://github.com/janhq/cortex.llamacpp/pull/32
    case("To enable Flash Attention, need to add `flash_attn`: true to model.json", None),
    # https://github.com/PaddlePaddle/PaddleFleetX/pull/1050
    case("-o Model.use_flash_attn=True", None),
    # https://github.com/iCog-Labs-Dev/PC-Transformers/pull/81
    case("Switched to GPT2TokenizerFast to significantly reduce tokenization time", None),
    # https://github.com/NVIDIA/apex/pull/668
    case("--channels-last true", None),
    # https://github.com/paninski-lab/lightning-pose/pull/466
    case('adding `precision="16-mixed"` to the `Trainer`', None),
    # https://github.com/ollama/ollama/pull/11794
    case("Reduce gpt-oss context length for small VRAM GPUs", None),
    # https://github.com/allenai/olmocr/issues/458
    case("Manually cap the context window (e.g., to 4096 or 8192)", None),
    # https://github.com/casper-hansen/AutoAWQ/pull/316
    case("Up to 60% faster context processing", None),
    # https://github.com/wandb/llm-leaderboard/pull/161
    case("max-model-lenのデフォルト値を2048に設定しました", None),
    # https://github.com/ggml-org/llama.cpp/pull/27977
    case("reduce the generation slowdown as context grows", None),
]
