"""Public A/B wordings for the multi-GPU and platform rules (p2p-disable to numa-binding), each
with its source; read by ``test_wording_breadth``."""

from __future__ import annotations

from tests.triage.wording_case import case

MULTI_GPU = [
    # --- p2p-disable ---
    # https://github.com/NVIDIA/nccl/issues/1439
    case("NCCL_P2P_DISABLE=1", "p2p-disable"),
    # https://github.com/tinygrad/open-gpu-kernel-modules/issues/17
    case("Enabling P2P capability on 8 RTX 4090 GPUs", "p2p-disable", backwards=True),
    # --- shm-disable ---
    # https://github.com/NVIDIA/nccl-tests/issues/293
    case("NCCL_SHM_DISABLE=1", "shm-disable"),
    # --- network-path ---
    # https://github.com/NVIDIA/nccl/issues/278
    case("NCCL_SOCKET_IFNAME=enP1p1s0f0,enP1p1s0f1", "network-path"),
    # https://github.com/NVIDIA/nccl/issues/1411
    case("NCCL_CROSS_NIC=0", "network-path"),
    # https://github.com/NVIDIA/nccl-tests/issues/293
    case("NCCL_NET_GDR_LEVEL=SYS", "network-path"),
    # --- custom-allreduce-off ---
    # https://github.com/1CatAI/1Cat-vLLM/issues/652
    case("workaround: --disable-custom-all-reduce", "custom-allreduce-off"),
    # https://github.com/vllm-project/vllm/pull/47751
    case("Disable custom all-reduce on consumer Blackwell (sm_12x)", "custom-allreduce-off"),
    # https://github.com/sgl-project/sglang/pull/4210
    case(
        "Test no vllm custom allreduce",
        "custom-allreduce-off",
    ),
    # --- pcie-link ---
    # https://github.com/dartraiden/NVIDIA-patcher/issues/106
    case("reseating card in pcie slot", "pcie-link"),
    # https://github.com/dartraiden/NVIDIA-patcher/issues/106
    case("pulled it out and put it back in", "pcie-link"),
    # https://github.com/amoghmunikote/cmpunlocker/pull/19
    case("persistent PCIe Gen2 link retrain", "pcie-link"),
    # https://github.com/Dasharo/dasharo-issues/issues/618
    case("force PCIe 3.0", "pcie-link"),
    # https://github.com/Cyclenerd/ethereum_nvidia_miner/issues/40
    case(
        'explicitly set the x16 PCIe to "gen2" instead of "auto"',
        "pcie-link",
        backwards=True,
        misread=(
            "backwards: the link generation forced down from auto reads as the link fixed "
            "(undoes needs BEFORE -> AFTER)"
        ),
    ),
    # https://github.com/nanopool/ewbf-miner/issues/12
    case(
        "moved one card off mobo with riser cable",
        "pcie-link",
        backwards=True,
        misread=(
            "backwards: a card moved onto a riser (a worse link) reads as the link fixed "
            "(undoes needs BEFORE -> AFTER)"
        ),
    ),
    # https://github.com/ethereum-mining/ethminer/issues/1078
    case("switching out the riser", "pcie-link"),
    # --- iommu-acs-off ---
    # https://github.com/NVIDIA/caffe/issues/10
    case("disable the ACS directly in the BIOS of the server", "iommu-acs-off"),
    # https://github.com/NVIDIA/nccl/issues/257
    case("Booting the kernel with intel_iommu=off", "iommu-acs-off"),
    # https://github.com/ROCm/rccl/issues/1129
    case("added iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT", "iommu-acs-off"),
    # https://github.com/NVIDIA/nccl-tests/issues/115
    case("setting amd_iommu=off", "iommu-acs-off"),
    # https://github.com/aikitoria/open-gpu-kernel-modules/issues/25
    case(
        "disabled IOMMU in BIOS and in GRUB kernel arguments",
        "iommu-acs-off",
    ),
    # https://github.com/aikitoria/open-gpu-kernel-modules/issues/25
    case(
        "P2P works after disabling intel_iommu",
        "iommu-acs-off",
    ),
    # https://github.com/tinygrad/open-gpu-kernel-modules/issues/18
    case(
        "Disabling IOMMU fixed this behavior",
        "iommu-acs-off",
    ),
    # https://github.com/tinygrad/open-gpu-kernel-modules/issues/18
    case("Just set iommu=pt", "iommu-acs-off"),
    # --- numa-bios ---
    # https://github.com/NVIDIA/nccl-tests/issues/115
    case(
        "Setting NPS to 4",
        "numa-bios",
    ),
    # https://github.com/aikitoria/open-gpu-kernel-modules/issues/25
    case("enable Resizable BAR support in BIOS", "numa-bios"),
    # --- numa-binding ---
    # https://github.com/vllm-project/vllm/pull/30492
    case("numactl --cpunodebind=N --membind=N vllm serve", "numa-binding"),
    # https://github.com/AI-Hypercomputer/accelerator-microbenchmarks/pull/98
    case("numactl  --cpunodebind=0 --membind=0 $CMD", "numa-binding"),
    # https://github.com/NVIDIA/srt-slurm/pull/248
    case(
        "Add numactl prefix for gb200 and gb300 trtllm workers",
        "numa-binding",
        misread=(
            "wrong rule: numa-binding needs numactl's node flags, so launch-config takes a "
            "bare 'numactl'"
        ),
    ),
    # https://github.com/vllm-project/vllm/pull/38635
    case(
        "--numa-bind",
        "numa-binding",
    ),
    # https://github.com/NVIDIA-NeMo/RL/pull/2613
    case(
        "NUMA-aware CPU affinity + memory binding",
        "numa-binding",
    ),
]
