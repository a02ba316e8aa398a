"""``casefile report``: a postmortem of a case (Markdown, HTML or JSON), and ``report verify``.

argparse → one service call (the report package's ``build_report``) → bytes written. Every
file is rendered in memory first and then written whole (a temporary beside it, renamed), so a
failure leaves no half-written report, chart or map; only regular files are written (a device,
FIFO, symlink or directory where one goes is refused: see :mod:`casefile.app.files`), and the
map is readable by its owner only. ``verify`` is the one word that is not a
case id here: ``casefile report verify REPORT CASE`` re-checks every ``seq@hash`` of a report
and the digest of its text that ends it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from casefile.cli.parsing import event_seq, refuse_undecodable
from casefile.cli.terminal import say
from casefile.errors import CasefileError

if TYPE_CHECKING:
    from casefile.report import Report

from casefile.report import EXPORTS, FORMATS

#: the report's documents (one home: casefile.report)
REPORT_FORMATS = FORMATS


def _outputs(args: argparse.Namespace, report: Report) -> list[tuple[Path | None, bytes]]:
    """(path, bytes) for everything to write; a None path is standard output."""
    from casefile.report.files import report_files

    target = None if args.output in (None, "-") else Path(args.output)
    return report_files(report, args.format, target)


def _to_stdout(data: bytes) -> None:
    """The report's bytes as they are (every format is already terminal-safe: control
    characters are written as escapes), through a text stream when there is no byte one."""
    sys.stdout.flush()
    raw = getattr(sys.stdout, "buffer", None)
    if raw is None:
        sys.stdout.write(data.decode("utf-8"))
        sys.stdout.flush()
    else:
        raw.write(data)
        raw.flush()


def cmd_report(args: argparse.Namespace) -> int:
    if args.case == "verify":
        return cmd_report_verify(args)
    from casefile.actions.postmortem_actions import record_hint
    from casefile.app.opening import open_case
    from casefile.report import ReportOptions, build_report, needs_facts, redact_report

    patterns = tuple(args.redact_pattern or ())
    with open_case(args.case, args.db) as opened:
        options = ReportOptions(
            upto=args.to,
            record=record_hint(opened.case_id),
            facts=needs_facts(args.format, redact=args.redact),
        )
        report = build_report(opened.service, opened.case_id, options)
    mapping: dict[str, str] | None = None
    if args.redact:
        report, mapping = redact_report(report, patterns)
    outputs = _outputs(args, report)
    files = [(path, data) for path, data in outputs if path is not None]
    redact_map: tuple[Path, bytes] | None = None
    if args.redact_map is not None and mapping is not None:
        text = json.dumps({"pseudonyms": mapping}, indent=2, ensure_ascii=False, sort_keys=True)
        redact_map = (Path(args.redact_map), (text + "\n").encode("utf-8"))
    from casefile.report.files import write_report_files

    write_report_files(files, redact_map)
    for path, data in outputs:
        if path is None:
            _to_stdout(data)
    if args.format == "md" and args.output in (None, "-"):
        say(
            "casefile: report: no chart file written (the report went to standard output); "
            "give -o FILE to write the chart beside it",
            file=sys.stderr,
        )
    if args.output not in (None, "-"):
        written = [redact_map[0]] if redact_map is not None else []
        for path in [*written, *(path for path, _ in files)]:
            say(f"wrote {path}", file=sys.stderr)
    return 0


def cmd_report_verify(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.report import verify_report

    report_path, case = args.rest
    try:
        data = Path(report_path).read_bytes()
    except OSError as error:
        raise CasefileError(f"cannot read {report_path}: {error.strerror or error}") from None
    with open_case(case, args.db) as opened:
        checked = verify_report(opened.service, opened.case_id, data.decode("utf-8", "replace"))
    if checked.problem is not None:
        say(f"casefile: report verify failed: {checked.problem}", file=sys.stderr)
        return 1
    say(
        f"ok: {checked.references} references, each an event of case {opened.case_id}; "
        "the text is as casefile wrote it (its digest matches)"
    )
    return 0


def _checks(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], None]:
    """Checks argparse cannot express; each failure is a usage error (exit 2)."""

    def check(args: argparse.Namespace) -> None:
        refuse_undecodable(args)
        if args.case == "verify":
            if len(args.rest) != 2:
                parser.error("usage: casefile report verify REPORT CASE")
            given = [
                name
                for name, value in (
                    ("--format", args.format is not None),
                    ("-o", args.output is not None),
                    ("--to", args.to is not None),
                    ("--redact", args.redact),
                    ("--redact-map", args.redact_map is not None),
                    ("--redact-pattern", bool(args.redact_pattern)),
                )
                if value
            ]
            if given:
                parser.error(f"report verify takes no {', '.join(given)}")
            return
        if args.rest:
            parser.error(f"unexpected argument {args.rest[0]!r} (one CASE per report)")
        if args.format is None:  # as the report action settles it: from -o's suffix, else md
            from casefile.actions.output_actions import BY_SUFFIX

            suffix = "" if args.output in (None, "-") else Path(args.output).suffix[1:].lower()
            args.format = BY_SUFFIX.get(suffix, "md")
        if (args.redact_map is not None or args.redact_pattern) and not args.redact:
            parser.error("--redact-map and --redact-pattern need --redact")
        if args.redact_map is not None and args.redact_map == args.output:
            parser.error("--redact-map must not be the report itself")
        if args.redact_pattern:  # a bad pattern is refused before anything is opened
            from casefile.report.redact import compile_patterns

            try:
                compile_patterns(args.redact_pattern)
            except CasefileError as error:
                parser.error(str(error))

    return check


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "report",
        parents=[common],
        help="a postmortem of a case, every claim linked to its events (or: report verify)",
        usage="casefile report CASE [--format md|html|json|timeline-csv|timeline-jsonl|"
        "facts-csv] [-o FILE|-] [--to SEQ] "
        "[--redact [--redact-map FILE] [--redact-pattern REGEX ...]]\n"
        "       casefile report verify REPORT CASE",
        description="Write a postmortem report of CASE, or check one: "
        "`casefile report verify REPORT CASE` confirms that every seq@hash in REPORT is an "
        "event of CASE with that hash and that REPORT's text is as casefile wrote it (each "
        "report file, the chart too, ends with a casefile-report-digest line, the SHA-256 of "
        "the rest of it: an edit fails even where every reference holds; a checksum, not a "
        "signature). Only regular files are written (-o FILE, the chart "
        "beside a Markdown FILE, the --redact-map FILE), each whole, through a temporary "
        "renamed over it; a device, FIFO, symbolic link or directory at any of those names is "
        "refused before anything is written (use -o - for standard output).",
    )
    p.add_argument("case", metavar="CASE", help="the case (or `verify`, then REPORT CASE)")
    p.add_argument("rest", nargs="*", default=[], metavar="…", help=argparse.SUPPRESS)
    p.add_argument(
        "--format",
        choices=(*FORMATS, *EXPORTS),
        default=None,
        help="md, html, json; or an export for other tools: timeline-csv, timeline-jsonl "
        "(Timesketch's import shape), facts-csv (default: from -o FILE's suffix, else md)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE, a regular file (it keeps its mode) or a new one; "
        "- (the default): standard output",
    )
    p.add_argument("--to", type=event_seq, metavar="SEQ", help="the case as it stood after SEQ")
    p.add_argument(
        "--redact",
        action="store_true",
        help="replace host names (those outputs name too: uname, nccl-tests' ranks), "
        "addresses (IP, MAC, InfiniBand), user names and identifiers (UUIDs, serials, GUIDs) "
        "with pseudonyms, the same one everywhere, and credentials (tokens, passwords, bearer "
        "tokens, private keys, secret --env values) with secret-N, which no file keeps",
    )
    p.add_argument(
        "--redact-map",
        metavar="FILE",
        help="write the pseudonym map here (only here), readable by its owner only (0600); "
        "it holds no credential",
    )
    p.add_argument(
        "--redact-pattern",
        action="append",
        metavar="REGEX",
        help="also redact what this regex matches (repeatable)",
    )
    p.set_defaults(handler=cmd_report, validate=_checks(p))

    from casefile.cli.action_commands import add_rows
    from casefile.cli.parsing import who_and_when

    pm = sub.add_parser(
        "postmortem", help="write the postmortem: its sections, action items, title and authors"
    )
    pmsub = pm.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_rows(pmsub, ("postmortem",), common, who_and_when())  # section, item, about
