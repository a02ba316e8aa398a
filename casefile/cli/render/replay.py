"""``casefile replay`` as text: one block per event, then the pivots and who leads at the end."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from datetime import UTC

from casefile.app.views import ReplayStep, ReplayView
from casefile.cli.render.text import Zone, fixed, percent, timestamp, under_load

#: confidence changes smaller than this (absolute) are not listed
SHOWN_CHANGE = 0.005
#: changes listed per step, largest first
SHOWN_CHANGES = 6


def render_replay(view: ReplayView, *, zone: Zone = UTC) -> str:
    """The replay, its times shown in ``zone`` (UTC unless told), with the zone."""
    case = view.case
    lines = [f"Replay of case {case.id}: {case.title}", ""]
    for step in view.steps:
        lines.extend(render_step(step, view.names, zone=zone))
    if view.steps:
        lines += ["", "In short"]
        for pivot in view.summary.pivots:
            lines.append(
                f"  #{pivot.seq}: [{pivot.question}] {pivot.previous_leader} → {pivot.leader}"
            )
        for sub in view.summary.subpivots:
            lines.append(
                f"  #{sub.seq}: [{sub.question}] within the leader, at depth {sub.depth}: "
                f"{sub.previous_leaf} → {sub.leaf}"
            )
        for end in view.summary.leaders:
            share = percent(end.confidence).strip()
            lines.append(
                f"  [{end.question}] leads at the end: {end.leader} ({share}) — {end.text}"
            )
    return "\n".join(lines)


def render_step(step: ReplayStep, names: Mapping[str, str], *, zone: Zone = UTC) -> list[str]:
    lines = [f"#{step.seq:<4} {timestamp(step.when, zone)}  {step.actor:<9} {step.summary}"]
    if step.detail:
        lines += ["        │ " + line for line in textwrap.wrap(step.detail, width=100)]
    changes = sorted(
        ((hid, delta) for hid, delta in step.changes.items() if abs(delta) >= SHOWN_CHANGE),
        key=lambda item: -abs(item[1]),
    )
    if changes:
        parts = []
        for hid, delta in changes[:SHOWN_CHANGES]:
            now = step.confidence(hid)
            arrow = "▲" if delta > 0 else "▼"
            parts.append(f"{hid} {percent(now - delta).strip()}→{percent(now).strip()} {arrow}")
        lines.append("        " + "   ".join(parts))
    for qid, question in step.questions.items():
        if question.pivot:
            new = question.leader
            lines.append(
                f"        ⚑ PIVOT [{qid}]: the leading explanation is now {new} "
                f"({names.get(new, new)}), was {question.previous_leader}"
            )
        elif question.pivot_depth is not None:
            leaf = question.leading_leaf
            lines.append(
                f"        ◇ PIVOT within {question.leader} [{qid}], depth "
                f"{question.pivot_depth}: now {leaf} ({names.get(leaf, leaf)}), "
                f"was {question.previous_leading_leaf}"
            )
    if step.surprise_bits is not None:
        flag = ""
        if step.surprising and step.unexpected_bits is not None:
            flag = (
                f"  ← SURPRISE: {2**step.unexpected_bits:.1f}× likelier under its best "
                "explanation than under the belief held just before"
            )
        lines.append(f"        surprise {fixed(step.surprise_bits)} bits{flag}")
    lines += [f"        ⚠ [{w.code}] {w.message}" for w in step.warnings_raised]
    if step.suggestion is not None:
        best = step.suggestion
        lines.append(
            f"        → measure next: {best.probe}{under_load(best.load)} "
            f"({fixed(best.expected_gain_bits, 2)} bits expected, via {', '.join(best.rules)})"
        )
    lines += [f"        ✓ cleared [{w.code}] {w.message}" for w in step.warnings_cleared]
    return lines
