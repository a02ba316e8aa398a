"""Commands about whole cases: new, note, act, conclude, cases, log, verify, export, import."""

from __future__ import annotations

import argparse
import json
import sys

from casefile.app.service import CaseService
from casefile.app.views import summarise
from casefile.cli import context
from casefile.cli.parsing import key_value, who_and_when
from casefile.domain.beliefs import project
from casefile.errors import CasefileError, IntegrityError, StoreError
from casefile.store.casedir import export_case, read_case_dir
from casefile.store.directory import is_case_dir
from casefile.store.verify import referenced_artifacts, verify_stored_case


def cmd_new(args: argparse.Namespace) -> int:
    service = CaseService(context.database(args.db), context.registry())
    case_id = service.new_case(
        args.title,
        symptom=args.symptom,
        environment=dict(args.env or []),
        case_id=args.id,
        actor=args.actor,
        occurred_at=args.at,
    )
    if args.playbook:
        service.open_playbook(case_id, args.playbook, actor=args.actor)
    print(case_id)
    return 0


def cmd_note(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    event = opened.service.note(opened.case_id, args.text, actor=args.actor, occurred_at=args.at)
    print(event.seq)
    return 0


def cmd_act(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    event = opened.service.act(
        opened.case_id, args.text, args.outcome, actor=args.actor, occurred_at=args.at
    )
    print(event.seq)
    return 0


def cmd_conclude(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    event = opened.service.conclude(
        opened.case_id,
        args.summary,
        root_cause=args.root_cause,
        recommendations=args.recommend or [],
        lessons=args.lesson or [],
        actor=args.actor,
        occurred_at=args.at,
    )
    print(event.seq)
    return 0


def cmd_cases(args: argparse.Namespace) -> int:
    store = context.database(args.db)
    rows = []
    for case_id in store.case_ids():
        first = store.load(case_id, 1)
        head_seq, _ = store.head(case_id)
        rows.append(
            {
                "id": case_id,
                "title": first[0].payload.get("title", "") if first else "",
                "opened": first[0].when if first else None,
                "events": head_seq,
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(
                f"{row['id']}  {str(row['opened'])[:16]}  {row['events']:>5} events  {row['title']}"
            )
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    events = opened.service.events(opened.case_id)
    projection = project(events)
    if args.json:
        print(json.dumps([e.to_dict() for e in events], indent=2, ensure_ascii=False))
        return 0
    print(f"Case {projection.case_id}: {projection.title}")
    for event in events:
        when = event.when[:16].replace("T", " ")
        print(f"#{event.seq:<4} {when}  {event.actor:<9} {summarise(event, projection)}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    if is_case_dir(args.case):
        try:
            events, _ = read_case_dir(args.case)
        except CasefileError as error:
            print(f"casefile: verify failed: {error}", file=sys.stderr)
            return 1
        print(f"ok: {len(events)} events, chain and artifacts verify ({args.case})")
        return 0
    opened = context.open_case(args.case, args.db)
    report = verify_stored_case(opened.service.store, opened.case_id)
    if not report.ok:
        print(f"casefile: verify failed: {report.message}", file=sys.stderr)
        return 1
    print(
        f"ok: {report.events} events, {report.artifacts} artifacts verify (case {opened.case_id})"
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    store = opened.service.store
    events = opened.service.events(opened.case_id)
    wanted: set[str] = set()
    for event in events:
        wanted |= referenced_artifacts(event)
    report = verify_stored_case(store, opened.case_id)
    if not report.ok:
        raise IntegrityError(f"not exported: {report.message}", seq=report.seq)
    export_case(events, store.artifact_digests(wanted), args.directory)
    print(args.directory)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    events, artifacts = read_case_dir(args.directory)
    project(events)  # a case whose events the domain cannot fold is refused before any write
    store = context.database(args.db)
    case_id = events[0].case_id
    if case_id in store.case_ids():
        # Importing the same case again is harmless; a different case under that id is not.
        if store.head(case_id) != (events[-1].seq, events[-1].hash):
            raise StoreError(
                f"case {case_id} already exists in the database with different events; not imported"
            )
        print(f"casefile: case {case_id} is already imported, identical", file=sys.stderr)
    else:
        store.import_case(events, artifacts)
    print(case_id)
    return 0


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    who = who_and_when()

    p = sub.add_parser("new", parents=[common, who], help="open a new case; prints its id")
    p.add_argument("title")
    p.add_argument("--symptom", help="the symptom, with numbers")
    p.add_argument("--env", action="append", type=key_value, metavar="KEY=VALUE")
    p.add_argument("--id", help="choose the case id (default: random)")
    p.add_argument("--playbook", help="open a playbook's question and hypotheses in the case")
    p.set_defaults(handler=cmd_new)

    p = sub.add_parser("note", parents=[common, who], help="add a note; prints its seq")
    p.add_argument("case")
    p.add_argument("text")
    p.set_defaults(handler=cmd_note)

    p = sub.add_parser("act", parents=[common, who], help="record an action taken")
    p.add_argument("case")
    p.add_argument("text")
    p.add_argument("--outcome")
    p.set_defaults(handler=cmd_act)

    p = sub.add_parser("conclude", parents=[common, who], help="record the conclusion")
    p.add_argument("case")
    p.add_argument("summary")
    p.add_argument("--root-cause", help="the hypothesis id found to be the cause")
    p.add_argument("--recommend", action="append", help="a recommendation (repeatable)")
    p.add_argument("--lesson", action="append", help="a lesson (repeatable)")
    p.set_defaults(handler=cmd_conclude)

    p = sub.add_parser("cases", parents=[common], help="list the cases in the database")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_cases)

    p = sub.add_parser("log", parents=[common], help="the case's events, one line each")
    p.add_argument("case")
    p.add_argument("--json", action="store_true", help="the full events as JSON")
    p.set_defaults(handler=cmd_log)

    p = sub.add_parser("verify", parents=[common], help="check the hash chain and artifacts")
    p.add_argument("case")
    p.set_defaults(handler=cmd_verify)

    p = sub.add_parser("export", parents=[common], help="write the case as a case directory")
    p.add_argument("case")
    p.add_argument("directory")
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser("import", parents=[common], help="import a case directory (verified)")
    p.add_argument("directory")
    p.set_defaults(handler=cmd_import)
