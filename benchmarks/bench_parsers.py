"""Benchmark the parsers: parse the whole corpus of real outputs, report files per second.

Each corpus folder is parsed by its probe's parser (as the golden tests pair them); the corpus
is read into memory first so only parsing is timed. Run:
``python benchmarks/bench_parsers.py [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from casefile_probes import (
    bandwidth,
    dmon,
    lspci,
    nccl,
    p2p,
    pmon,
    query_gpu,
    smi_q,
    smi_table,
    topo,
)

from casefile.probes.api import Probe

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
BY_FOLDER: dict[str, Probe] = {
    "topo": topo.PROBE,
    "smi-q": smi_q.PROBE,
    "query-csv": query_gpu.PROBE,
    "smi-table": smi_table.PROBE,
    "dmon": dmon.PROBE,
    "pmon": pmon.PROBE,
    "lspci": lspci.PROBE,
    "nccl": nccl.PROBE,
    "p2p": p2p.PROBE,
    "bandwidth": bandwidth.PROBE,
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    work = [
        (BY_FOLDER[path.parent.name], path.read_text(encoding="utf-8", errors="replace"))
        for path in sorted(CORPUS.glob("*/*.txt"))
        if path.parent.name in BY_FOLDER
    ]
    size = sum(len(text) for _, text in work)
    times = []
    unparsed = 0
    facts = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        results = [probe.parse(text) for probe, text in work]
        times.append(time.perf_counter() - start)
        unparsed = sum(not r.parsed for r in results)
        facts = sum(len(r.facts) for r in results)
    best, median = min(times), statistics.median(times)
    print(
        f"{len(work)} corpus files ({size / 1024:.0f} KiB, {facts} facts, {unparsed} unparsed): "
        f"median {median * 1000:.1f} ms = {len(work) / median:,.0f} files/s "
        f"(best {len(work) / best:,.0f} files/s, {size / median / 1e6:.1f} MB/s)"
    )
    print(
        json.dumps(
            {
                "files": len(work),
                "bytes": size,
                "median_s": median,
                "files_per_s": len(work) / median,
                "unparsed": unparsed,
            }
        )
    )


if __name__ == "__main__":
    main()
