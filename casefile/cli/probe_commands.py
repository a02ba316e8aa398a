"""Commands about probes: run or paste one into a case, parse a file, list plugins.

``casefile probe`` turns its options into a :class:`~casefile.app.probing.ProbeRequest` and
hands it to the service, which chooses the runners; it prints each host's record as it lands.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from casefile.app.probing import LOADS
from casefile.cli.parsing import (
    moment,
    positive_seconds,
    read_input,
    refuse_undecodable,
    who,
    who_and_when,
)
from casefile.cli.terminal import say, say_json
from casefile.errors import CasefileError

if TYPE_CHECKING:
    from casefile.app.probing import CancelToken, ProbeRequest
    from casefile.app.recording import ProbeRecord


def fact_option(text: str) -> str:
    """``--fact NAME=REGEX``: a fact to pull out of the output (see casefile.probes.patterns),
    checked here so a bad one is a usage error; the action keeps the text."""
    from casefile.probes.patterns import fact_pattern

    name, sep, regex = text.partition("=")
    if not sep or not name or not regex:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give NAME=REGEX, e.g. 'tokens_per_s=([0-9.]+) tok/s'"
        )
    try:
        fact_pattern(name, regex)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def request_from(args: argparse.Namespace) -> ProbeRequest:
    """The probe request the options describe: the probe row's action, then its request with
    the SSH settings the command line gives."""
    from casefile.actions.probe_actions import PROBE
    from casefile.app.probing import SshOptions, check_setup
    from casefile.cli.action_commands import action_from

    if args.setup is not None:
        check_setup(args.setup)  # a blank label is refused, not taken for none
    action = action_from(PROBE, args, args.row_dests)
    ssh = SshOptions(args.ssh_config, args.known_hosts, args.connect_timeout)
    try:
        return action.request(ssh)  # type: ignore[no-any-return]
    except ValueError as error:
        raise CasefileError(str(error)) from None


def describe(record: ProbeRecord) -> str:
    parse = record.parse
    count = len(parse.facts)
    state = f"{count} {'fact' if count == 1 else 'facts'}" if parse.parsed else "did not parse"
    parts = [f"probe run {record.probe_run_seq} on {record.result.host}: {state}"]
    if record.read_as:
        parts.append("read as " + ", ".join(record.read_as))
    if parse.problems:
        parts.append("problems: " + "; ".join(parse.problems[:3]))
    if record.evidence_ids:
        parts.append("evidence " + ", ".join(record.evidence_ids))
    if record.set_aside:
        parts.append("set aside by " + ", ".join(record.set_aside))
    if record.withdrawn:
        parts.append("withdrawn at once: " + ", ".join(record.withdrawn))
    if record.result.source == "stated" and record.setup is None:
        from casefile.actions.probe_actions import stated_words

        parts.append(stated_words(record))
    elif record.wanting and record.setup is None:
        from casefile.actions.probe_actions import wanting_words

        parts.append(wanting_words(record))
    if record.setup is not None:
        parts.append(f"taken on another setup ({record.setup}): kept to compare, no rule read it")
    return " — ".join(parts)


def scrubbed_line(count: int, where: str) -> str:
    """The one line saying how many secrets were kept out of what was sealed."""
    secrets = "secret" if count == 1 else "secrets"
    return f"casefile: {count} {secrets} scrubbed from {where} (--no-scrub keeps them)"


def record_json(record: ProbeRecord) -> dict[str, object]:
    """One host's line of ``probe --json``: what was appended, and how the run went."""
    result = record.result
    status = "cancelled" if result.cancelled else "failed" if record.failure else "ok"
    return {
        "host": result.host,
        "ok": record.failure is None,
        "status": status,
        "probe_run_seq": record.probe_run_seq,
        "wanting": list(record.wanting),
        "intake_reads": list(record.intake_reads),
        "observation_seq": record.observation_seq,
        "seqs": list(record.seqs),
        "failure": record.failure,
        "error_kind": result.error_kind,
        "exit_status": result.exit_status,
        "timed_out": result.timed_out,
        "truncated": [cut.to_dict() for cut in result.truncated],
        "evidence": record.evidence_ids,
        "set_aside": record.set_aside,
        "withdrawn": list(record.withdrawn),
        "setup": record.setup,
        "read_as": list(record.read_as),
    }


#: The signals that cancel running probes, the reason each records, and the exit status a
#: command cancelled by it ends with (128 + the signal's number, as a shell reports it).
CANCELLING_SIGNALS = {
    signal.SIGINT: ("Ctrl-C", 130),
    signal.SIGTERM: ("SIGTERM", 143),
}


@contextmanager
def signals_cancel(cancel: CancelToken) -> Iterator[None]:
    """While running probes, the first Ctrl-C or SIGTERM (sent by ``timeout``, systemd, a CI
    that cancels a job) cancels them: each command's process group is ended, what finished is
    kept and the rest is recorded as cancelled with the output it had; a second one aborts at
    once. A signal someone else handles or ignores is left as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    previous = {signum: signal.getsignal(signum) for signum in CANCELLING_SIGNALS}

    def on_signal(signum: int, frame: object) -> None:
        if cancel.cancelled:
            raise KeyboardInterrupt
        cancel.cancel(CANCELLING_SIGNALS[signal.Signals(signum)][0])

    taken = [signum for signum, handler in previous.items() if handler is defaults[signum]]
    for signum in taken:
        signal.signal(signum, on_signal)
    try:
        yield
    finally:
        for signum in taken:
            signal.signal(signum, previous[signum])


def exit_status_of(cancel: CancelToken) -> int:
    """What a command whose probes were cancelled exits with: 143 for SIGTERM, else 130."""
    for reason, status in CANCELLING_SIGNALS.values():
        if cancel.reason == reason:
            return status
    return 130


def cmd_probe(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.app.probing import CancelToken, remedy_for
    from casefile.cli.errors import flag_hint

    failures = finished = cancelled = scrubbed = 0
    cancel = CancelToken()
    with open_case(args.case, args.db) as opened:
        service = opened.service
        service.probing.probe(args.probe)  # an unknown probe: refused before anything runs
        request = request_from(args)
        runs = service.probing.run_probe(opened.case_id, request, who(args), cancel=cancel)
        with signals_cancel(cancel):
            for record in runs:
                host = record.result.host
                if args.json:
                    say_json(json.dumps(record_json(record), ensure_ascii=False), flush=True)
                else:
                    say(describe(record), flush=True)
                cancelled += record.result.cancelled
                scrubbed += record.scrubbed
                finished += not record.result.cancelled
                if record.failure is not None:  # recorded all the same: a failed run is data
                    failures += 1
                    hint = flag_hint(remedy_for(record.result))
                    say(f"casefile: {host}: {record.failure}{hint}", file=sys.stderr)
                for cut in record.result.truncated:
                    say(f"casefile: {host}: {cut.describe()}", file=sys.stderr)
    if scrubbed:
        say(scrubbed_line(scrubbed, "the output"), file=sys.stderr)
    if cancel.cancelled:
        ended = "interrupted" if cancel.reason == "Ctrl-C" else f"terminated ({cancel.reason})"
        say(
            f"casefile: {ended}: {finished} finished run(s) recorded; {cancelled} cancelled "
            "and recorded as failed run(s)",
            file=sys.stderr,
        )
        return exit_status_of(cancel)
    return 1 if failures else 0


def _probe_checks(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], None]:
    """Checks across options that argparse cannot express; each failure is a usage error."""

    def check(args: argparse.Namespace) -> None:
        refuse_undecodable(args)  # this validate replaces the one who_and_when() gives
        if args.paste is not None and args.host and len(args.host) > 1:
            parser.error(
                "--paste records the output of one host: give at most one --host "
                f"(got {len(args.host)})"
            )

    return check


def cmd_parse(args: argparse.Namespace) -> int:
    from casefile.app.opening import registry
    from casefile.app.probing import parse_output

    text = read_input(args.file).decode("utf-8", errors="replace")
    result, read_as, recognised = parse_output(registry(), args.probe, text)
    if args.json:
        facts = [f.to_dict() for f in result.facts]
        shape = {"probe": args.probe, "read_as": list(read_as), "parsed": result.parsed}
        body = {**shape, "facts": facts, "problems": result.problems}
        say_json(json.dumps(body, indent=2, ensure_ascii=False))
    else:
        if read_as:
            say(f"read as {', '.join(read_as)}", file=sys.stderr)
        for fact in result.facts:
            unit = f" {fact.unit}" if fact.unit else ""
            say(f"{fact.subject:<16} {fact.name:<36} {fact.value}{unit}")
        for problem in result.problems:
            say(f"problem: {problem}", file=sys.stderr)
        if result.parsed and not result.facts and not result.problems:
            unread = _unread(args.probe, args.file, recognised)
            say(f"casefile: no facts in {args.file} for {args.probe}{unread}", file=sys.stderr)
    if not result.parsed:
        say(f"casefile: {args.file} did not parse as {args.probe}", file=sys.stderr)
        return 1
    return 0


def _unread(probe: str, file: str, recognised: tuple[str, ...]) -> str:
    """What to try where ``command`` read nothing in a file: the probe that recognised it (its
    own parse says why it read nothing), or the one the output came from."""
    if probe != "command":
        return ""
    if recognised:
        first = recognised[0]
        return f"; {first} recognised it but read nothing (casefile parse {first} {file})"
    return "; no probe recognises it: name the one it came from"


def cmd_plugins(args: argparse.Namespace) -> int:
    from casefile.plugins import list_plugins

    infos = list_plugins()
    if args.check:
        from casefile.app.opening import registry

        found = registry()
        found.all_probes()
        found.all_playbooks()
    if args.json:
        rows = [
            {
                "kind": info.group.split(".")[-1].rstrip("s"),
                "name": info.name,
                "group": info.group,
                "target": info.target,
                "distribution": info.distribution,
            }
            for info in infos
        ]
        say_json(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for info in infos:
        kind = info.group.split(".")[-1].rstrip("s")
        say(f"{kind:<9} {info.name:<22} {info.target:<44} {info.distribution or ''}")
    return 0


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    from casefile.actions.probe_actions import PROBE

    p = sub.add_parser(
        "probe",
        parents=[common, who_and_when()],
        help="run a probe (locally, over SSH, from pasted output, or as stated readings) and "
        "record it",
        usage="casefile probe CASE PROBE [options] [-- COMMAND ARG…]",
        description="Run PROBE and record its output, facts and what the rules make of them. "
        "Give a different command after --, e.g. `casefile probe C lspci -- lspci -vvs 01:00.0`; "
        "each word reaches the program as one argument, never through a shell. Ctrl-C (exit "
        "130) or SIGTERM (exit 143) ends the running commands' process groups and records "
        "them as cancelled with the output they had; a second one aborts at once. With "
        "--stated, nothing runs: the readings a person gives are recorded as this probe's "
        "facts and read as reported evidence.",
    )
    p.add_argument("case")
    p.add_argument("probe")
    p.set_defaults(argv=[])
    p.add_argument("--host", action="append", help=PROBE.option("hosts").help)
    p.add_argument("--load", choices=LOADS, default="unknown", help=PROBE.option("load").help)
    p.add_argument("--paste", metavar="FILE", help=PROBE.option("paste").help)
    p.add_argument(
        "--stated",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=PROBE.option("stated").help,  # the probe action's own words
    )
    p.add_argument(
        "--taken-at",
        type=moment,
        help="when pasted output (or a stated reading) was taken (ISO 8601)",
    )
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=None,
        help="command timeout, seconds (default: the probe's own, e.g. 600 for nccl-tests)",
    )
    p.add_argument(
        "--connect-timeout",
        type=positive_seconds,
        default=10.0,
        help="SSH connect timeout, seconds, for each connection (a ProxyJump hop, then the "
        "target through it)",
    )
    p.add_argument(
        "--trust-host",
        action="store_true",
        help="accept an unknown host key and save it where ssh reads it: the first "
        "UserKnownHostsFile of the SSH config (default ~/.ssh/known_hosts), under its "
        "HostKeyAlias, hashed if it says HashKnownHosts; a changed or revoked key is still "
        "refused",
    )
    p.add_argument(
        "--known-hosts",
        type=Path,
        metavar="FILE",
        help="the one known_hosts file to read and write, instead of those the SSH config "
        "names (UserKnownHostsFile, GlobalKnownHostsFile; by default ~/.ssh/known_hosts and "
        "/etc/ssh/ssh_known_hosts, each with its ...2 file)",
    )
    p.add_argument(
        "--ssh-config",
        type=Path,
        metavar="FILE",
        help="ssh config file, read alone as ssh -F reads it (default: what ssh reads, "
        ".ssh/config in your passwd home directory, not $HOME, then /etc/ssh/ssh_config)",
    )
    p.add_argument(
        "--window", type=positive_seconds, default=2.0, help="sampling window for samplers"
    )
    p.add_argument("--reconstructed", action="store_true", help="output rebuilt, not captured")
    p.add_argument("--note", help="a remark stored with the probe run")
    p.add_argument(
        "--no-scrub",
        dest="scrub",
        action="store_false",
        help="keep secrets (tokens, passwords, keys) in the command, output and note; the run "
        "records that they were kept",
    )
    p.add_argument(
        "--setup",
        metavar="TEXT",
        help="the run was taken on another setup than the one under investigation ('NCCL "
        "2.22', 'after the fix'): kept to compare in an experiment, not read by the rules",
    )
    p.add_argument(
        "--fact",
        action="append",
        type=fact_option,
        default=[],
        metavar="NAME=REGEX",
        help="also record fact NAME from each match of REGEX in the output (its one group, "
        "else the whole match); repeatable",
    )
    p.add_argument(
        "--json", action="store_true", help="one JSON line per host: its seqs and how it went"
    )
    from casefile.cli.action_commands import dests_for

    # where this parser keeps the probe row's options (``--host`` → ``host``)
    p.set_defaults(handler=cmd_probe, validate=_probe_checks(p), row_dests=dests_for(p, PROBE))

    p = sub.add_parser(
        "parse",
        help="parse a file with a probe's parser (no case); what the probe cannot read, or "
        "what is given to 'command', is offered to the probes that recognise it, as a "
        "recorded paste is",
    )
    p.add_argument("probe", help="the probe whose output the file is ('command': any output)")
    p.add_argument("file", help="a regular file, or - for stdin")
    p.add_argument(
        "--json", action="store_true", help="the facts, problems and the probes that read it"
    )
    p.set_defaults(handler=cmd_parse)

    p = sub.add_parser("plugins", help="list installed probes and playbooks (without importing)")
    p.add_argument("--check", action="store_true", help="also import each, reporting failures")
    p.add_argument("--json", action="store_true", help="the list as JSON")
    p.set_defaults(handler=cmd_plugins)
