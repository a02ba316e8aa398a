"""Benchmark the parsers of pasted NCCL logs, nccl-tests tables and copy matrices at scale.

For each parser, its real pasted samples (the fixtures from public bug reports in
``tests/golden/``, plus the shared corpus folder it reads) are joined into one text, which is
repeated to at least 200 KB, parsed, then that text repeated ten times: the median time of the
ten-fold text over the median of the one-fold text, measured in the same process with the runs
interleaved, must stay near ten (at most 12: linear in the size of the input). The largest
real sample, the 389 KB nccl-tests run with ``NCCL_DEBUG=INFO`` interleaved inside its rows,
is timed on its own too, beside the time the ``nccl-debug`` parser takes to read its log.
Prints a table, then one JSON line. Run:
``python benchmarks/bench_pasted.py [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casefile_probes.bandwidth import parse_bandwidth  # noqa: E402
from casefile_probes.nccl import parse_nccl  # noqa: E402
from casefile_probes.nccl_debug import parse_nccl_debug  # noqa: E402
from casefile_probes.nvbandwidth import parse_nvbandwidth  # noqa: E402
from casefile_probes.p2p import parse_p2p  # noqa: E402

GOLDEN = REPO / "tests" / "golden"
CORPUS = REPO.parent / "shared" / "corpus"
TARGET = 12.0
BASE_BYTES = 200_000

#: parser name -> (parser, sample folders: tests/golden/<folder> or corpus:<folder>)
JOBS: dict[str, tuple[Callable[[str], object], tuple[str, ...]]] = {
    "nccl-debug": (parse_nccl_debug, ("nccl-debug", "nccl/issues", "corpus:nccl")),
    "nccl-tests": (parse_nccl, ("nccl/issues", "nccl-debug", "corpus:nccl")),
    "cuda-p2p-bandwidth": (parse_p2p, ("p2p/issues", "corpus:p2p")),
    "nvbandwidth": (parse_nvbandwidth, ("nvbandwidth", "corpus:bandwidth")),
    "cuda-bandwidth": (parse_bandwidth, ("nvbandwidth", "corpus:bandwidth")),
}


def _texts(folders: tuple[str, ...]) -> list[str]:
    texts = []
    for folder in folders:
        root = CORPUS / folder[7:] if folder.startswith("corpus:") else GOLDEN / folder
        texts += [
            p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.glob("*.txt"))
        ]
    return texts


def _medians(parse: Callable[[str], object], texts: list[str], repeat: int) -> list[float]:
    """Median parse time of each text, runs interleaved so that load from elsewhere on the
    machine falls on all of them alike."""
    times: list[list[float]] = [[] for _ in texts]
    for _ in range(repeat):
        for index, text in enumerate(texts):
            started = time.perf_counter()
            parse(text)
            times[index].append(time.perf_counter() - started)
    return [statistics.median(series) for series in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for name, (parse, folders) in JOBS.items():
        samples = "\n".join(_texts(folders))
        # at least ~200 KB to start from: a 10 KB text parses in a couple of milliseconds,
        # where caches and timer noise, not the parser, set the ratio
        text = "\n".join([samples] * max(1, BASE_BYTES // max(1, len(samples))))
        once, tenfold = _medians(parse, [text, "\n".join([text] * 10)], args.repeat)
        rows.append(
            {
                "parser": name,
                "bytes": len(text),
                "1x_s": round(once, 5),
                "10x_s": round(tenfold, 5),
                "ratio": round(tenfold / once, 2) if once else None,
                "ok": once > 0 and tenfold / once <= TARGET,
            }
        )
    big = (CORPUS / "nccl" / "006.txt").read_text(encoding="utf-8", errors="replace")
    (whole,) = _medians(parse_nccl, [big], args.repeat)
    (log_only,) = _medians(parse_nccl_debug, [big], args.repeat)
    print(f"{'parser':<20} {'bytes':>9} {'1x (s)':>9} {'10x (s)':>9} {'ratio':>7}")
    for row in rows:
        print(
            f"{row['parser']:<20} {row['bytes']:>9} {row['1x_s']:>9.4f} {row['10x_s']:>9.4f} "
            f"{row['ratio']:>7.2f}{'' if row['ok'] else '  > target'}"
        )
    print(
        f"nccl/006.txt ({len(big)} bytes): nccl-tests {whole:.4f} s, "
        f"of which reading the NCCL log alone takes {log_only:.4f} s"
    )
    summary = {
        "benchmark": "pasted",
        "target_ratio": TARGET,
        "all_ok": all(row["ok"] for row in rows),
        "parsers": rows,
        "nccl_006": {"nccl_tests_s": round(whole, 5), "nccl_debug_s": round(log_only, 5)},
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
