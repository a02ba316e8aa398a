"""The founding story as MCP calls: the seed investigation's steps, in the seed's order.

``cases/_build/build_glm5_pcie_pivot.py`` tells the same story through the service; here a
scripted client (no language model) makes each step a tool call, and stops where the seed's
assistant concluded "PCIe-bound" (after the calculations, before any link was measured) and
where the case ends, so the tests can try the guard there.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cases" / "_build"))

import glm5_outputs as out

from tests.mcp.client import Server

CASE = "glm5-mcp"
HOST = "inference-vm"

#: a checkpoint the tests stop at: the call made there and what they check
Check = Callable[[Server], Awaitable[None]]


async def opening(s: Server) -> None:
    """From the case's opening to the shared belief "PCIe-bound", built on calculations."""
    await s.call(
        "case_new",
        title="GLM-5-NVFP4 decode throughput on 8× RTX PRO 6000 Blackwell in a Proxmox VM",
        symptom="~11 output tok/s single stream and ~225 tok/s at 64 concurrent requests "
        "for a 744B-parameter MoE model served with SGLang (TP8)",
        environment={
            "gpus": "8× NVIDIA RTX PRO 6000 Blackwell, 96 GB each, PCIe Gen5 x16, no NVLink",
            "host": "Proxmox (KVM) virtual machine, GPUs passed through",
        },
        case_id=CASE,
    )
    note = lambda text: s.call("note", case=CASE, text=text)  # noqa: E731
    await note("Set up the ML environment: NVIDIA driver, CUDA 13.1 and a venv on Ubuntu 24.04.")
    await s.call("act", case=CASE, text="Deployed GLM-5-NVFP4 with SGLang, TP8")
    await note("Decode crashes with NaN values on SM120 (Blackwell); trying attention backends.")
    await s.call(
        "act",
        case=CASE,
        text="Switched to the trtllm NSA backends",
        outcome="decode runs without NaN",
    )
    await note("Baseline: ~225 output tok/s at 64 concurrent requests; ~11 tok/s single stream.")
    await s.call(
        "act",
        case=CASE,
        text="Tuned the server: memory fraction, CUDA graphs, MoE runner backends",
        outcome="~200–236 tok/s batched; single stream unchanged at ~11 tok/s",
    )
    await s.call("playbook_open", case=CASE, playbook="gpu-throughput@1")
    await evidence(
        s,
        "calc-allreduce",
        {
            "pcie-bandwidth": 0.7,
            "collective-latency": 0.75,
            "compute-launch": 0.35,
            "memory-bandwidth": 0.4,
        },
        "TP8 runs two all-reduces in each of 78 layers over PCIe: communication dominates.",
        "calculated",
        0.45,
    )
    await note("Could expert parallelism (EP) improve the PCIe-bound performance?")
    await evidence(
        s,
        "calc-ep",
        {"pcie-bandwidth": 0.6, "collective-latency": 0.6},
        "EP analysis: all-to-all moves about as much as all-reduce; EP8 offers no advantage.",
        "calculated",
        0.5,
    )
    await note("Yeah you're right, can't do full duplicated EP load balancing.")
    await evidence(
        s,
        "belief-assistant",
        {"pcie-bound": 0.75, "collective-latency": 0.7},
        '"The throughput is fundamentally limited by PCIe all-reduce latency."',
        "reported",
        0.4,
    )
    await note("Checked the remaining server-side tuning knobs.")
    await evidence(
        s,
        "belief-user",
        {"pcie-bound": 0.75, "collective-latency": 0.6},
        '"We\'re PCIe-bound at ~11 tok/s single-stream" — nothing has measured the links.',
        "reported",
        0.4,
    )


async def measuring(s: Server) -> None:
    """The user's question about the VM, and the reading that breaks the belief."""
    await s.call("note", case=CASE, text="Could cross-GPU latency from the Proxmox VM matter?")
    await evidence(
        s,
        "vm-reported",
        {"collective-latency": 0.75},
        "Passed-through GPUs often lose peer-to-peer, which makes every collective slower.",
        "reported",
        0.45,
    )
    await paste(s, "nvidia-smi-q", "nvidia-smi -q", out.pcie_excerpt_under_load(), "under-load")


async def checking(s: Server) -> None:
    """Topology, link state, the idle reading, and the reading under load."""
    await s.call("note", case=CASE, text="Wait, that changes the picture significantly.")
    await paste(s, "nvidia-smi-topo", "nvidia-smi topo -m", out.topo_matrix(), "idle")
    await paste(s, "nvidia-smi-topo", "nvidia-smi topo -p2p r", out.topo_p2p_read(), "idle")
    await paste(s, "nvidia-smi-q", "nvidia-smi -q -i 0", out.gpu0_pci_idle(), "idle")
    await paste(s, "lspci", "lspci -vvs 00:10.0", out.lspci_gpu0(), "idle")
    await paste(s, "nvidia-smi-q", "nvidia-smi -q -i 0", out.gpu0_query_idle(), "idle")
    await s.call("note", case=CASE, text="That was read between benchmarks, with the GPUs idle.")
    await paste(
        s,
        "nvidia-smi-query",
        list(out.QUERY_UNDER_LOAD_ARGV),
        out.query_under_load(),
        "under-load",
    )
    await s.call(
        "note",
        case=CASE,
        text="The real bottleneck is kernel launch overhead and small matmul efficiency.",
    )


CONCLUSION: dict[str, Any] = {
    "case": CASE,
    "summary": "Decode is compute-bound by kernel-launch overhead and small matmuls at low "
    "batch; PCIe carries ~1 GB/s of ~64 GB/s.",
    "root_cause": "compute-launch",
    "recommendations": ["Serve with larger batches."],
    "lessons": ["Measure a suspected bottleneck under load before building on it."],
}


async def evidence(
    s: Server,
    evidence_id: str,
    likelihoods: dict[str, float],
    because: str,
    kind: str,
    otherwise: float,
) -> None:
    await s.call(
        "evidence_add",
        case=CASE,
        likelihoods=likelihoods,
        because=because,
        kind=kind,
        otherwise=otherwise,
        evidence_id=evidence_id,
    )


async def paste(s: Server, probe: str, command: str | list[str], text: str, load: str) -> Any:
    return await s.call(
        "probe_paste",
        case=CASE,
        probe=probe,
        command=command,
        output=text,
        host=HOST,
        load=load,
        reconstructed=True,
    )
