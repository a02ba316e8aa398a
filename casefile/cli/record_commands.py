"""``casefile record CASE [-- COMMAND …]``: a live shell session recorded into a case.

The user's shell (``$SHELL``: bash or zsh) runs in a pseudo-terminal with casefile's shell
integration, its input and output passed through untouched. When it exits, each command it ran
is recorded with its output and exit status, as ``ingest`` records a transcript (the same
probes, parsing, rules and scrubbing), and a summary is printed. A command typed after a
leading space, or matching ``--exclude``, is not recorded; nor is anything typed at a prompt
that does not echo (only output is kept). With ``-- COMMAND`` (``-- ssh gpu-box``), where no
integration can be set up, the session is one transcript whose commands are proposed for
review as ``ingest`` proposes them.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import sys
import tempfile
from pathlib import Path

from casefile.cli.terminal import say


def _regex(text: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression: {error}") from None


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    from casefile.cli.ingest_commands import LOAD_CHOICES
    from casefile.cli.parsing import who_and_when

    p = sub.add_parser(
        "record",
        parents=[common, who_and_when()],
        help="record a live shell session into a case (each command, its output and status)",
    )
    p.add_argument("case", help="case id, unique prefix, or case directory")
    p.add_argument("argv", nargs="*", metavar="COMMAND", help="after --: run this instead")
    p.add_argument("--load", choices=LOAD_CHOICES, default="unknown", help="load state then")
    p.add_argument("--dry-run", action="store_true", help="show what would be recorded only")
    p.add_argument(
        "--no-scrub",
        dest="scrub",
        action="store_false",
        help="keep secrets (tokens, passwords, keys) in what is recorded; the events say so",
    )
    p.add_argument(
        "--exclude", type=_regex, action="append", default=[], help="commands not to record"
    )
    p.set_defaults(handler=cmd_record)


def cmd_record(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.ingest_commands import _ask, review_table, say_scrubbed
    from casefile.cli.parsing import who
    from casefile.errors import CasefileError
    from casefile.transcripts.live import integration, run_in_pty
    from casefile.transcripts.stream import TranscriptError

    actor = who(args)
    excludes: list[re.Pattern[str]] = args.exclude

    def excluded(line: str) -> bool:
        if line.strip() in ("exit", "logout"):  # how the session ended, not a step in it
            return True
        return line[:1].isspace() or any(pattern.search(line) for pattern in excludes)

    with open_case(args.case, args.db) as opened, tempfile.TemporaryDirectory() as tmp:
        service, case_id = opened.service, opened.case_id
        marks: str | None = None  # the nonce of the integration's marks: only they are trusted
        if args.argv:
            argv, env, integrated = list(args.argv), dict(os.environ), False
            recorded = run_in_pty(argv, env)
        else:
            shell = os.environ.get("SHELL") or "/bin/bash"
            try:
                with integration(shell, Path(tmp), os.environ) as (argv, env, marks):
                    integrated = True
                    recorded = run_in_pty(argv, env)
            except ValueError:
                raise CasefileError(
                    f"record sets up bash and zsh; $SHELL is {shell}: set SHELL=/bin/bash, or "
                    f"record it as one transcript with: casefile record {args.case} -- {shell}"
                ) from None
        try:
            proposal = service.probing.propose_ingest(
                recorded.output,
                "shell-log",
                load=args.load,
                exclude=excluded,
                # a command not run over ssh ran here (with -- COMMAND: wherever that went)
                host=socket.gethostname() if integrated else "unknown",
                marks=marks,
                scrub=args.scrub,
            )
        except TranscriptError:
            say("casefile record: no command to record", file=sys.stderr)
            return 1
        rows = review_table(proposal)
        if args.dry_run:
            say("casefile record: --dry-run: would record", file=sys.stderr)
            for row in rows:
                say(row, file=sys.stderr)
            return 0
        count = len(proposal.items)
        keep = list(range(count))
        if not integrated:
            for row in rows:
                say(row, file=sys.stderr)
            if not sys.stdin.isatty():
                raise CasefileError(
                    "record -- COMMAND asks what to keep, and stdin is not a terminal"
                )
            keep = _ask(count)
        if not keep:
            say("casefile record: nothing appended", file=sys.stderr)
            return 1
        runs = service.probing.ingest(case_id, proposal, keep, actor)
    say(f"casefile record: recorded {len(runs)} command(s) into {case_id}:", file=sys.stderr)
    for run in runs:
        facts = f"{run.facts} fact" if run.facts == 1 else f"{run.facts} facts"
        state = facts if run.parsed else "did not parse"
        if run.read_as:
            state += ", read as " + ", ".join(run.read_as)
        scrubbed = f", scrubbed {', '.join(run.scrubbed)}" if run.scrubbed else ""
        say(f"  {run.probe:<18} {run.line[:60]}  ({state}{scrubbed})", file=sys.stderr)
    say_scrubbed(proposal, keep, "the session")
    if recorded.clipped:
        say(
            "casefile record: the session printed more than is kept; its head is recorded",
            file=sys.stderr,
        )
    return 0
