"""Commands about reasoning: questions, hypotheses, evidence, status, replay, graph, playbooks."""

from __future__ import annotations

import argparse
import json

from casefile.app.graph_export import FORMATS, export_graph
from casefile.app.views import replay_view, status_view
from casefile.cli import context
from casefile.cli.parsing import event_seq, likelihood, probability, who_and_when
from casefile.cli.render import render_replay, render_status
from casefile.domain.beliefs import project
from casefile.domain.commands import KINDS
from casefile.errors import CasefileError


def cmd_question_add(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    print(
        opened.service.add_question(
            opened.case_id,
            args.text,
            args.id,
            args.catch_all,
            actor=args.actor,
            occurred_at=args.at,
        )
    )
    return 0


def cmd_hypothesis_add(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    print(
        opened.service.add_hypothesis(
            opened.case_id,
            args.text,
            args.under,
            args.prior,
            args.id,
            args.meaning,
            actor=args.actor,
            occurred_at=args.at,
        )
    )
    return 0


def cmd_hypothesis_refine(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    event = opened.service.refine_hypothesis(
        opened.case_id, args.hypothesis, args.text, args.because, actor=args.actor
    )
    print(event.seq)
    return 0


def cmd_hypothesis_retire(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    event = opened.service.retire_hypothesis(
        opened.case_id, args.hypothesis, args.because, actor=args.actor
    )
    print(event.seq)
    return 0


def cmd_hypothesis_reinstate(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    event = opened.service.reinstate_hypothesis(
        opened.case_id, args.hypothesis, args.because, actor=args.actor
    )
    print(event.seq)
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
    table = likelihoods(args.likelihood)
    opened = context.open_case(args.case, args.db)
    event = opened.service.assess(
        opened.case_id,
        table,
        args.because,
        actor=args.actor,
        occurred_at=args.at,
        otherwise=args.otherwise,
        kind=args.kind,
        reliability=args.reliability,
        probe_run_seq=args.probe_run,
        observation_seq=args.observation,
        supersedes=args.supersedes,
        evidence_id=args.id,
    )
    print(event.payload["evidence_id"])
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    projection = opened.service.projection(opened.case_id, args.to)
    service = opened.service
    view = status_view(
        projection,
        service.next_steps(projection),
        service.decisive(projection),
        service.best_probes(projection),
    )
    if args.json:
        print(json.dumps(view, indent=2, ensure_ascii=False))
    else:
        print(render_status(view))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    events = opened.service.events(opened.case_id)
    projection = project(events)
    view = replay_view(projection, args.to)
    suggestions = opened.service.suggestions_when_unmeasured(events)
    for step in view["steps"]:
        best = suggestions.get(step["seq"])
        if best is not None:
            step["suggestion"] = {
                "probe": best.probe,
                "expected_gain_bits": best.expected_gain_bits,
                "rules": list(best.rules),
                "load": best.load,
            }
    if args.json:
        print(json.dumps(view, indent=2, ensure_ascii=False))
        return 0
    names = {}
    for question in projection.questions.values():
        names[question.catch_all_id] = "something not yet named"
        names.update({hid: node.text for hid, node in question.nodes.items()})
    print(render_replay(view, names))
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    print(export_graph(opened.service.projection(opened.case_id), args.format), end="")
    return 0


def cmd_playbook_open(args: argparse.Namespace) -> int:
    opened = context.open_case(args.case, args.db)
    print(opened.service.open_playbook(opened.case_id, args.playbook, actor=args.actor))
    return 0


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    who = who_and_when()

    question = sub.add_parser("question", help="questions a case asks")
    qsub = question.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = qsub.add_parser("add", parents=[common, who], help="propose a question; prints its id")
    p.add_argument("case")
    p.add_argument("text")
    p.add_argument("--id")
    p.add_argument("--catch-all", type=probability, default=0.1, help="catch-all prior (0.1)")
    p.set_defaults(handler=cmd_question_add)

    hyp = sub.add_parser("hypothesis", help="propose, refine, retire or reinstate hypotheses")
    hsub = hyp.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = hsub.add_parser("add", parents=[common, who], help="propose a hypothesis; prints its id")
    p.add_argument("case")
    p.add_argument("text")
    p.add_argument("--under", required=True, help="question id, or parent hypothesis id")
    p.add_argument("--prior", required=True, type=probability, help="absolute, or parent share")
    p.add_argument("--id")
    p.add_argument("--meaning", help="one line: what would be true if this is the answer")
    p.set_defaults(handler=cmd_hypothesis_add)
    p = hsub.add_parser("refine", parents=[common, who], help="reword a hypothesis")
    p.add_argument("case")
    p.add_argument("hypothesis")
    p.add_argument("text")
    p.add_argument("--because")
    p.set_defaults(handler=cmd_hypothesis_refine)
    p = hsub.add_parser("retire", parents=[common, who], help="retire a hypothesis (with reason)")
    p.add_argument("case")
    p.add_argument("hypothesis")
    p.add_argument("--because", required=True)
    p.set_defaults(handler=cmd_hypothesis_retire)
    p = hsub.add_parser("reinstate", parents=[common, who], help="reinstate a retired hypothesis")
    p.add_argument("case")
    p.add_argument("hypothesis")
    p.add_argument("--because")
    p.set_defaults(handler=cmd_hypothesis_reinstate)

    ev = sub.add_parser("evidence", help="assess evidence")
    esub = ev.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = esub.add_parser("add", parents=[common, who], help="record evidence; prints its id")
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

    p = sub.add_parser("graph", parents=[common], help="the hypothesis graph")
    p.add_argument("case")
    p.add_argument("--format", choices=FORMATS, default="dot")
    p.set_defaults(handler=cmd_graph)

    pb = sub.add_parser("playbook", help="playbooks")
    psub = pb.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = psub.add_parser("open", parents=[common, who], help="open a playbook in a case")
    p.add_argument("case")
    p.add_argument("playbook")
    p.set_defaults(handler=cmd_playbook_open)
