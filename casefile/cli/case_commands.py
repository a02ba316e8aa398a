"""Commands about whole cases: new, note, act, conclude, cases, log, verify, export, import.

Each is argparse → one service call → text; modules import nothing heavy at import time, so
``casefile --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from casefile.cli.action_commands import add_rows
from casefile.cli.parsing import (
    head_reference,
    refuse_undecodable,
    refuse_undecodable_db,
    who_and_when,
)
from casefile.cli.terminal import say, say_json

if TYPE_CHECKING:
    from casefile.app.interrupts import StopRequest
    from casefile.app.service import CaseService
    from casefile.domain.events import Event


def cmd_cases(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_service
    from casefile.cli.render import LOCAL, render_cases

    with open_service(args.db) as service:
        rows = service.library.cases()
    if args.json:
        say_json(json.dumps([row.to_json() for row in rows], indent=2, ensure_ascii=False))
    elif rows:
        say(render_cases(rows, zone=LOCAL))
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render import LOCAL, render_log

    if args.follow:
        return _follow_case(args)
    with open_case(args.case, args.db) as opened:
        service, case_id = opened.service, opened.case_id
        if args.json:
            _log_json(service, case_id)
            return 0
        say(
            render_log(
                service.reader.log(case_id), service.reader.title(case_id), case_id, zone=LOCAL
            )
        )
    return 0


#: events ``log --json`` reads and writes at a time: its memory is a page, not the case
LOG_PAGE = 2_000


def _log_json(service: CaseService, case_id: str) -> None:
    """``log --json``: every event in one indented JSON array, the same bytes as
    ``json.dumps([...], indent=2)`` of them all, read and written a page at a time, so that its
    memory does not grow with the case."""
    head, _ = service.reader.head(case_id)
    say_json("[", end="")
    sep = "\n  "
    for after in range(0, head, LOG_PAGE):
        pieces = []
        for event in service.reader.events(case_id, after=after, upto=min(after + LOG_PAGE, head)):
            text = json.dumps(event.to_dict(), indent=2, ensure_ascii=False)
            pieces.append(sep + text.replace("\n", "\n  "))  # one level deeper, as in the list
            sep = ",\n  "
        say_json("".join(pieces), end="")
    say_json("]" if sep == "\n  " else "\n]")


def _follow_case(args: argparse.Namespace) -> int:
    """``log --follow``: Ctrl-C is how a follower stops, so it exits 0, and it must close what
    it opened whenever it comes (opening the case, printing the history, waiting).

    From before the case is opened, SIGINT only asks the follower to stop (see
    :mod:`casefile.app.interrupts`): a ``KeyboardInterrupt`` raised inside the store could
    leave a pool's lock held and the close that follows waiting for it forever.
    """
    from casefile.app.interrupts import StopOnInterrupt
    from casefile.app.opening import open_case

    with StopOnInterrupt() as interrupt:
        try:
            with open_case(args.case, args.db) as opened:
                if interrupt.is_set():
                    return 0
                return _follow(opened.service, opened.case_id, args.json, interrupt)
        except KeyboardInterrupt:
            # only where the handler could not be installed (not the main thread, or a
            # handler of someone else's): the old way, still an ordinary end
            return 0


def _follow(service: CaseService, case_id: str, as_json: bool, stop: StopRequest) -> int:
    """Print every event, then each new one as it arrives, flushed (also into a pipe), until
    ``stop`` is set."""
    from casefile.cli.render import LOCAL, render_log_row

    def emit(events: list[Event]) -> None:
        # checked between rows: a big history (or a slow reader of the pipe) ends promptly
        if as_json:
            for event in events:
                if stop.is_set():
                    return
                say_json(json.dumps(event.to_dict(), ensure_ascii=False), flush=True)
            return
        for row in service.reader.log_rows(case_id, events):
            if stop.is_set():
                return
            say(render_log_row(row, zone=LOCAL), flush=True)

    def notice(message: str) -> None:
        say(f"casefile: {message}", file=sys.stderr, flush=True)

    events = service.reader.events(case_id)
    emit(events)
    if stop.is_set():
        return 0
    last = events[-1]
    with service.reader.follow(case_id, last.seq, last.hash, on_notice=notice) as feed:
        for batch in feed.batches(stop):
            if isinstance(batch, list):
                emit(batch)
                continue
            # The history changed under us: what was printed is no longer the case's.
            say(f"casefile: error: {batch.message}", file=sys.stderr, flush=True)
            return 1
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from casefile.app.library import GUARANTEE
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        report = opened.service.library.verify(opened.case_id, args.head)
    if args.json:
        say_json(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        return 0 if report.ok else 1
    if not report.ok:
        say(f"casefile: verify failed: {report.message}", file=sys.stderr)
        return 1
    say(f"ok: {report.message}")
    say(f"head: {report.head}")
    for note in report.notes:
        say(f"note: {note}")
    say(f"verified: {GUARANTEE}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_service

    with open_service(args.db) as service:
        imported = service.library.import_directory(args.directory)
    if imported.already:
        say(f"casefile: case {imported.case_id} is already imported, identical", file=sys.stderr)
    say(imported.case_id)
    return 0


def cmd_rm(args: argparse.Namespace) -> int:
    from casefile.app.opening import looks_like_path, open_case
    from casefile.errors import CasefileError

    with open_case(args.case, args.db) as opened:
        service, case_id = opened.service, opened.case_id
        if not looks_like_path(args.case):
            if case_id != args.case:  # a prefix is fine to read with, not to delete with
                raise CasefileError(
                    f"rm needs the whole case id: {args.case!r} is short for {case_id!r}"
                )
            if not args.yes:
                _confirm_removal(service, case_id)
        removed = service.library.remove_case(case_id)
    gone, kept = removed.artifacts_removed, removed.artifacts_kept
    shared = f" ({kept} kept: other cases refer to them)" if kept else ""
    say(
        f"removed case {removed.case_id}: {removed.events} events, "
        f"{gone} artifact{'' if gone == 1 else 's'}{shared}"
    )
    return 0


def _confirm_removal(service: CaseService, case_id: str) -> None:
    """Ask for the case id to be typed back; refuse without a terminal to ask on."""
    from casefile.errors import CasefileError

    if not sys.stdin.isatty():
        raise CasefileError(
            f"rm asks you to type the case id to confirm, and stdin is not a terminal: "
            f"pass --yes to remove case {case_id} without asking"
        )
    events, _ = service.reader.head(case_id)
    say(
        f"This removes case {case_id} ({service.reader.title(case_id)!r}): {events} events, its "
        "snapshots, and the raw outputs no other case refers to. It cannot be undone.",
        file=sys.stderr,
    )
    say("Type the case id to confirm: ", file=sys.stderr, end="", flush=True)
    answer = sys.stdin.readline().strip()
    if answer != case_id:
        raise CasefileError(f"the answer did not match {case_id!r}: nothing removed")


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    stamp = who_and_when()

    add_rows(sub, (), common, stamp)  # new, note, act, conclude, export

    p = sub.add_parser("cases", parents=[common], help="list the cases in the database")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_cases)

    p = sub.add_parser("log", parents=[common], help="the case's events, one line each")
    p.add_argument("case")
    p.add_argument("--json", action="store_true", help="the full events as JSON")
    p.add_argument(
        "--follow",
        "-f",
        action="store_true",
        help="keep printing new events as others append them (Ctrl-C to stop); "
        "with --json, one JSON object per line",
    )
    p.set_defaults(handler=cmd_log)

    p = sub.add_parser("verify", parents=[common], help="check the hash chain and artifacts")
    p.add_argument("case")
    p.add_argument(
        "--head",
        type=head_reference,
        metavar="SEQ@HASH",
        help="a head recorded elsewhere (as verify prints it): the chain must still hold it",
    )
    p.add_argument("--json", action="store_true", help="the result as JSON (exit 1 if it fails)")
    p.set_defaults(handler=cmd_verify, validate=refuse_undecodable)

    p = sub.add_parser(
        "rm", parents=[common], help="remove a case from the database (asks to type its id)"
    )
    p.add_argument("case", help="the whole case id")
    p.add_argument("--yes", action="store_true", help="do not ask (needed without a terminal)")
    p.set_defaults(handler=cmd_rm)

    p = sub.add_parser("import", parents=[common], help="import a case directory (verified)")
    p.add_argument("directory")
    p.set_defaults(handler=cmd_import, validate=refuse_undecodable_db)
