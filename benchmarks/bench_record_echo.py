"""Keystroke echo through ``casefile record`` against the shell's own, in a pseudo-terminal.

bash is started twice in a pty: directly (with the same rc file, so the prompt and marks are
the same) and under ``casefile record``. For each, ``--keys`` single keystrokes are typed at the
prompt, one at a time, and the time from writing a key to reading its echo is measured; the
median of ``record`` minus the median of the direct shell is the latency ``record`` adds.
Target: at most 5 ms. Prints a table, then one JSON line. Run:
``.venv/bin/python benchmarks/bench_record_echo.py [--keys 200]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pty
import select
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TARGET_MS = 5.0


def _wait_for(fd: int, needle: bytes, timeout: float = 20.0) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise TimeoutError(f"no {needle!r}; saw {seen[-200:]!r}")
        seen += os.read(fd, 65536)
    return seen


def echo_times(argv: list[str], env: dict[str, str], keys: int) -> list[float]:
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(argv[0], argv, env)
    try:
        _wait_for(fd, b"\x1b]133;B")
        times = []
        for index in range(keys):
            key = b"abcdefghij"[index % 10 : index % 10 + 1]
            started = time.perf_counter()
            os.write(fd, key)
            _wait_for(fd, key)
            times.append(time.perf_counter() - started)
        os.write(fd, b"\x15exit\r")  # (Ctrl-U drops the typed keys first)
        time.sleep(0.5)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    return times


def main() -> None:
    from casefile.transcripts.live import integration

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keys", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(
            os.environ,
            SHELL="/bin/bash",
            TERM="dumb",
            HOME=tmp,
            CASEFILE_RECORD_NORC="1",
            CASEFILE_DB=f"sqlite:///{tmp}/bench.db",
        )
        subprocess_new = [sys.executable, "-m", "casefile", "new", "echo", "--id", "echo"]
        os.spawnve(os.P_WAIT, sys.executable, subprocess_new, env)
        with integration("/bin/bash", Path(tmp), env) as (direct, shell_env):
            plain = echo_times(direct, shell_env, args.keys)
        recorded = echo_times(
            [sys.executable, "-m", "casefile", "record", "echo", "--dry-run"], env, args.keys
        )
    direct_ms = statistics.median(plain) * 1000
    record_ms = statistics.median(recorded) * 1000
    added = record_ms - direct_ms
    print(f"{'shell':<18} {'median echo':>12}")
    print(f"{'bash directly':<18} {direct_ms:>10.3f}ms")
    print(f"{'under record':<18} {record_ms:>10.3f}ms")
    print(f"added {added:.3f} ms (target ≤ {TARGET_MS} ms)")
    print(
        json.dumps(
            {
                "keys": args.keys,
                "direct_ms": round(direct_ms, 3),
                "record_ms": round(record_ms, 3),
                "added_ms": round(added, 3),
                "target_ms": TARGET_MS,
                "ok": added <= TARGET_MS,
            }
        )
    )


if __name__ == "__main__":
    main()
