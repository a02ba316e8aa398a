"""Commands about probes: run or paste one into a case, parse a file, list plugins."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from casefile.app.service import ProbeRecord
from casefile.cli import context
from casefile.cli.parsing import moment, positive_seconds
from casefile.domain.events import utc_now
from casefile.errors import RunnerError
from casefile.plugins import list_plugins
from casefile.probes.runners.result import RunResult

if TYPE_CHECKING:
    from casefile.probes.api import Probe

LOADS = ("idle", "under-load", "unknown")


def _sample(probe: Probe, window_s: float) -> RunResult:
    assert probe.sampler is not None
    started, t0 = utc_now(), time.monotonic()
    try:
        output, error = probe.sampler(window_s), None
    except Exception as exc:  # a sampler failure is data, like a dead host
        output, error = "", f"{type(exc).__name__}: {exc}"
    return RunResult(
        argv=(probe.name, f"--window={window_s:g}"),
        host="localhost",
        exit_status=0 if error is None else None,
        stdout=output,
        stderr="",
        started_at=started,
        finished_at=utc_now(),
        duration_s=time.monotonic() - t0,
        error=error,
        source="sampler",
    )


def collect(args: argparse.Namespace, probe: Probe) -> list[RunResult]:
    """Run the probe where the arguments say, or take pasted output."""
    argv = tuple(args.argv) if args.argv else probe.argv
    if args.paste is not None:
        from casefile.probes.runners import pasted

        if not argv:
            raise RunnerError(
                f"probe {probe.name}: say which command produced the output (-- ARGV)"
            )
        host = args.host[0] if args.host else "unknown"
        taken = args.taken_at or utc_now()
        if args.paste == "-":
            return [pasted.from_stream(argv, sys.stdin, host=host, taken_at=taken)]
        return [pasted.from_file(argv, args.paste, host=host, taken_at=taken)]
    if probe.sampler is not None and not args.host and not args.argv:
        return [_sample(probe, args.window)]
    if not argv:
        raise RunnerError(f"probe {probe.name} has no default command: give one after --")
    if args.host:
        from casefile.probes.runners.fanout import fan_out
        from casefile.probes.runners.ssh import SshRunner

        with SshRunner(
            trust_unknown_host=args.trust_host,
            known_hosts_path=args.known_hosts,
            ssh_config_path=args.ssh_config,
            connect_timeout_s=args.connect_timeout,
        ) as ssh:
            runners = [ssh.target(host) for host in args.host]
            return fan_out(runners, argv, timeout_s=args.timeout)
    from casefile.probes.runners.local import LocalRunner

    return [LocalRunner().run(argv, timeout_s=args.timeout)]


def failure(result: RunResult) -> str | None:
    """Why a run failed, as one line for stderr; None when the command ran and exited 0."""
    if result.error:
        reason = result.error
        if result.error_kind == "host_key_unknown":
            # The runner's advice names its Python API; on the command line it is a flag.
            reason = reason.split("; check the fingerprint", 1)[0] + (
                "; check the fingerprint with the host's owner, then rerun with --trust-host "
                "to accept it and save it"
            )
    elif result.timed_out:
        reason = f"timed out after {result.duration_s:.1f}s"
    elif result.exit_status not in (0, None):  # None: pasted output, whose status is unknown
        program = result.argv[0] if result.argv else "the command"
        reason = f"{program} exited with status {result.exit_status} (the run is recorded)"
    else:
        return None
    return " ".join(reason.split())


def describe(record: ProbeRecord) -> str:
    parse = record.parse
    state = f"{len(parse.facts)} facts" if parse.parsed else "did not parse"
    parts = [f"probe run {record.probe_run_seq} on {record.result.host}: {state}"]
    if parse.problems:
        parts.append("problems: " + "; ".join(parse.problems[:3]))
    if record.evidence_ids:
        parts.append("evidence " + ", ".join(record.evidence_ids))
    if record.set_aside:
        parts.append("set aside by " + ", ".join(record.set_aside))
    return " — ".join(parts)


def cmd_probe(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    probe = opened.service.registry.probe(args.probe)
    failures = 0
    for result in collect(args, probe):
        record = opened.service.record_probe(
            opened.case_id,
            probe,
            result,
            load=args.load,
            reconstructed=args.reconstructed,
            note=args.note,
            actor=args.actor,
            occurred_at=args.at or (result.started_at if result.source == "pasted" else None),
        )
        print(describe(record))
        reason = failure(result)
        if reason is None and not record.parse.parsed:
            # a sampler that could not start, or output of another tool: nothing was learned
            why = "; ".join(record.parse.problems[:1]) or "no reason given"
            reason = f"output did not parse: {why} (the raw output is recorded)"
        if reason is not None:  # recorded all the same: a failed run is data
            failures += 1
            print(f"casefile: {result.host}: {reason}", file=sys.stderr)
    return 1 if failures else 0


def _probe_checks(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], None]:
    """Checks across options that argparse cannot express; each failure is a usage error."""

    def check(args: argparse.Namespace) -> None:
        if args.paste is not None and args.host and len(args.host) > 1:
            parser.error(
                "--paste records the output of one host: give at most one --host "
                f"(got {len(args.host)})"
            )

    return check


def cmd_parse(args: argparse.Namespace) -> int:
    probe = context.registry().probe(args.probe)
    try:
        with open(args.file, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError as error:
        raise RunnerError(f"cannot read {args.file}: {error.strerror}") from None
    result = probe.safe_parse(text)
    if args.json:
        print(
            json.dumps(
                {
                    "probe": probe.name,
                    "parsed": result.parsed,
                    "facts": [f.to_dict() for f in result.facts],
                    "problems": result.problems,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        for fact in result.facts:
            unit = f" {fact.unit}" if fact.unit else ""
            print(f"{fact.subject:<16} {fact.name:<36} {fact.value}{unit}")
        for problem in result.problems:
            print(f"problem: {problem}", file=sys.stderr)
    if not result.parsed:
        print(f"casefile: {args.file} did not parse as {probe.name}", file=sys.stderr)
        return 1
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    infos = list_plugins()
    if args.check:
        registry = context.registry()
        registry.all_probes()
        registry.all_playbooks()
    for info in infos:
        kind = info.group.split(".")[-1].rstrip("s")
        print(f"{kind:<9} {info.name:<22} {info.target:<44} {info.distribution or ''}")
    return 0


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "probe",
        parents=[common],
        help="run a probe (locally, over SSH, or from pasted output) and record it",
        usage="casefile probe CASE PROBE [options] [-- COMMAND ARG…]",
        description="Run PROBE and record its output, facts and what the rules make of them. "
        "Give a different command after --, e.g. `casefile probe C lspci -- lspci -vvs 01:00.0`; "
        "each word reaches the program as one argument, never through a shell.",
    )
    p.add_argument("case")
    p.add_argument("probe")
    p.set_defaults(argv=[])
    p.add_argument("--host", action="append", help="SSH target [user@]host[:port] (repeatable)")
    p.add_argument("--load", choices=LOADS, default="unknown", help="load state when taken")
    p.add_argument("--paste", metavar="FILE", help="take output captured elsewhere ('-': stdin)")
    p.add_argument("--taken-at", type=moment, help="when pasted output was taken (ISO 8601)")
    p.add_argument(
        "--timeout", type=positive_seconds, default=60.0, help="command timeout, seconds"
    )
    p.add_argument(
        "--connect-timeout", type=positive_seconds, default=10.0, help="SSH connect timeout"
    )
    p.add_argument("--trust-host", action="store_true", help="accept and save an unknown host key")
    p.add_argument("--known-hosts", type=Path, help="known_hosts file (default ~/.ssh/known_hosts)")
    p.add_argument("--ssh-config", type=Path, help="ssh config file (default ~/.ssh/config)")
    p.add_argument(
        "--window", type=positive_seconds, default=2.0, help="sampling window for samplers"
    )
    p.add_argument("--reconstructed", action="store_true", help="output rebuilt, not captured")
    p.add_argument("--note", help="a remark stored with the probe run")
    p.add_argument("--actor", default="user")
    p.add_argument("--at", type=moment, help="when it happened, if not now")
    p.set_defaults(handler=cmd_probe, validate=_probe_checks(p))

    p = sub.add_parser("parse", help="parse a file with a probe's parser (no case)")
    p.add_argument("probe")
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_parse)

    p = sub.add_parser("plugins", help="list installed probes and playbooks (without importing)")
    p.add_argument("--check", action="store_true", help="also import each, reporting failures")
    p.set_defaults(handler=cmd_plugins)
