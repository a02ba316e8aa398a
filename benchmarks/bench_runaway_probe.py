"""Peak memory of a runaway probe: ``yes`` under a timeout, locally and over SSH to loopback.

On main, ``casefile probe C command --timeout 3 -- yes`` grew to 5.4 GB and then stored
nothing. Runners now keep the head and tail of each stream (4 MiB per stream by default) and
drain the rest. Each measurement runs in a fresh interpreter (tests/runners/peak_rss.py) and
reads its peak RSS; the baseline is the same harness running ``true``, measured in the same
process run, so the ratio says what the flood itself costs. The ``cli`` rows run the whole
``casefile probe`` (runner, parse, SQLite recording) as a process and read its peak RSS the
same way. Target: runaway peak < 512 MB.

Run: ``.venv/bin/python benchmarks/bench_runaway_probe.py [--repeats 3] [--seconds 3]``.
Prints a table, then a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.runners.peak_rss import measure
from tests.runners.sshd import SshdCluster, start_cluster

TARGET_MB = 512
CASEFILE = Path(sys.executable).with_name("casefile")
#: runs one command and prints the peak RSS of the largest process it waited for, in KiB
_PEAK_OF_CHILD = (
    "import resource, subprocess, sys; "
    "done = subprocess.run(sys.argv[1:], capture_output=True); "
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def _spec(where: str, argv: list[str], seconds: float, cluster: SshdCluster) -> dict[str, object]:
    spec: dict[str, object] = {"where": where, "argv": argv, "timeout_s": seconds}
    if where == "ssh":
        spec.update(
            target=cluster.target(0),
            known_hosts=str(cluster.known_hosts_path),
            ssh_config=str(cluster.ssh_config_path),
            key=str(cluster.user_key_path),
        )
    return spec


def bench(where: str, seconds: float, repeats: int, cluster: SshdCluster) -> dict[str, float]:
    """Median peak RSS of ``true`` and of ``yes``, and the bytes ``yes`` printed per second."""
    quiet, loud, rates = [], [], []
    for _ in range(repeats):
        quiet.append(float(measure(_spec(where, ["true"], seconds, cluster))["peak_rss_mb"]))  # type: ignore[arg-type]
        flood = measure(_spec(where, ["yes"], seconds, cluster))
        if flood["timed_out"] is not True:
            raise SystemExit(f"`yes` over {where} did not time out: {flood}")
        loud.append(float(flood["peak_rss_mb"]))  # type: ignore[arg-type]
        cuts = flood["truncated"]
        assert isinstance(cuts, list) and cuts, flood
        rates.append(cuts[0]["total_bytes"] / seconds / 1e6)
    quiet_mb, loud_mb = statistics.median(quiet), statistics.median(loud)
    return {
        "quiet_peak_rss_mb": round(quiet_mb, 1),
        "runaway_peak_rss_mb": round(loud_mb, 1),
        "runaway_worst_peak_rss_mb": round(max(loud), 1),
        "ratio": round(loud_mb / quiet_mb, 2),
        "drained_mb_per_s": round(statistics.median(rates), 1),
    }


def _cli_peak_mb(db: Path, argv: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k not in ("CASEFILE_DB", "SSH_AUTH_SOCK")}
    env["CASEFILE_DB"] = f"sqlite:///{db}"
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_OF_CHILD, str(CASEFILE), *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    code, peak_kib = done.stdout.split()
    if code not in ("0", "1"):  # 1: the flood timed out, a failed run (recorded)
        raise SystemExit(f"casefile {' '.join(argv)} exited {code}")
    return int(peak_kib) / 1024


def bench_cli(
    where: str, seconds: float, repeats: int, cluster: SshdCluster, tmp: Path
) -> dict[str, float]:
    """Median peak RSS of ``casefile probe … -- true`` and ``-- yes``, recorded in SQLite."""
    db = tmp / f"bench-{where}.db"
    new = subprocess.run(
        [str(CASEFILE), "new", "runaway", "--db", f"sqlite:///{db}"],
        capture_output=True,
        text=True,
        check=True,
    )
    case = new.stdout.strip()
    options = ["--timeout", f"{seconds:g}"]
    if where == "ssh":
        options += [
            "--host", cluster.alias(0),
            "--ssh-config", str(cluster.ssh_config_path),
            "--known-hosts", str(cluster.known_hosts_path),
        ]  # fmt: skip
    quiet, loud = [], []
    for _ in range(repeats):
        quiet.append(_cli_peak_mb(db, ["probe", case, "command", *options, "--", "true"]))
        loud.append(_cli_peak_mb(db, ["probe", case, "command", *options, "--", "yes"]))
    quiet_mb, loud_mb = statistics.median(quiet), statistics.median(loud)
    return {
        "quiet_peak_rss_mb": round(quiet_mb, 1),
        "runaway_peak_rss_mb": round(loud_mb, 1),
        "runaway_worst_peak_rss_mb": round(max(loud), 1),
        "ratio": round(loud_mb / quiet_mb, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="casefile-bench-runaway-") as tmp:
        cluster = start_cluster(Path(tmp), 1)
        try:
            figures = {
                where: bench(where, options.seconds, options.repeats, cluster)
                for where in ("local", "ssh")
            }
            for where in ("local", "ssh"):
                figures[f"cli {where}"] = bench_cli(
                    where, options.seconds, options.repeats, cluster, Path(tmp)
                )
        finally:
            cluster.stop()
    machine = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    print(f"{'':<9} {'true':>9} {'yes':>10} {'worst':>10} {'ratio':>7} {'drained':>12}")
    for where, f in figures.items():
        drained = f"{f['drained_mb_per_s']:>7.1f} MB/s" if "drained_mb_per_s" in f else ""
        print(
            f"{where:<9} {f['quiet_peak_rss_mb']:>6.1f} MB {f['runaway_peak_rss_mb']:>7.1f} MB "
            f"{f['runaway_worst_peak_rss_mb']:>7.1f} MB {f['ratio']:>6.2f}x {drained:>12}"
        )
    ok = all(f["runaway_worst_peak_rss_mb"] < TARGET_MB for f in figures.values())
    print(f"target: runaway peak < {TARGET_MB} MB: {'met' if ok else 'MISSED'}")
    summary = {"machine": machine, "seconds": options.seconds, "repeats": options.repeats}
    print(json.dumps({**summary, "figures": figures, "target_met": ok}, indent=2))


if __name__ == "__main__":
    main()
