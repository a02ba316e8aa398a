"""``casefile intake``: what a responder knows about the symptom, as the playbook asks it.

It asks the case's playbook questions about the symptom's shape at a terminal (or takes
``--answer KEY=VALUE``), first recording the answers the case already holds and saying where
each came from; an answer that replaces one in force says which, and from when.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from casefile.cli.parsing import who, who_and_when
from casefile.cli.terminal import say, say_json, terminal_safe
from casefile.errors import CasefileError

if TYPE_CHECKING:
    from casefile.app.intake import IntakeItem, IntakeOutcome
    from casefile.app.service import CaseService
    from casefile.domain.intake import Disagreement, IntakeQuestion


def _answer(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: use QUESTION=ANSWER (e.g. scaling=no)")
    return key.strip(), value.strip()


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "intake",
        parents=[common, who_and_when()],
        help="answer the playbook's questions about the symptom (no probabilities to type)",
    )
    p.add_argument("case", help="case id, unique prefix, or case directory")
    p.add_argument(
        "answers",
        nargs="*",
        type=_answer,
        metavar="QUESTION=ANSWER",
        help="answers, as --answer gives them (casefile intake C scaling=no nodes=single)",
    )
    p.add_argument(
        "--answer",
        action="append",
        type=_answer,
        default=[],
        metavar="QUESTION=ANSWER",
        help="answer one question (repeatable); nothing is asked at the terminal",
    )
    p.add_argument("--list", action="store_true", help="show the questions; record nothing")
    p.add_argument(
        "--no-known",
        action="store_true",
        help="do not record answers the case already holds (--env, earlier probes)",
    )
    p.add_argument("--json", action="store_true", help="what was recorded (or --list) as JSON")
    p.set_defaults(handler=cmd_intake, take_unread=_take_answers)


def _take_answers(args: argparse.Namespace, unread: list[str]) -> list[str]:
    """The QUESTION=ANSWER words given after an option (``C a=b --no-known c=d``), which
    argparse leaves unread, as answers; the other words stay unread (and are refused)."""
    rest = []
    for word in unread:
        if "=" in word and not word.startswith("-"):
            args.answers.append(_answer(word))
        else:
            rest.append(word)
    return rest


def _given(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """The answers given, each question once: two different answers to one question in one
    command are refused rather than the last silently kept."""
    given: dict[str, str] = {}
    for question, answer in pairs:
        if given.get(question, answer) != answer:
            raise CasefileError(
                f"intake {question}: answered twice ({given[question]!r} and {answer!r}); "
                "give one answer"
            )
        given[question] = answer
    return given


def _questions(service: CaseService, items: list[IntakeItem]) -> dict[str, IntakeQuestion]:
    """Each item's question as its playbook declares it: what reads a typed answer (its
    synonyms, the values its ``--env`` patterns read) lives there, not in the list."""
    return {
        item.id: service.registry.playbook(item.playbook).intake_question(item.id) for item in items
    }


def _typed(
    given: dict[str, str], questions: dict[str, IntakeQuestion]
) -> dict[str, tuple[str, str]]:
    """Question id -> (the words given, the answer they were taken as), for each answer given
    in other words than the answer itself ("1" taken as one), to say so beside it."""
    out: dict[str, tuple[str, str]] = {}
    for key, value in given.items():
        question = questions.get(key) or next(
            (q for q in questions.values() if q.named_by(key)), None
        )
        answer = question.taken_as(value) if question is not None else None
        if question is not None and answer is not None:
            out[question.id] = (value, answer)
    return out


def cmd_intake(args: argparse.Namespace) -> int:
    from casefile.app.opening import open_case
    from casefile.domain.intake import disagreements

    if args.list and (args.answers or args.answer):
        # --list records nothing: answers given with it would be dropped without a word
        raise CasefileError(
            "intake: --list shows the questions and records nothing; give the answers "
            "without --list (then run --list to see them)"
        )
    with open_case(args.case, args.db) as opened:
        service, cid = opened.service, opened.case_id
        items = service.reader.intake(cid)
        if not items:
            raise CasefileError(
                f"case {cid} has no intake questions: open a playbook that has them "
                f"(casefile playbook open {cid} gpu-throughput)"
            )
        if args.list:
            _show_items(items, args.json)
            return 0
        questions = _questions(service, items)
        answers = _given([*args.answers, *args.answer])
        interactive = not answers and sys.stdin.isatty() and not args.json
        if interactive:
            answers = _ask(items, questions)
        outcome = service.writer.answer_intake(cid, answers, known=not args.no_known, who=who(args))
        after = service.reader.intake(cid)
        pending = [item.id for item in after if item.pending]
        in_force = {item.id: item.answer for item in after if item.answer is not None}
        disagree = disagreements(list(questions.values()), in_force)
    typed = _typed(answers, questions)
    if args.json:
        shown = _outcome_json(outcome, pending, typed, disagree)
        say_json(json.dumps(shown, indent=2, ensure_ascii=False))
        return 0
    for qid, answer, eid, source in outcome.recorded:
        said = "" if source == "answered" else f" (from {source})"
        if source == "answered" and qid in typed and typed[qid][1] == answer:
            said = f" (given as {typed[qid][0]!r})"
        if qid in outcome.implied:
            said = f" (from {outcome.implied[qid]})"
        elif qid in outcome.restored:
            said = f" (restored: {outcome.restored[qid]})"
        if qid in outcome.replaced:
            old, seq = outcome.replaced[qid]
            said += f" (was {old}, seq {seq})"
        say(terminal_safe(f"{qid}: {answer}{said} → evidence {eid}"))
    for qid, (answer, basis, eid) in outcome.withdrawn.items():
        say(terminal_safe(f"{qid}: {answer} withdrawn (it rested on {basis}) → evidence {eid}"))
    for qid in outcome.unchanged:
        say(terminal_safe(f"{qid}: unchanged"))
    for qid, eid in outcome.counted_elsewhere:
        say(terminal_safe(f"{qid}: already counted by evidence {eid}"))
    for qid, reason in outcome.moot.items():
        say(terminal_safe(f"{qid}: not recorded: does not apply ({reason})"))
    for qid, (answer, reason, eid) in outcome.mooted.items():
        why = f"does not apply now ({reason})"
        say(terminal_safe(f"{qid}: {answer} withdrawn: {why} → evidence {eid}"))
    for r in outcome.brought_in_step:
        say(terminal_safe(f"{r.said} → evidence {r.evidence_id}"))
    for disagreement in disagree:
        say(terminal_safe(f"{disagreement.said}: answer the one that is wrong again"))
    if pending:
        say(terminal_safe(f"not answered yet: {', '.join(pending)}"))
    return 0


def _ask(items: list[IntakeItem], questions: dict[str, IntakeQuestion]) -> dict[str, str]:
    """Each unanswered question at the terminal; an empty line skips it. A reply is read by
    the question's own reading of a typed answer, as ``--answer`` and ``--env`` read it (a
    synonym, a count): the answer it was taken as is said when it is other words."""
    answers: dict[str, str] = {}
    for item in items:
        if item.answer is not None or item.known is not None or item.does_not_apply:
            continue
        if item.moot_under(answers):  # "one" GPU just given: NVLink is not asked next
            continue
        choices = " / ".join(item.answers)
        hint = f"  ({item.help})" if item.help else ""
        while True:
            say(terminal_safe(f"{item.text} [{choices}]{hint}"))
            try:
                reply = input("> ").strip()
            except EOFError:
                return answers
            if not reply:
                break
            question = questions[item.id]
            normal = question.normalise(reply)
            if normal is not None:
                answers[item.id] = normal
                if question.taken_as(reply) is not None:
                    say(terminal_safe(f"  {reply!r} taken as {normal}"))
                break
            say(terminal_safe(f"  {reply!r} is not one of {choices}; empty to skip"))
    return answers


def _show_items(items: list[IntakeItem], as_json: bool) -> None:
    if as_json:
        rows = [
            {
                "id": i.id,
                "playbook": i.playbook,
                "text": i.text,
                "answers": list(i.answers),
                "answer": i.answer,
                "source": i.source,
                "basis": i.basis,
                "known": i.known_fields,
                "counted_by": i.counted_by,
                "does_not_apply": i.does_not_apply,
            }
            for i in items
        ]
        say_json(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for item in items:
        if item.answer is not None:
            state = item.answer + _answered_by(item.source, item.basis)
        elif item.counted_by is not None:
            state = (
                f"known: {item.known.answer if item.known else '?'} (counted by {item.counted_by})"
            )
        elif item.does_not_apply is not None:
            state = f"does not apply: {item.does_not_apply}"
        elif item.known is not None and item.known.source == "environment":
            # --env gave it: the answer, though this case (opened before such answers were
            # recorded on opening) holds it as evidence only once `casefile intake` runs
            state = f"{item.known.answer} (answered by {item.known.basis}; not recorded yet)"
        elif item.known is not None:
            state = f"known: {item.known.answer} (from {item.known.basis})"
        else:
            state = "—"
        say(terminal_safe(f"{item.id:<20} {state:<28} {item.text} [{' / '.join(item.answers)}]"))


def _answered_by(source: str | None, basis: str | None) -> str:
    """How a recorded answer came: nothing for a person's, the ``--env`` entry, the
    observation or the other answer it rests on otherwise."""
    if source in (None, "answered") and not basis:
        return ""
    if source == "environment" and basis:
        return f" (answered by {basis})"
    return f" (from {basis or source})"


def _outcome_json(
    outcome: IntakeOutcome,
    pending: list[str],
    typed: dict[str, tuple[str, str]],
    disagree: list[Disagreement],
) -> dict[str, Any]:
    def row(question: str, answer: str, evidence: str, source: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": question,
            "answer": answer,
            "evidence_id": evidence,
            "source": source,
        }
        if source == "answered" and typed.get(question, ("", ""))[1] == answer:
            out["given_as"] = typed[question][0]  # other words, taken as the answer
        if question in outcome.implied:  # settled by another answer: which, and why
            out["basis"] = outcome.implied[question]
        if question in outcome.restored:  # a person's answer withdrawn as moot, back again
            out["restores"] = outcome.restored[question]
        if question in outcome.replaced:  # the answer it replaced, and that answer's seq
            old, seq = outcome.replaced[question]
            out["replaces"] = {"answer": old, "seq": seq}
        return out

    return {
        "recorded": [row(*recorded) for recorded in outcome.recorded],
        "unchanged": list(outcome.unchanged),
        "counted_elsewhere": [
            {"question": q, "evidence_id": e} for q, e in outcome.counted_elsewhere
        ],
        "withdrawn": [
            {"question": q, "answer": a, "rested_on": basis, "evidence_id": e}
            for q, (a, basis, e) in outcome.withdrawn.items()
        ],
        "not_recorded": [
            {"question": q, "does_not_apply": reason} for q, reason in outcome.moot.items()
        ],
        "withdrawn_moot": [
            {"question": q, "answer": a, "does_not_apply": reason, "evidence_id": e}
            for q, (a, reason, e) in outcome.mooted.items()
        ],
        # rule readings withdrawn while an answer rules their rule out, or restored
        "readings": [
            {
                "rule": r.rule,
                "outcome": r.outcome,
                "now": "withdrawn" if r.withdrawn else "restored",
                "because": r.because,
                "evidence_id": r.evidence_id,
            }
            for r in outcome.readings
        ],
        # A/Bs read again: the answers changed which rule reads them, or how
        "experiments": [
            {
                "experiment_id": x.experiment_id,
                "before": x.before,
                "now": x.now,
                "because": x.because,
                "evidence_id": x.evidence_id,
            }
            for x in outcome.experiments
        ],
        # answers in force that another answer in force implies otherwise (implied_by)
        "disagreements": [
            {
                "question": d.question,
                "answer": d.answer,
                "premise": {"question": d.premise, "answer": d.premise_answer},
                "implies": d.implied,
                "why": d.why,
            }
            for d in disagree
        ],
        "pending": pending,
    }
