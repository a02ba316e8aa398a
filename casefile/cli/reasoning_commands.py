"""Commands about reasoning: questions, hypotheses, evidence, status, replay, graph, playbooks.

Each is argparse → one service call → text; nothing heavy is imported until a command runs.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable

from casefile.cli.action_commands import add_rows
from casefile.cli.parsing import event_seq, who_and_when
from casefile.cli.terminal import say, say_json, terminal_safe, xml_safe
from casefile.errors import CasefileError

#: the graph formats (casefile.app.graph_export.FORMATS; a test keeps the two equal)
GRAPH_FORMATS = ("dot", "graphml", "mermaid")


def cmd_hypothesis_show(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render import render_hypothesis_detail

    with open_case(args.case, args.db) as opened:
        view = opened.service.reader.hypothesis_detail(opened.case_id, args.hypothesis, args.to)
    if args.json:
        say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False))
    else:
        say(render_hypothesis_detail(view))
    return 0


def cmd_hypothesis_list(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render.lists import render_hypothesis_list

    with open_case(args.case, args.db) as opened:
        view = opened.service.reader.hypothesis_list(opened.case_id, args.question)
    if args.json:
        say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False))
    else:
        say(render_hypothesis_list(view))
    return 0


def cmd_question_list(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render.lists import render_question_list

    with open_case(args.case, args.db) as opened:
        view = opened.service.reader.question_list(opened.case_id)
    if args.json:
        say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False))
    else:
        say(render_question_list(view))
    return 0


def likelihoods(pairs: list[tuple[str, float]]) -> dict[str, float]:
    """The --likelihood options as a dict; a hypothesis given twice is refused, not overwritten."""
    table: dict[str, float] = {}
    for hid, value in pairs:
        if hid in table:
            raise CasefileError(
                f"--likelihood for {hid!r} given twice ({table[hid]:g} and {value:g}): "
                "give one P(E | hypothesis) for each hypothesis"
            )
        table[hid] = value
    return table


def cmd_status(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render import render_status

    with open_case(args.case, args.db) as opened:
        view = opened.service.reader.status(opened.case_id, args.to)
        # answer first, flushed; the fold snapshot (if due) is written on close
        if args.json:
            say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False), flush=True)
        else:
            say(render_status(view), flush=True)
            if args.to is None and view.concluded is None:
                open_questions = [
                    item.id for item in opened.service.reader.intake(opened.case_id) if item.pending
                ]
                if open_questions:
                    say(
                        terminal_safe(
                            f"\nIntake: {len(open_questions)} question(s) not answered yet "
                            f"({', '.join(open_questions)}): casefile intake {args.case}"
                        )
                    )
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render import LOCAL, render_replay

    if args.json or args.jsonl:
        from casefile.app.views.replay_stream import open_replay
        from casefile.cli.replay_split import split_jsonl_lines

        with open_case(args.case, args.db) as opened:
            # written as the case folds, in memory that does not grow with its history;
            # --json is one line (an indent would send it through json's pure-Python encoder)
            stream = open_replay(opened.service, opened.case_id, args.to)
            if args.jsonl:
                # a long case's later steps written by a second process meanwhile
                lines = split_jsonl_lines(stream, opened.case_id, args.case, args.db)
                _say_batched(lines, "\n")
            else:
                _say_batched(stream.json_chunks(), "")
                say_json("")
        return 0
    with open_case(args.case, args.db) as opened:
        view = opened.service.reader.replay(opened.case_id, args.to)
    say(render_replay(view, zone=LOCAL))
    return 0


#: Lines (or pieces) of a streamed replay printed at a time: one print per event costs more
#: than joining them, and a thousand lines hold a few hundred kilobytes.
SAY_BATCH = 1_000


def _say_batched(pieces: Iterable[str], separator: str) -> None:
    """Print ``pieces``, each followed by ``separator``, a batch at a time: the same text as
    one ``say_json(piece, end=separator)`` each."""
    batch: list[str] = []
    for piece in pieces:
        batch.append(piece)
        if len(batch) == SAY_BATCH:
            say_json(separator.join(batch), end=separator)
            batch.clear()
    if batch:
        say_json(separator.join(batch), end=separator)


def cmd_show(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render import LOCAL, render_event_detail

    with open_case(args.case, args.db) as opened:
        view = opened.service.reader.event_detail(opened.case_id, args.seq)
    if args.json:
        say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False))
    else:
        say(render_event_detail(view, zone=LOCAL))
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        if args.format == "json":
            data = opened.service.reader.graph_json(opened.case_id)
            say_json(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True, default=str))
            return 0
        text = opened.service.reader.graph(opened.case_id, args.format)
    # dot and mermaid are text for people too; GraphML keeps its meaning with char references
    print(xml_safe(text) if args.format == "graphml" else terminal_safe(text), end="")
    return 0


def cmd_playbook_show(args: argparse.Namespace) -> int:
    from casefile.app.opening import registry
    from casefile.app.views.playbook import build_playbook_view
    from casefile.cli.render.playbook import render_playbook

    playbook = registry().playbook(args.playbook)
    # the JSON has everything, numbers too: it is for programs, which can leave them out
    view = build_playbook_view(playbook, numbers=args.numbers or args.json)
    if args.json:
        say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False))
    else:
        say(render_playbook(view))
    return 0


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    stamp = who_and_when()

    question = sub.add_parser("question", help="questions a case asks")
    qsub = question.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_rows(qsub, ("question",), common, stamp)
    p = qsub.add_parser("list", parents=[common], help="the case's questions and their leaders")
    p.add_argument("case")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_question_list)

    hyp = sub.add_parser("hypothesis", help="propose, refine, retire or reinstate hypotheses")
    hsub = hyp.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_rows(hsub, ("hypothesis",), common, stamp)
    p = hsub.add_parser(
        "show", parents=[common], help="why a hypothesis's confidence is what it is"
    )
    p.add_argument("case")
    p.add_argument("hypothesis")
    p.add_argument("--to", type=event_seq, metavar="SEQ", help="as it stood after event SEQ")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_hypothesis_show)
    p = hsub.add_parser(
        "list", parents=[common], help="every hypothesis: id, text, status, confidence"
    )
    p.add_argument("case")
    p.add_argument("--question", metavar="QID", help="only this question's hypotheses")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_hypothesis_list)

    ev = sub.add_parser("evidence", help="assess evidence")
    esub = ev.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_rows(esub, ("evidence",), common, stamp)

    p = sub.add_parser("status", parents=[common], help="hypotheses, warnings, next steps")
    p.add_argument("case")
    p.add_argument("--to", type=event_seq, metavar="SEQ", help="as it stood after event SEQ")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("replay", parents=[common], help="step through the case event by event")
    p.add_argument("case")
    p.add_argument("--to", type=event_seq, metavar="SEQ", help="stop after event SEQ")
    shape = p.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true")
    shape.add_argument(
        "--jsonl",
        action="store_true",
        help="one line per step with only what it changed (docs/replay-jsonl.md)",
    )
    p.set_defaults(handler=cmd_replay)

    p = sub.add_parser("show", parents=[common], help="one event in full, with its raw output")
    p.add_argument("case")
    p.add_argument("seq", type=event_seq)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("graph", parents=[common], help="the hypothesis graph")
    p.add_argument("case")
    # json is the graph as data (CaseReader.graph_json), not one of the exporter's formats
    p.add_argument("--format", choices=(*GRAPH_FORMATS, "json"), default="dot")
    p.set_defaults(handler=cmd_graph)

    pb = sub.add_parser("playbook", help="playbooks")
    psub = pb.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_rows(psub, ("playbook",), common, stamp)
    p = psub.add_parser(
        "show",
        parents=[common],
        help="what a playbook asks, supposes and reads: intake, hypotheses, experiment "
        "wordings, and what each probe rule reads and what its outcomes raise or lower",
    )
    p.add_argument("playbook", metavar="NAME[@VERSION]")
    p.add_argument("--numbers", action="store_true", help="add priors and likelihood tables")
    p.add_argument("--json", action="store_true", help="everything, numbers too, as JSON")
    p.set_defaults(handler=cmd_playbook_show)
