"""Which way each A/B runs: every experiment rule's own examples, written the other way round.

A rule's example is a change its own A/B makes ("TCP -> CUDA IPC"); the same change reversed
("CUDA IPC -> TCP") is that A/B backwards, and a slowdown under it speaks for the hypothesis a
speedup under the example would. Where both sides of a change name what a rule reads, the side
its pattern matches says nothing of the way it ran, and the reverse read forwards. This
counts, of the examples written with an arrow, those whose reverse the same rule reads
backwards while it reads the example forwards. Rules that read a difference rather than a
direction (a setting either way, a path changed, a version by its own direction rules) are left
out, as are examples without an arrow.

    .venv/bin/python benchmarks/bench_directions.py [--playbook gpu-throughput@3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugins"))

from casefile_gpu_playbook import PLAYBOOK, PLAYBOOK_V2, PLAYBOOK_V3

from casefile.domain.change_arrow import sides

#: rules whose A/B is a difference, not a direction: any change of the setting or path is
#: their A/B (their likelihoods read "faster" as "the change mattered")
DIFFERENCE = frozenset(
    {"network-path", "host-threads", "launch-config", "visible-devices", "version",
     "nccl-override", "numa-bios"}
)  # fmt: skip
#: where the reverse needs the subject on both sides to read as a change of the same setting
REVERSED = {
    "num_workers 0 -> 8": "num_workers 8 -> 0",
    "batch size 1 -> 16": "batch size 16 -> 1",
    "max_num_seqs 8 -> 64": "max_num_seqs 64 -> 8",
    "power limit 250 W -> 350 W": "power limit 350 W -> 250 W",
    "CUDA_LAUNCH_BLOCKING=1 -> 0": "CUDA_LAUNCH_BLOCKING=0 -> 1",
    "cudnn.deterministic=True -> False": "cudnn.deterministic=False -> True",
    "deterministic mode on -> off": "deterministic mode off -> on",
    "--device cpu -> cuda": "--device cuda -> cpu",
    "nGPU=4 -> nGPU=1": "nGPU=1 -> nGPU=4",
    "NCCL_P2P_LEVEL=NVL -> PHB": "NCCL_P2P_LEVEL=PHB -> NVL",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playbook", default="gpu-throughput@3")
    args = parser.parse_args()
    playbook = {p.ref: p for p in (PLAYBOOK, PLAYBOOK_V2, PLAYBOOK_V3)}[args.playbook]
    right = counted = 0
    for rule in playbook.experiments:
        if rule.either_way or rule.id in DIFFERENCE:
            continue
        for example in rule.examples:
            split = sides(example)
            if split is None:
                continue
            reverse = REVERSED.get(example, f"{split[1]} -> {split[0]}")
            reader = next((r for r in playbook.experiments if r.matches(reverse)), None)
            counted += 1
            ok = reader is rule and rule.undoes(reverse) and not rule.undoes(example)
            right += ok
            way = "ok " if ok else "NO "
            read = "none" if reader is None else f"{reader.id}, backwards {reader.undoes(reverse)}"
            print(f"{way} {rule.id:16} {example!r:50} reversed -> {read}")
    print(f"\n{right} of {counted} examples read forwards and their reverse backwards")


if __name__ == "__main__":
    main()
