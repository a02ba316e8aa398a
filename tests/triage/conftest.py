"""Fixtures for intake and experiments: the CLI fixture of tests/cli, and nccl-tests output."""

from __future__ import annotations

from tests.cli.conftest import cli, cli_registry  # noqa: F401  (fixtures)

SIZES = (8, 1024, 1048576, 33554432, 268435456, 1073741824)


def nccl_table(large_busbw: float, device: str = "NVIDIA A100-SXM4-80GB", gpus: int = 8) -> str:
    """An all_reduce_perf run on ``gpus`` GPUs whose large-message bus bandwidth is about
    ``large_busbw`` GB/s (small messages far below it, as on real hardware)."""
    lines = [
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    for rank in range(gpus):
        lines.append(
            f"#  Rank {rank:>2} Group  0 Pid  4242 on     box1 device {rank:>2} "
            f"[0x{16 + rank:02x}] {device}"
        )
    lines += [
        "#",
        "#                                                              out-of-place"
        "                       in-place",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
        "     (us)  (GB/s)  (GB/s)",
    ]
    for size in SIZES:
        share = min(1.0, size / 268435456)
        busbw = round(large_busbw * share, 2)
        algbw = round(busbw * gpus / (2 * (gpus - 1)), 2)
        time = round(size / (algbw * 1e3), 2) if algbw else 30.0
        lines.append(
            f"{size:>12} {size // 4:>13}     float     sum      -1 {time:>8} {algbw:>7} "
            f"{busbw:>7}      0 {time:>8} {algbw:>7} {busbw:>7}      0"
        )
    lines += [
        "# Out of bounds values : 0 OK",
        f"# Avg bus bandwidth    : {large_busbw / 2:.3f}",
        "#",
    ]
    return "\n".join(lines) + "\n"
