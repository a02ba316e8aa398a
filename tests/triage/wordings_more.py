"""More public A/B wordings, across every rule of gpu-throughput@3 (and one no rule should
read), each with its source; read by ``test_wording_breadth``.

Each change is a public report's own words, trimmed to the change and never reworded: GitHub
issues and pull requests, and a few forum, blog and troubleshooting pages, about slow GPU jobs
(training, inference servers, llama.cpp and Ollama, NCCL and several GPUs, data loading, power
and heat, PCIe and firmware, drivers and versions). The rule and the way it runs were decided
by hand, as a GPU performance engineer would read the words, before the playbook read them.
"""

from __future__ import annotations

from tests.triage.wording_case import case

MORE = [
    # --- p2p-disable ---
    # https://github.com/dmlc/xgboost/issues/11242
    case("NCCL_P2P_DISABLE=1 python ./myscript.py", "p2p-disable"),
    # https://github.com/huggingface/transformers/issues/28280
    case("turning off the GPU P2P communication", "p2p-disable"),
    # https://github.com/noonghunna/club-3090/issues/91
    case(
        "Patched P2P drivers",
        "p2p-disable",
        backwards=True,
        misread="unread: P2P enabled by a patched driver (p2p-disable reversed) is not read",
    ),
    # --- p2p-level ---
    # https://github.com/NVIDIA/nccl/issues/1987
    case("NCCL_P2P_LEVEL = PXB", "p2p-level"),
    # https://github.com/NVIDIA/nccl/issues/1358
    case("after setting the option nccl_p2p_level=SYS", "p2p-level"),
    # https://github.com/NVIDIA/nccl/issues/1773
    case(
        "NCCL_P2P_DISABLE=0 NCCL_P2P_LEVEL=4 NCCL_DEBUG=info ./build/all_reduce_perf -b"
        " 64M -e 128M -f 2 -g 8",
        "p2p-level",
    ),
    # --- shm-disable ---
    # https://github.com/NVIDIA/nccl/issues/406
    case("when setting `NCCL_SHM_DISABLE=1`", "shm-disable"),
    # https://github.com/NVIDIA/nccl/issues/406
    case("using NICs instead of SHM", "shm-disable"),
    # --- algorithm ---
    # https://github.com/NVIDIA/nccl-tests/issues/196
    case("force NCCL_ALGO=RING", "algorithm"),
    # https://github.com/coreweave/nccl-tests/pull/18
    case("Stop disabling LL128 for the H100s", "algorithm"),
    # https://github.com/coreweave/nccl-tests/pull/47
    case("disable NVLS", "algorithm"),
    # https://github.com/ROCm/rocm-systems/pull/6966
    case("Default to SIMPLE protocol for SHM in Navi4", "algorithm"),
    # --- nccl-override ---
    # https://github.com/NVIDIA/nccl/issues/652
    case("set `NCCL_MIN_NCHANNELS` to 8 or 16", "nccl-override"),
    # https://github.com/uccl-project/uccl/issues/205
    case("setting NCCL_MAX_NCHANNELS=8 and NCCL_MIN_NCHANNELS=8", "nccl-override"),
    # https://github.com/Azure/azurehpc-health-checks/pull/143
    case("Removing the topology file from the check_nccl_allreduce", "nccl-override"),
    # https://github.com/NVIDIA/nccl/issues/689
    case("You can force `NCCL_MAX_NCHANNELS=2`", "nccl-override"),
    # --- custom-allreduce-off ---
    # https://github.com/haohervchb/sglang-V100/pull/2
    case("new env `SGLANG_CUSTOM_AR_ALLOW_PCIE=1`", "custom-allreduce-off", backwards=True),
    # https://github.com/sgl-project/sglang/pull/32230
    case("opt-in custom/quick all-reduce on ROCm", "custom-allreduce-off", backwards=True),
    # https://github.com/vllm-project/vllm/pull/2192
    case("disable_fast_allreduce=True", "custom-allreduce-off"),
    # --- network-path ---
    # https://github.com/NVIDIA/nccl/issues/1608
    case("export NCCL_SOCKET_IFNAME=lo", "network-path"),
    # https://github.com/NVIDIA/nccl/issues/652
    case("removing this setting as well: `NCCL_NET_GDR_LEVEL=5`", "network-path"),
    # https://github.com/hiyouga/LlamaFactory/issues/6111
    case("感觉关键就是 NCCL_IB_DISABLE=0", "network-path"),
    # https://github.com/aikitoria/open-gpu-kernel-modules/issues/20
    case("managed to enable GDR on RTX 5090 with driver 590.48.01", "network-path"),
    # --- pcie-link ---
    # https://crashless.app/fix/gpu-running-at-reduced-pcie-lane-width
    case("Move GPU to the top PCIe x16 slot (closest to CPU)", "pcie-link"),
    # https://crashless.app/fix/gpu-running-at-lower-pcie-generation
    case("Set BIOS PCIe generation to Auto or Gen 4/5", "pcie-link"),
    # https://crashless.app/fix/gpu-running-at-lower-pcie-generation
    case("replace Gen 3 riser cables", "pcie-link"),
    # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1010
    case("nvidia.NVreg_EnablePCIeGen3=1", "pcie-link"),
    # --- interconnect ---
    # https://github.com/NVIDIA/apex/issues/282
    case("We connected the cards 2 and 3 with the NVLink bridge", "interconnect"),
    # https://defiledai.com/tutorials/dual-gpu-nvlink-setup
    case("Install the NVLink bridge", "interconnect"),
    # --- transport ---
    # https://github.com/ai-dynamo/nixl/pull/2208
    case("Enable GET over CUDA IPC on GPU without NVLINK", "transport"),
    # https://github.com/openucx/ucx/issues/11652
    case("When `cuda_copy` is excluded from `UCX_TLS`", "transport"),
    # https://github.com/kvcache-ai/Mooncake/issues/20
    case("if you use the RDMA protocol", "transport"),
    # --- iommu-acs-off ---
    # https://github.com/Mellanox/nic-configuration-operator/issues/102
    case("sudo setpci -v -s ${BDF} ECAP_ACS+0x6.w=0000", "iommu-acs-off"),
    # https://github.com/NVIDIA/nccl/issues/631
    case("Disabling VT-d in the BIOS", "iommu-acs-off"),
    # http://wiki.hpcmate.com/index.php/ACS
    case(
        'run "setpci -s bus#:slot#.func# f2a.w=0000" to disable ACSCtl on the PLX switch.',
        "iommu-acs-off",
    ),
    # --- numa-bios ---
    # https://github.com/NVIDIA/nccl-tests/issues/293
    case("set NUMA Nodes Per Socket to 4 in Dell Bios Processor Setting", "numa-bios"),
    # https://github.com/tinygrad/open-gpu-kernel-modules/issues/17
    case(
        "xGMI Link Width (from Auto/Dynamic to Manual x16) and xGMI Link Speed (from "
        "Auto to 25Gbps)",
        "numa-bios",
    ),
    # https://github.com/ROCm/ROCmValidationSuite/issues/427
    case('change the Memory interleaving to "Socket" from "die"', "numa-bios"),
    # https://blog.youkuaiyun.com/guganly/article/details/149828237
    case("将 NUMA Nodes per Socket 设置为 NPS4", "numa-bios"),
    # --- numa-binding ---
    # https://github.com/NVIDIA/TensorRT-LLM/pull/18117
    case("Bind MGMN workers to their GPU's NUMA node at launch", "numa-binding"),
    # https://github.com/areal-project/AReaL/pull/1083
    case("add NUMA CPU affinity binding for training engines", "numa-binding"),
    # https://github.com/horovod/horovod/pull/1767
    case("bind processes to NUMA nodes", "numa-binding"),
    # --- gpu-offload ---
    # https://github.com/omacom/omarchy/pull/1319
    case("Ensure that Ollama can run on NVIDIA GPUs", "gpu-offload"),
    # https://github.com/abetlen/llama-cpp-python/issues/1123
    case('CMAKE_ARGS="-DLLAMA_CUBLAS=on" pip install llama-cpp-python', "gpu-offload"),
    # https://github.com/abetlen/llama-cpp-python/issues/1123
    case("you need set n_gpu_layers= your layers", "gpu-offload"),
    # https://github.com/langchain-ai/langchain/issues/16502
    case(
        "if I use `n_gpu_layers=1`",
        "gpu-offload",
        backwards=True,
        misread="backwards: 1 layer (down from all) reads as raised; only 0 or 'without' is lower",
    ),
    # https://github.com/zylon-ai/private-gpt/pull/521
    case(
        "I tried increasing the layers",
        "gpu-offload",
        misread="unread: gpu-offload reads layers only with 'GPU' or -ngl, not 'the layers'",
    ),
    # --- fewer-gpus ---
    # https://github.com/deepinsight/insightface/issues/663
    case(
        "when I use 1 Titanxp to train the same one",
        "fewer-gpus",
        misread="unread: one GPU named by its model (1 Titanxp), with no arrow, is not read",
    ),
    # https://github.com/xcmyz/FastSpeech/issues/11
    case(
        "CUDA_VISIBLE_DEVICES=0 python3 train_accelerated.py",
        "fewer-gpus",
        misread="wrong rule: fewer-gpus reads CUDA_VISIBLE_DEVICES=0 only at the end or before '('",
    ),
    # https://github.com/ggml-org/llama.cpp/issues/4014
    case(
        "you should use CUDA_VISIBLE_DEVICES to restrict the use of the other GPU",
        "fewer-gpus",
        misread="wrong rule: the other GPU hidden (restrict) goes to visible-devices",
    ),
    # https://github.com/ggml-org/llama.cpp/issues/4014
    case(
        "when adding a second 3090",
        "fewer-gpus",
        backwards=True,
        misread="unread: a second GPU added (fewer-gpus reversed) is not read",
    ),
    # https://github.com/ggml-org/llama.cpp/issues/3120
    case("using 1 gpu (by using `CUDA_VISIBLE_DEVICES`)", "fewer-gpus"),
    # --- data-pipeline ---
    # https://github.com/MIC-DKFZ/nnUNet/issues/795
    case(
        "increase the number of data augmentation workers (export nnUNet_n_proc_DA=XX)",
        "data-pipeline",
    ),
    # https://github.com/awslabs/Renate/issues/251
    case("Use more workers in DataLoader", "data-pipeline"),
    # https://github.com/megvii-research/OccDepth/issues/9
    case("use `prefetch_generator`", "data-pipeline"),
    # https://github.com/RongchangLi/ZSCAR_C2C/issues/6
    case("after moving data to local SSD", "data-pipeline"),
    # --- host-sync ---
    # https://github.com/rosinality/style-based-gan-pytorch/pull/50
    case("Call item() less frequently.", "host-sync"),
    # https://github.com/lnccbrown/LANfactory/pull/120
    case("Stop synchronising the GPU on every training step", "host-sync"),
    # https://github.com/huggingface/transformers/pull/36861
    case("Remove call to `.item` in `get_batch_samples`", "host-sync"),
    # https://github.com/EthoML/VAME/pull/220
    case("Remove per-batch GPU↔CPU syncs.", "host-sync"),
    # --- host-threads ---
    # https://github.com/ggml-org/llama.cpp/pull/2915
    case("CUDA: use 1 thread if model is fully offloaded", "host-threads"),
    # https://github.com/Lightning-AI/pytorch-lightning/pull/18677
    case("Set an upper limit on CPU threads in distributed training", "host-threads"),
    # https://github.com/dmlc/dgl/issues/3609
    case("set OMP=1", "host-threads"),
    # https://github.com/Lumi-supercomputer/LUMI-AI-Guide/issues/3
    case("OMP_NUM_THREADS should be set to 1 for each process", "host-threads"),
    # --- container-gpus ---
    # https://github.com/NVIDIA/nccl/issues/1250
    case("I make sure that each process can see all the local GPUs", "container-gpus"),
    # https://github.com/NERSC/sc21-dl-tutorial/pull/17
    case("we instead use `--gpus-per-node=4`", "container-gpus"),
    # https://github.com/NVIDIA/pyxis/issues/73
    case(
        "giving access to all of the requested GPUs to all tasks",
        "container-gpus",
        misread="unread: container-gpus reads 'all tasks see all', not 'access ... to all tasks'",
    ),
    # --- cuda-graphs ---
    # https://github.com/haifeng-jin/keras-benchmarks/issues/1
    case("We are now using reduce-overhead mode and compiling the loss function.", "cuda-graphs"),
    # https://github.com/tonyd2wild/GLM-5.3-Flash-NVFP4-1M-KV-4x-DGX-Spark/pull/2
    case("fp8 lane: drop enforce-eager by default", "cuda-graphs"),
    # https://github.com/dphnAI/sonar/issues/1114
    case("tp 2 + no eager", "cuda-graphs"),
    # https://github.com/vllm-project/vllm/issues/13536
    case("Setting enforce_eager=False", "cuda-graphs"),
    # --- weight-bytes ---
    # https://github.com/LostRuins/koboldcpp/issues/2173
    case("Using FNsi's iq4_xs.gguf quant", "weight-bytes"),
    # https://github.com/oobabooga/textgen/issues/147
    case("I tried converting the 30b to 4bit", "weight-bytes"),
    # https://github.com/ggml-org/llama.cpp/issues/53
    case(
        "i tried it with the fp16 model too",
        "weight-bytes",
        backwards=True,
        misread="unread: fp16 after 4-bit (weight-bytes reversed) is not read; no way to reverse",
    ),
    # --- batch-size ---
    # https://github.com/Lightning-AI/pytorch-lightning/issues/1005
    case("you should double your batch size.", "batch-size"),
    # https://github.com/pytorch/pytorch/issues/3917
    case("I just change my batchsize from 32 to 128", "batch-size"),
    # https://github.com/vllm-project/vllm/issues/14022
    case("set `max_num_seqs=600`", "batch-size"),
    # https://github.com/kubernetes-sigs/gateway-api-inference-extension/pull/642
    case("adjust the gpu deployment to increase max batch size", "batch-size"),
    # https://github.com/tonyd2wild/GLM-5.3-Flash-NVFP4-1M-KV-4x-DGX-Spark/pull/2
    case(
        "Going 8192 → 16384 at TP4 (seqs held at 64, so this is the batched-tokens lever alone)",
        "batch-size",
    ),
    # --- version ---
    # https://github.com/dmlc/xgboost/issues/11242
    case("Update the GPU driver to the latest", "version"),
    # https://github.com/Haoming02/sd-webui-forge-classic/issues/1002
    case("Rolling back to 595.71 (studio) resolved the issue.", "version"),
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/11063
    case("I reverted from 537.42 with issue to 531.68 with clean install option", "version"),
    # https://github.com/vllm-project/vllm/issues/31030
    case("reverted to v0.10.2", "version"),
    # https://github.com/vllm-project/vllm/issues/26166
    case("Downgrading to vLLM v0.9.*", "version"),
    # https://github.com/verl-project/verl/issues/5964
    case("pip install vllm==0.18.0", "version"),
    # --- heat-soak ---
    # https://github.com/ivanfioravanti/llm_context_benchmarks/pull/18
    case(
        "add GPU cooldown between context runs to avoid thermal throttling",
        "heat-soak",
        backwards=True,
        misread="wrong rule: cooling reads 'thermal throttling'; a cooldown (heat-soak reversed)",
    ),
    # https://github.com/soumith/convnet-benchmarks/issues/71
    case("a long enough burn-in period", "heat-soak"),
    # https://matt.sh/cloud-gpu-thermal-throttling
    case("I left it for an hour, came back", "heat-soak"),
    # --- power-limit ---
    # https://github.com/noonghunna/club-3090/issues/58
    case(
        "Power limit for GPU 00000000:01:00.0 was set to 230.00 W from 390.00 W.",
        "power-limit",
        backwards=True,
    ),
    # https://github.com/NVIDIA/Isaac-GR00T/issues/379
    case("sudo nvidia-smi --lock-gpu-clocks=<min>,<max>", "power-limit"),
    # https://github.com/sasha0552/nvidia-pstated/issues/13
    case(
        "a complete display driver restart via `nvidia-smi -r`",
        "power-limit",
        misread="unread: a GPU reset freeing a card stuck in P8 (nvidia-smi -r) is not read",
    ),
    # --- cooling ---
    # https://github.com/ethereum-mining/ethminer/issues/712
    case("after adding some more fans it went away", "cooling"),
    # https://github.com/trexminer/T-Rex/issues/968
    case("By improving air flow and decreasing ambient temperature", "cooling"),
    # https://github.com/develsoftware/GMinerRelease/issues/212
    case(
        "if i set up --fan 60",
        "cooling",
        backwards=True,
        misread="backwards: the fan lowered (100 -> 60 %) reads as improved; cooling has no way",
    ),
    # https://github.com/ethereum-mining/ethminer/issues/2264
    case("clean the heatsink out, reapply thermal compounds", "cooling"),
    # https://github.com/bradrlaw/ai-server/pull/15
    case("210mm side fan blowing on the two V100s", "cooling"),
    # --- debug-setting ---
    # https://github.com/Yejin0111/ADD-GCN/issues/13
    case("turn cudnn.deterministic to False", "debug-setting"),
    # https://github.com/Lightning-AI/pytorch-lightning/issues/17359
    case("when detect_anomaly is turned off", "debug-setting"),
    # https://github.com/pytorch/ignite/pull/219
    case("if detect anomaly is enabled", "debug-setting", backwards=True),
    # --- visible-devices ---
    # https://github.com/NVIDIA/nccl/issues/209
    case("CUDA_VISIBLE_DEVICES=0,1,3,2,7,6,4,5", "visible-devices"),
    # https://github.com/mlcommons/training_results_v3.1/issues/11
    case("We used `CUDA_VISIBLE_DEVICES=0,4,2,6,1,5,3,7`", "visible-devices"),
    # https://github.com/NVIDIA/nccl/issues/300
    case("set CUDA_VISIBLE_DEVICES=4,5,6,7", "visible-devices"),
    # --- launch-config ---
    # https://github.com/wasserth/TotalSegmentator/pull/526
    case("Use docker parameter shm-size=4G instead of ipc=host", "launch-config"),
    # https://github.com/yjxiong/tsn-pytorch/issues/17
    case("I have increased the shared memory size", "launch-config"),
    # --- none ---
    # https://github.com/sgl-project/sglang/issues/5450
    case("Try setting page_size to a value greater than 32.", None),
]
