"""Benchmark the SSH runner against real sshd processes on loopback.

(a) Fan-out: one ``sleep 0.5`` on 32 targets (8 sshd ports × 4 loopback addresses, so 32
    separate connections) against the same command on one target, both on connections that are
    already open. Target: 32-way wall time ≤ 1.5 × the single target's. The cold figure (the 32
    connections dialled inside the timing) is reported too.
(b) Per-command overhead: ten consecutive ``true`` on one reused connection, minus the time the
    same login-shell command takes locally. Target: ≤ 10 ms each, and ≥ 3× faster than ten
    fresh connections.

Run: ``.venv/bin/python benchmarks/bench_ssh.py``. Prints a table, then a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pwd
import select
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from casefile.probes.runners import RunResult, SshRunner
from tests.runners.sshd import SshdCluster, make_runner, start_cluster

PORTS = 8
ADDRESSES = ("127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4")
SLEEP = ["sleep", "0.5"]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def check(results: Sequence[RunResult]) -> None:
    bad = [r for r in results if not r.ok]
    if bad:
        raise SystemExit(f"benchmark command failed: {bad[0]}")


def bench_fan_out(cluster: SshdCluster, repeats: int, workers: int) -> dict[str, object]:
    targets = cluster.targets()
    with make_runner(cluster) as runner:
        check(runner.fan_out(targets, ["true"], max_workers=workers))  # open all connections
        assert runner.pool.connect_count == len(targets)
        single = [timed(lambda: check([runner.run(targets[0], SLEEP)])) for _ in range(repeats)]
        many = [
            timed(lambda: check(runner.fan_out(targets, SLEEP, max_workers=workers)))
            for _ in range(repeats)
        ]
        default_workers = [
            timed(lambda: check(runner.fan_out(targets, SLEEP)))
            for _ in range(max(repeats // 2, 1))
        ]
    cold = []
    for _ in range(max(repeats // 2, 1)):
        with make_runner(cluster) as runner:
            cold.append(timed(lambda: check(runner.fan_out(targets, SLEEP, max_workers=workers))))
    single_s = statistics.median(single)
    many_s = statistics.median(many)
    return {
        "targets": len(targets),
        "connections": len(targets),
        "max_workers": workers,
        "single_warm_s": round(single_s, 4),
        "fan_out_warm_s": round(many_s, 4),
        "fan_out_warm_ratio": round(many_s / single_s, 3),
        "fan_out_warm_default_16_workers_s": round(statistics.median(default_workers), 4),
        "fan_out_cold_s": round(statistics.median(cold), 4),
        "fan_out_cold_ratio": round(statistics.median(cold) / single_s, 3),
        "target_ratio": 1.5,
        "pass": many_s / single_s <= 1.5,
    }


def spawn_and_wait(shell: str) -> None:
    pid = os.posix_spawn(shell, [shell, "-c", "true"], dict(os.environ))
    os.waitpid(pid, 0)


def channel_phases(runner: SshRunner, target: str, count: int) -> dict[str, float]:
    """Where the time of one pooled command goes, step by step on the same transport.

    ``exec_to_eof`` is the remote side running ``$SHELL -c true``; the rest is protocol.
    """
    transport = runner.transport(target)
    assert transport is not None
    rows: list[tuple[float, ...]] = []
    for _ in range(count * 3):
        t0 = time.perf_counter()
        channel = transport.open_session()
        t1 = time.perf_counter()
        channel.exec_command("true")
        t2 = time.perf_counter()
        wakeup = channel.fileno()
        while not channel.eof_received:
            select.select([wakeup], [], [], 1.0)
        t3 = time.perf_counter()
        channel.status_event.wait()
        t4 = time.perf_counter()
        channel.close()
        t5 = time.perf_counter()
        rows.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4))
    names = ("open_session", "exec_request", "exec_to_eof", "eof_to_exit_status", "close")
    columns = zip(*rows, strict=True)
    return {n: round(statistics.median(c) * 1e3, 2) for n, c in zip(names, columns, strict=True)}


def bench_overhead(cluster: SshdCluster, count: int) -> dict[str, object]:
    target = cluster.target(0)
    # sshd runs the command as `$SHELL -c 'true'`; time exactly that locally as the baseline.
    # posix_spawn + waitpid is close to sshd's own fork/exec, without subprocess's extra cost.
    shell = pwd.getpwuid(os.getuid()).pw_shell or "/bin/sh"
    baseline = statistics.median(timed(lambda: spawn_and_wait(shell)) for _ in range(20))
    with make_runner(cluster) as runner:
        check([runner.run(target, ["true"])])  # dial once, outside the timing
        reused = [timed(lambda: check([runner.run(target, ["true"])])) for _ in range(count)]
        assert runner.pool.connect_count == 1
        phases = channel_phases(runner, target, count)
    fresh = []
    for _ in range(count):
        runner = make_runner(cluster)
        fresh.append(timed(lambda: check([runner.run(target, ["true"])])))  # noqa: B023
        runner.close()
    reused_s = statistics.median(reused)
    fresh_s = statistics.median(fresh)
    overhead = [t - baseline for t in reused]
    return {
        "commands": count,
        "local_shell_true_ms": round(baseline * 1e3, 2),
        "reused_per_command_ms": [round(t * 1e3, 2) for t in reused],
        "reused_median_ms": round(reused_s * 1e3, 2),
        "overhead_median_ms": round(statistics.median(overhead) * 1e3, 2),
        "overhead_max_ms": round(max(overhead) * 1e3, 2),
        "phases_median_ms": phases,
        # The client and protocol share: wall time minus the server's exec-to-EOF span.
        "protocol_overhead_median_ms": round(reused_s * 1e3 - phases["exec_to_eof"], 2),
        "fresh_median_ms": round(fresh_s * 1e3, 2),
        "fresh_over_reused": round(fresh_s / reused_s, 1),
        "target_overhead_ms": 10,
        "target_speedup": 3,
        "pass": statistics.median(overhead) * 1e3 <= 10 and fresh_s / reused_s >= 3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workers", type=int, default=32)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="casefile-bench-ssh-") as tmp:
        cluster = start_cluster(Path(tmp), PORTS, addresses=ADDRESSES)
        try:
            fan = bench_fan_out(cluster, options.repeats, options.workers)
            over = bench_overhead(cluster, 10)
            phases = over["phases_median_ms"]
            assert isinstance(phases, dict)
        finally:
            cluster.stop()
    machine = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    rows = [
        ("load average (1 min) at the end", f"{machine['load_average_1m']:.2f}"),
        ("1 target, sleep 0.5, warm", f"{fan['single_warm_s']:.3f} s"),
        (
            f"32 targets, sleep 0.5, warm ({fan['max_workers']} workers)",
            f"{fan['fan_out_warm_s']:.3f} s",
        ),
        ("  ratio (target <= 1.5)", f"{fan['fan_out_warm_ratio']:.2f}x"),
        (
            "32 targets, warm, default 16 workers",
            f"{fan['fan_out_warm_default_16_workers_s']:.3f} s",
        ),
        ("32 targets, cold (dial inside timing)", f"{fan['fan_out_cold_s']:.3f} s"),
        ("local $SHELL -c true (posix_spawn)", f"{over['local_shell_true_ms']:.2f} ms"),
        ("`true` over reused connection, median", f"{over['reused_median_ms']:.2f} ms"),
        ("  overhead beyond the command (target <= 10)", f"{over['overhead_median_ms']:.2f} ms"),
        ("  overhead, worst of 10", f"{over['overhead_max_ms']:.2f} ms"),
        ("  beyond the server's exec-to-EOF", f"{over['protocol_overhead_median_ms']:.2f} ms"),
        *((f"  phase {name}", f"{value:.2f} ms") for name, value in phases.items()),
        ("`true` over a fresh connection, median", f"{over['fresh_median_ms']:.2f} ms"),
        ("  fresh / reused (target >= 3)", f"{over['fresh_over_reused']:.1f}x"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value:>10}")
    print(json.dumps({"machine": machine, "fan_out": fan, "overhead": over}, indent=2))


if __name__ == "__main__":
    main()
