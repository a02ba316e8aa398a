"""Commands about reasoning: questions, hypotheses, evidence, status, replay, graph, playbooks.

Each is argparse → one service call → text; nothing heavy is imported until a command runs.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from casefile.cli.parsing import event_seq, likelihood, probability, who, who_and_when
from casefile.cli.terminal import say, say_json, terminal_safe, xml_safe
from casefile.domain.kinds import KINDS
from casefile.errors import CasefileError

#: the graph formats (casefile.app.graph_export.FORMATS; a test keeps the two equal)
GRAPH_FORMATS = ("dot", "graphml", "mermaid")


def cmd_question_add(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        say(
            opened.service.add_question(
                opened.case_id, args.text, args.id, args.catch_all, who(args)
            )
        )
    return 0


def cmd_hypothesis_add(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        if args.rebalance:
            hid = opened.service.add_hypothesis_rebalanced(
                opened.case_id,
                args.text,
                args.under,
                args.prior,
                args.id,
                args.meaning,
                force=args.force,
                who=who(args),
            )
        else:
            hid = opened.service.add_hypothesis(
                opened.case_id, args.text, args.under, args.prior, args.id, args.meaning, who(args)
            )
        say(hid)
    return 0


def cmd_hypothesis_prior(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        event = opened.service.set_prior(
            opened.case_id,
            args.hypothesis,
            args.prior,
            args.because,
            force=args.force,
            who=who(args),
        )
    say(str(event.seq))
    return 0


def cmd_hypothesis_refine(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        event = opened.service.refine_hypothesis(
            opened.case_id, args.hypothesis, args.text, args.because, who(args)
        )
    say(str(event.seq))
    return 0


def cmd_hypothesis_retire(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        event = opened.service.retire_hypothesis(
            opened.case_id, args.hypothesis, args.because, who(args)
        )
    say(str(event.seq))
    return 0


def cmd_hypothesis_reinstate(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        event = opened.service.reinstate_hypothesis(
            opened.case_id, args.hypothesis, args.because, who(args)
        )
    say(str(event.seq))
    return 0


def cmd_hypothesis_show(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render import render_hypothesis_detail

    with open_case(args.case, args.db) as opened:
        view = opened.service.hypothesis_detail(opened.case_id, args.hypothesis, args.to)
    if args.json:
        say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False))
    else:
        say(render_hypothesis_detail(view))
    return 0


def cmd_hypothesis_list(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render.lists import render_hypothesis_list

    with open_case(args.case, args.db) as opened:
        view = opened.service.hypothesis_list(opened.case_id, args.question)
    if args.json:
        say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False))
    else:
        say(render_hypothesis_list(view))
    return 0


def cmd_question_list(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render.lists import render_question_list

    with open_case(args.case, args.db) as opened:
        view = opened.service.question_list(opened.case_id)
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


def cmd_evidence_add(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    table = likelihoods(args.likelihood)
    with open_case(args.case, args.db) as opened:
        event = opened.service.assess(
            opened.case_id,
            table,
            args.because,
            who(args),
            otherwise=args.otherwise,
            kind=args.kind,
            reliability=args.reliability,
            probe_run_seq=args.probe_run,
            observation_seq=args.observation,
            supersedes=args.supersedes,
            evidence_id=args.id,
        )
    say(str(event.payload["evidence_id"]))
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render import render_status

    with open_case(args.case, args.db) as opened:
        view = opened.service.status(opened.case_id, args.to)
        # answer first, flushed; the fold snapshot (if due) is written on close
        if args.json:
            say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False), flush=True)
        else:
            say(render_status(view), flush=True)
            if args.to is None and view.concluded is None:
                open_questions = [
                    item.id
                    for item in opened.service.intake(opened.case_id)
                    if item.answer is None and item.counted_by is None
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

    with open_case(args.case, args.db) as opened:
        view = opened.service.replay(opened.case_id, args.to)
    if args.json:
        # One line: a replay is thousands of steps, and an indent would send it through
        # json's pure-Python encoder, three times slower than the C one.
        say_json(view.to_json_text())
    else:
        say(render_replay(view, zone=LOCAL))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.cli.render import LOCAL, render_event_detail

    with open_case(args.case, args.db) as opened:
        view = opened.service.event_detail(opened.case_id, args.seq)
    if args.json:
        say_json(json.dumps(view.to_json(), indent=2, ensure_ascii=False))
    else:
        say(render_event_detail(view, zone=LOCAL))
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        if args.format == "json":
            data = opened.service.graph_json(opened.case_id)
            say_json(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True, default=str))
            return 0
        text = opened.service.graph(opened.case_id, args.format)
    # dot and mermaid are text for people too; GraphML keeps its meaning with char references
    print(xml_safe(text) if args.format == "graphml" else terminal_safe(text), end="")
    return 0


def cmd_playbook_open(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case

    with open_case(args.case, args.db) as opened:
        say(opened.service.open_playbook(opened.case_id, args.playbook, who(args)))
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


def _rebalance_checks(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], None]:
    def check(args: argparse.Namespace) -> None:
        if args.force and not args.rebalance:
            parser.error(
                "--force only goes with --rebalance (it lets priors change after evidence)"
            )

    return check


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    stamp = who_and_when()

    question = sub.add_parser("question", help="questions a case asks")
    qsub = question.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = qsub.add_parser("add", parents=[common, stamp], help="propose a question; prints its id")
    p.add_argument("case")
    p.add_argument("text")
    p.add_argument("--id")
    p.add_argument("--catch-all", type=probability, default=0.1, help="catch-all prior (0.1)")
    p.set_defaults(handler=cmd_question_add)
    p = qsub.add_parser("list", parents=[common], help="the case's questions and their leaders")
    p.add_argument("case")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_question_list)

    hyp = sub.add_parser("hypothesis", help="propose, refine, retire or reinstate hypotheses")
    hsub = hyp.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = hsub.add_parser("add", parents=[common, stamp], help="propose a hypothesis; prints its id")
    p.add_argument("case")
    p.add_argument("text")
    p.add_argument("--under", required=True, help="question id, or parent hypothesis id")
    p.add_argument("--prior", required=True, type=probability, help="absolute, or parent share")
    p.add_argument("--id")
    p.add_argument("--meaning", help="one line: what would be true if this is the answer")
    p.add_argument(
        "--rebalance",
        action="store_true",
        help="if the prior does not fit, scale the other hypotheses down in proportion",
    )
    p.add_argument(
        "--force", action="store_true", help="with --rebalance: even after evidence arrived"
    )
    p.set_defaults(handler=cmd_hypothesis_add, validate=_rebalance_checks(p))
    p = hsub.add_parser(
        "prior",
        parents=[common, stamp],
        help="set a hypothesis's prior (siblings make room in proportion); prints its seq",
    )
    p.add_argument("case")
    p.add_argument("hypothesis")
    p.add_argument("prior", type=probability, help="absolute, or its share of its parent's")
    p.add_argument("--because", help="why the prior changes")
    p.add_argument("--force", action="store_true", help="even after evidence arrived")
    p.set_defaults(handler=cmd_hypothesis_prior)
    p = hsub.add_parser("refine", parents=[common, stamp], help="reword a hypothesis")
    p.add_argument("case")
    p.add_argument("hypothesis")
    p.add_argument("text")
    p.add_argument("--because")
    p.set_defaults(handler=cmd_hypothesis_refine)
    p = hsub.add_parser("retire", parents=[common, stamp], help="retire a hypothesis (with reason)")
    p.add_argument("case")
    p.add_argument("hypothesis")
    p.add_argument("--because", required=True)
    p.set_defaults(handler=cmd_hypothesis_retire)
    p = hsub.add_parser("reinstate", parents=[common, stamp], help="reinstate a retired hypothesis")
    p.add_argument("case")
    p.add_argument("hypothesis")
    p.add_argument("--because")
    p.set_defaults(handler=cmd_hypothesis_reinstate)
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
    p = esub.add_parser("add", parents=[common, stamp], help="record evidence; prints its id")
    p.add_argument("case")
    p.add_argument(
        "--likelihood",
        action="append",
        type=likelihood,
        required=True,
        metavar="HID=P",
        help="P(E | hypothesis), repeatable",
    )
    p.add_argument("--otherwise", type=probability, default=0.5, help="P(E) for all others (0.5)")
    p.add_argument("--kind", choices=KINDS, default="measured")
    p.add_argument("--reliability", type=probability, help="default depends on --kind")
    p.add_argument("--probe-run", type=event_seq, metavar="SEQ")
    p.add_argument("--observation", type=event_seq, metavar="SEQ")
    p.add_argument("--supersedes", metavar="EVIDENCE_ID", help="re-assess earlier evidence")
    p.add_argument("--id")
    p.add_argument("--because", required=True, help="the rationale")
    p.set_defaults(handler=cmd_evidence_add)

    p = sub.add_parser("status", parents=[common], help="hypotheses, warnings, next steps")
    p.add_argument("case")
    p.add_argument("--to", type=event_seq, metavar="SEQ", help="as it stood after event SEQ")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("replay", parents=[common], help="step through the case event by event")
    p.add_argument("case")
    p.add_argument("--to", type=event_seq, metavar="SEQ", help="stop after event SEQ")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_replay)

    p = sub.add_parser("show", parents=[common], help="one event in full, with its raw output")
    p.add_argument("case")
    p.add_argument("seq", type=event_seq)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("graph", parents=[common], help="the hypothesis graph")
    p.add_argument("case")
    # json is the graph as data (CaseService.graph_json), not one of the exporter's formats
    p.add_argument("--format", choices=(*GRAPH_FORMATS, "json"), default="dot")
    p.set_defaults(handler=cmd_graph)

    pb = sub.add_parser("playbook", help="playbooks")
    psub = pb.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = psub.add_parser("open", parents=[common, stamp], help="open a playbook in a case")
    p.add_argument("case")
    p.add_argument("playbook")
    p.set_defaults(handler=cmd_playbook_open)
    p = psub.add_parser(
        "show",
        parents=[common],
        help="what a playbook asks, supposes and reads: intake, hypotheses, experiment wordings",
    )
    p.add_argument("playbook", metavar="NAME[@VERSION]")
    p.add_argument("--numbers", action="store_true", help="add priors and likelihood tables")
    p.add_argument("--json", action="store_true", help="everything, numbers too, as JSON")
    p.set_defaults(handler=cmd_playbook_show)
