"""Run one probe command in a fresh interpreter and report its peak memory (for the runaway
tests and benchmarks/bench_runaway_probe.py).

The child runs the runner under an address-space limit, so the unbounded capture of the past
fails fast with MemoryError instead of taking the test machine's memory with it. It prints one
JSON line: peak RSS, the result's flags and byte counts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]

#: the child's address-space limit: generous for an interpreter with paramiko and a few threads
ADDRESS_SPACE_LIMIT = 3 * 1024**3

_CHILD = r"""
import json, resource, sys
from pathlib import Path
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
spec = json.loads(sys.argv[2])
if spec["where"] == "local":
    from casefile.probes.runners.local import LocalRunner
    result = LocalRunner().run(spec["argv"], timeout_s=spec["timeout_s"])
else:
    from casefile.probes.runners.ssh import SshRunner
    with SshRunner(
        known_hosts_path=Path(spec["known_hosts"]), ssh_config_path=Path(spec["ssh_config"]),
        identity_files=[spec["key"]], allow_agent=False, look_for_keys=False,
    ) as runner:
        result = runner.run(spec["target"], spec["argv"], timeout_s=spec["timeout_s"])
# The child's own high-water mark: VmHWM belongs to the memory it has had since exec.
# ru_maxrss does not: Linux carries the parent's peak over the fork and the exec, so under a
# long pytest run grown past the limit it read the test process's own size (512.4 MB for
# both runaway tests in one CI run, where the child's own peak is about 40 MB).
try:
    status = Path("/proc/self/status").read_text()
    peak_kib = next(int(l.split()[1]) for l in status.splitlines() if l.startswith("VmHWM:"))
except (OSError, StopIteration, ValueError):
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({
    "peak_rss_mb": peak_kib / 1024,
    "timed_out": result.timed_out,
    "error": result.error,
    "stdout_kept": len(result.raw_stdout()),
    "truncated": [cut.to_dict() for cut in result.truncated],
}))
"""


def measure(spec: dict[str, object], timeout_s: float = 120) -> dict[str, object]:
    """Run ``spec`` (``where``: local or ssh, ``argv``, ``timeout_s``, SSH paths) in a child."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(ADDRESS_SPACE_LIMIT), json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        cwd=_REPO,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"the measuring child failed ({done.returncode}): {done.stderr}")
    measured: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    measured["stderr"] = done.stderr
    return measured
