"""Plain-text rendering of status, replay and log for the terminal."""

from __future__ import annotations

import re
import textwrap
from typing import Any

BAR_WIDTH = 20
#: confidence changes smaller than this (absolute) are not listed in replay
SHOWN_CHANGE = 0.005


def percent(value: float) -> str:
    return f"{value * 100:5.1f}%"


def fixed(value: float, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, never as ``-0.00`` (a rounding error below zero)."""
    return f"{round(value, digits) + 0.0:.{digits}f}"


def bar(value: float) -> str:
    filled = round(max(0.0, min(1.0, value)) * BAR_WIDTH)
    return "█" * filled + "·" * (BAR_WIDTH - filled)


def render_status(view: dict[str, Any]) -> str:
    case = view["case"]
    lines = [f"Case {case['id']}: {case['title']}  ({case['events']} events)"]
    if case.get("symptom"):
        lines.append(f"Symptom: {case['symptom']}")
    names = {h["id"]: h["text"] for h in view["hypotheses"]}
    for question in view["questions"]:
        leader = question["leader"]
        lines += [
            "",
            f"{question['text']}  [{question['id']}]",
            f"  leader: {leader} — {names.get(leader, leader)}",
            *(
                [
                    f"  strongest alternative: {question['runner_up']} — "
                    f"{names.get(question['runner_up'], question['runner_up'])}"
                ]
                if question.get("runner_up")
                else []
            ),
            f"  most specific: {question['leading_leaf']}   "
            f"entropy {fixed(question['entropy_bits'])} bits, {question['evidence']} evidence",
        ]
        for row in (h for h in view["hypotheses"] if h["question"] == question["id"]):
            indent = "  " * row["depth"]
            retired = "  (retired)" if row["status"] == "retired" else ""
            label = f"{indent}{row['id']}"
            lines.append(
                f"  {label:<28} {bar(row['confidence'])} {percent(row['confidence'])}"
                f"  {row['text']}{retired}"
            )
    if view["warnings"]:
        lines += ["", "Warnings"]
        lines += warning_lines(view["warnings"])
    if view["next_steps"]:
        lines += ["", "Next steps (expected information gain about the question)"]
        lines += next_step_lines(view["next_steps"])
    if view.get("best_probes"):
        lines += ["", "Best single probes (everything one run would tell, all its rules together)"]
        for rank, probe in enumerate(view["best_probes"][:5], start=1):
            load = " under load" if probe["load"] == "under-load" else ""
            lines.append(
                f"  {rank}. {fixed(probe['expected_gain_bits'], 3)} bits  "
                f"{probe['probe']}{load} ({probe['cost']}): {', '.join(probe['rules'])}"
            )
    if view["decisive_evidence"]:
        lines += ["", "Decisive evidence (leave-one-out, bits)"]
        for item in view["decisive_evidence"][:8]:
            bits = fixed(item["bits"], 3)
            lines.append(
                f"  {bits:>6}  {item['evidence']} (seq {item['seq']}, {item['kind']}): "
                f"{_short(item['rationale'])}"
            )
    if view.get("concluded"):
        done = view["concluded"]
        lines += ["", f"Concluded (seq {done['seq']}): {done['summary']}"]
        lines += [f"  → {r}" for r in done.get("recommendations", [])]
    return "\n".join(lines)


def warning_lines(warnings: list[dict[str, Any]]) -> list[str]:
    """Warnings, with the set-aside records of one reading folded into one line."""
    lines: list[str] = []
    folded: dict[str, list[dict[str, Any]]] = {}
    for warning in warnings:
        if warning["code"] == "set-aside":
            reading = str(warning["subject"]).split(":", 1)[0]
            folded.setdefault(reading, []).append(warning)
            if len(folded[reading]) > 1:
                continue
        lines.append(f"  ⚠ [{warning['code']}] {warning['message']} (seq {warning['seq']})")
    for reading, group in folded.items():
        if len(group) > 1:
            rules = ", ".join(str(w["subject"]).split(":", 1)[1] for w in group)
            first = next(i for i, line in enumerate(lines) if f"reading {reading} set" in line)
            lines[first] = (
                f"  ⚠ [set-aside] reading {reading} set aside by {len(group)} rules ({rules}): "
                f"{_generic(group[0]['message'])} (seq {group[0]['seq']})"
            )
    return lines


def _generic(message: str) -> str:
    reason = message.split(": ", 1)[-1]
    return re.sub(r"rule \S+ ", "each rule ", reason, count=1)


def next_step_lines(steps: list[dict[str, Any]], limit: int = 6) -> list[str]:
    """Ranked rules, each with the probes that can feed it (cheapest first)."""
    lines: list[str] = []
    by_rule: dict[str, list[dict[str, Any]]] = {}
    for step in steps:
        by_rule.setdefault(step["rule"], []).append(step)
    for rank, (rule, group) in enumerate(list(by_rule.items())[:limit], start=1):
        load = " under load" if group[0]["load"] == "under-load" else ""
        probes = ", ".join(f"{s['probe']} ({s['cost']})" for s in group)
        gain = fixed(group[0]["expected_gain_bits"], 3)
        lines.append(f"  {rank}. {gain} bits  rule {rule}{load}: {probes}")
    return lines


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def render_step(step: dict[str, Any], names: dict[str, str]) -> list[str]:
    when = step["when"][:16].replace("T", " ")
    lines = [f"#{step['seq']:<4} {when}  {step['actor']:<9} {step['summary']}"]
    if step.get("detail"):
        wrapped = textwrap.wrap(step["detail"], width=100)
        lines += ["        │ " + line for line in wrapped]
    changes = sorted(
        ((hid, delta) for hid, delta in step["changes"].items() if abs(delta) >= SHOWN_CHANGE),
        key=lambda item: -abs(item[1]),
    )
    if changes:
        parts = []
        for hid, delta in changes[:6]:
            now = _confidence(step, hid)
            arrow = "▲" if delta > 0 else "▼"
            parts.append(f"{hid} {percent(now - delta).strip()}→{percent(now).strip()} {arrow}")
        lines.append("        " + "   ".join(parts))
    for qid, question in step["questions"].items():
        if question["pivot"]:
            old, new = question["previous_leader"], question["leader"]
            lines.append(
                f"        ⚑ PIVOT [{qid}]: the leading explanation is now {new} "
                f"({names.get(new, new)}), was {old}"
            )
    if step["surprise_bits"] is not None:
        ratio = 2 ** step["unexpected_bits"]
        flag = (
            f"  ← SURPRISE: {ratio:.1f}× likelier under its best explanation than under the "
            "belief held just before"
            if step["surprising"]
            else ""
        )
        lines.append(f"        surprise {fixed(step['surprise_bits'])} bits{flag}")
    for warning in step["warnings_raised"]:
        lines.append(f"        ⚠ [{warning['code']}] {warning['message']}")
    if step.get("suggestion"):
        best = step["suggestion"]
        load = " under load" if best["load"] == "under-load" else ""
        gain = fixed(best["expected_gain_bits"], 2)
        lines.append(
            f"        → measure next: {best['probe']}{load} "
            f"({gain} bits expected, via {', '.join(best['rules'])})"
        )
    for warning in step["warnings_cleared"]:
        lines.append(f"        ✓ cleared [{warning['code']}] {warning['message']}")
    return lines


def _confidence(step: dict[str, Any], hid: str) -> float:
    for question in step["questions"].values():
        if hid in question["confidences"]:
            return float(question["confidences"][hid])
    return 0.0


def render_replay(view: dict[str, Any], names: dict[str, str]) -> str:
    case = view["case"]
    lines = [f"Replay of case {case['id']}: {case['title']}", ""]
    for step in view["steps"]:
        lines.extend(render_step(step, names))
    lines.extend(replay_summary(view["steps"], names))
    return "\n".join(lines)


def replay_summary(steps: list[dict[str, Any]], names: dict[str, str]) -> list[str]:
    """Where the story went: each pivot, and who leads at the end."""
    if not steps:
        return []
    lines = ["", "In short"]
    for step in steps:
        for qid, question in step["questions"].items():
            if question["pivot"]:
                lines.append(
                    f"  #{step['seq']}: [{qid}] {question['previous_leader']} → "
                    f"{question['leader']}"
                )
    for qid, question in steps[-1]["questions"].items():
        leader = question["leader"]
        share = percent(question["confidences"].get(leader, 0.0)).strip()
        lines.append(
            f"  [{qid}] leads at the end: {leader} ({share}) — {names.get(leader, leader)}"
        )
    return lines
