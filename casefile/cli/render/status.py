"""``casefile status`` as text: the tree with bars, then one line per warning group, next
steps by rule, best probes, decisive evidence and the conclusion."""

from __future__ import annotations

from collections.abc import Iterable

from casefile.app.views import StatusView, WarningGroup
from casefile.app.views.steps import separation_line
from casefile.cli.render.text import bar, fixed, percent, short, under_load

#: rows shown per section
SHOWN_NEXT_STEPS = 6
SHOWN_BEST_PROBES = 5
SHOWN_DECISIVE = 8


def render_status(view: StatusView) -> str:
    case = view.case
    lines = [f"Case {case.id}: {case.title}  ({case.events} events)"]
    lines += [f"⚠ integrity: {message}" for message in view.integrity]
    if case.symptom:
        lines.append(f"Symptom: {case.symptom}")
    for question in view.questions:
        lines += [
            "",
            f"{question.text}  [{question.id}]",
            f"  leader: {question.leader} — {question.leader_text}",
        ]
        if question.runner_up is not None:
            lines.append(
                f"  strongest alternative: {question.runner_up} — {question.runner_up_text}"
            )
        lines.append(
            f"  most specific: {question.leading_leaf}   "
            f"entropy {fixed(question.entropy_bits)} bits, {question.evidence} evidence"
        )
        if question.likeliest_leaf != question.leading_leaf:
            lines.append(
                f"  likeliest single cause: {question.likeliest_leaf} "
                f"{percent(question.likeliest_confidence).strip()} (leader and most specific "
                f"follow the classes by their sums)"
            )
        for row in (h for h in view.hypotheses if h.question == question.id):
            label = "  " * row.depth + row.id
            retired = (
                "  (retired)"
                if row.status == "retired"
                else f"  (does not apply: {row.reason})"
                if row.reason is not None
                else ""
            )
            lines.append(
                f"  {label:<28} {bar(row.confidence)} {percent(row.confidence)}"
                f"  {row.text}{retired}"
            )
    if view.warning_groups:
        lines += ["", "Warnings"]
        lines += warning_lines(view.warning_groups)
    if view.next_step_groups:
        lines += [
            "",
            "Next steps (ranked by what a step tells about the three leading hypotheses, in "
            "bits weighted by its cost, and an A/B that tries the leader's remedy by the "
            "leader's lead; then the bits it is expected to tell about the question)",
        ]
        for rank, group in enumerate(view.next_step_groups[:SHOWN_NEXT_STEPS], start=1):
            probes = ", ".join(f"{p.probe} ({p.cost})" for p in group.probes)
            lines.append(
                f"  {rank}. {fixed(group.ranked_bits, 3)} ranked  "
                f"{fixed(group.expected_gain_bits, 3)} bits  "
                f"rule {group.rule}{under_load(group.load)}: {probes}"
            )
            if group.separates:
                lines.append(f"       {separation_line(group.separates)}")
    if view.best_probes:
        lines += ["", "Best single probes (everything one run would tell, all its rules together)"]
        for rank, probe in enumerate(view.best_probes[:SHOWN_BEST_PROBES], start=1):
            lines.append(
                f"  {rank}. {fixed(probe.ranked_bits, 3)} ranked  "
                f"{fixed(probe.expected_gain_bits, 3)} bits  "
                f"{probe.probe}{under_load(probe.load)} ({probe.cost}): {', '.join(probe.rules)}"
            )
            if probe.separates:
                lines.append(f"       {separation_line(probe.separates)}")
    if view.decisive_evidence:
        lines += ["", "Decisive evidence (leave-one-out, bits)"]
        for item in view.decisive_evidence[:SHOWN_DECISIVE]:
            lines.append(
                f"  {fixed(item.bits, 3):>6}  {item.evidence} (seq {item.seq}, {item.kind}): "
                f"{short(item.rationale)}"
            )
    if view.concluded is not None:
        done = view.concluded
        lines += ["", f"Concluded (seq {done.seq}): {done.summary}"]
        lines += [f"  → {r}" for r in done.recommendations]
    return "\n".join(lines)


def warning_lines(groups: Iterable[WarningGroup]) -> list[str]:
    """One line per group: a lone warning as itself, a larger group with its count and latest
    seqs (a group never prints its members, however many there are)."""
    lines = []
    for group in groups:
        seqs = ", ".join(str(s) for s in group.latest_seqs)
        if group.count == 1:
            lines.append(f"  ⚠ [{group.code}] {group.message} (seq {seqs})")
        else:
            which = "latest seqs" if group.count > len(group.latest_seqs) else "seqs"
            lines.append(f"  ⚠ [{group.code}] {group.message} ({group.count}×, {which} {seqs})")
    return lines
