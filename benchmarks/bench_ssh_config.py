"""What asking OpenSSH for host options, and reading known_hosts line by line, cost.

(a) Resolving one alias in a 200-host config (the alias in an included file): ``ssh -G`` (what
    the runner does now) vs paramiko's ``SSHConfig.from_path`` + ``lookup`` (what it did before,
    which missed the Include), each on a fresh config object, as a new runner would. Both are
    set against one fresh SSH connection to a loopback sshd, measured in the same process: the
    resolution happens once per host name and runner, the connection once per host.
(b) The fallback (no ``ssh`` binary): Include expansion + paramiko's parser vs paramiko's parser
    alone on the same text already inlined.
(c) Loading a 1,000-entry known_hosts (half hashed) and looking one host up, as every new
    connection does: casefile's marker-aware loader vs ``paramiko.HostKeys`` (what the runner
    used before) on the same file without the marker lines paramiko cannot read.

Ratios are medians of interleaved runs. Run: ``.venv/bin/python benchmarks/bench_ssh_config.py``
(``--repeats N``). Prints a table, then a JSON summary.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import paramiko

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from casefile.probes.runners.ssh_config import OpenSshConfig, expand_includes
from casefile.probes.runners.ssh_known_hosts import load_known_hosts
from tests.runners.sshd import host_block, make_runner, start_cluster

HOSTS = 200
KNOWN = 1000


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved(repeats: int, **fns: Callable[[], object]) -> dict[str, float]:
    """Median seconds per function, the functions alternating so drift hits them alike."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            times[name].append(timed(fn))
    return {name: statistics.median(values) for name, values in times.items()}


def write_configs(root: Path) -> tuple[Path, Path]:
    """A config with HOSTS aliases and one more in an included file; the same text inlined."""
    blocks = [f"Host gpu{i}\n    HostName 127.0.0.1\n    Port {2200 + i}\n" for i in range(HOSTS)]
    included = root / "lab.conf"
    included.write_text("Host target\n    HostName 127.0.0.1\n    Port 2999\n")
    config = root / "config"
    config.write_text(f"Include {included}\n" + "".join(blocks))  # at the top: unconditional
    inlined = root / "inlined"
    inlined.write_text(included.read_text() + "".join(blocks))
    return config, inlined


def write_known_hosts(root: Path) -> tuple[Path, Path]:
    key = paramiko.ECDSAKey.generate()
    lines = []
    for i in range(KNOWN):
        name = f"[10.0.{i // 250}.{i % 250}]:22"
        shown = paramiko.HostKeys.hash_host(name) if i % 2 else name
        lines.append(f"{shown} {key.get_name()} {key.get_base64()}\n")
    plain = root / "known_hosts.plain"
    plain.write_text("".join(lines))
    marked = root / "known_hosts.marked"
    marked.write_text(
        "".join(lines)
        + f"@cert-authority *.lab {key.get_name()} {key.get_base64()}\n"
        + f"@revoked old-box {key.get_name()} {key.get_base64()}\n"
    )
    return plain, marked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    rows: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ssh-config-") as tmp:
        root = Path(tmp)
        config, inlined = write_configs(root)
        found = OpenSshConfig(config).lookup("target")
        assert found["port"] == "2999", found  # ssh -G sees the included alias
        assert paramiko.SSHConfig.from_path(str(config)).lookup("target").get("port") is None

        cluster = start_cluster(root / "sshd", 1)
        try:
            alias_config = root / "alias_config"
            alias_config.write_text(host_block("box", cluster, 0))

            def fresh_connection() -> None:
                with make_runner(cluster, ssh_config_path=alias_config) as runner:
                    result = runner.run("box", ["true"])
                    assert result.ok, result.error

            rows |= {
                f"a_{k}": v
                for k, v in interleaved(
                    args.repeats,
                    ssh_g=lambda: OpenSshConfig(config).lookup("target"),
                    paramiko=lambda: paramiko.SSHConfig.from_path(str(config)).lookup("target"),
                    connection=fresh_connection,
                ).items()
            }
        finally:
            cluster.stop()

        def fallback() -> None:
            OpenSshConfig(config, use_ssh=False, ssh_dir=root).lookup("target")

        def plain_parse() -> None:
            parsed = paramiko.SSHConfig()
            parsed.parse(io.StringIO(inlined.read_text()))
            parsed.lookup("target")

        assert expand_includes(config, base_dir=root).count("Host target") == 1
        rows |= {
            f"b_{k}": v
            for k, v in interleaved(args.repeats, fallback=fallback, paramiko=plain_parse).items()
        }

        plain, marked = write_known_hosts(root)
        name = "[10.0.3.7]:22"  # the 758th entry, plain (odd entries are hashed)
        assert len(load_known_hosts([marked]).lines) == KNOWN
        assert load_known_hosts([marked]).for_host(name).lookup(name) is not None
        assert paramiko.HostKeys(str(plain)).lookup(name) is not None
        rows |= {
            f"c_{k}": v
            for k, v in interleaved(
                3,  # paramiko takes seconds here
                casefile=lambda: load_known_hosts([marked]).for_host(name).lookup(name),
                paramiko=lambda: paramiko.HostKeys(str(plain)).lookup(name),
            ).items()
        }

    summary = {
        **{k: round(v * 1000, 3) for k, v in rows.items()},
        "a_ssh_g_vs_paramiko": round(rows["a_ssh_g"] / rows["a_paramiko"], 2),
        "a_ssh_g_vs_connection": round(rows["a_ssh_g"] / rows["a_connection"], 3),
        "b_fallback_vs_paramiko": round(rows["b_fallback"] / rows["b_paramiko"], 2),
        "c_paramiko_vs_casefile": round(rows["c_paramiko"] / rows["c_casefile"], 1),
    }
    print(f"{'figure':<58} {'median':>10}")
    labels = {
        "a_ssh_g": f"(a) ssh -G, {HOSTS}-host config + Include",
        "a_paramiko": "(a) paramiko from_path + lookup (misses the Include)",
        "a_connection": "(a) one fresh SSH connection + `true` (loopback)",
        "b_fallback": "(b) fallback: Include expansion + paramiko parse",
        "b_paramiko": "(b) paramiko parse of the inlined text",
        "c_casefile": f"(c) casefile known_hosts load + lookup, {KNOWN} entries",
        "c_paramiko": f"(c) paramiko HostKeys load + lookup, {KNOWN} entries",
    }
    for key, label in labels.items():
        print(f"{label:<58} {rows[key] * 1000:>8.2f} ms")
    for key in (k for k in summary if "_vs_" in k):
        print(f"{key:<58} {summary[key]:>9}×")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
