"""One event or one hypothesis in full, as text: what a detail pane shows, for the terminal."""

from __future__ import annotations

import math
import textwrap
from datetime import UTC

from casefile.app.views import (
    EventDetail,
    EvidenceDetail,
    HypothesisDetail,
    ObservationDetail,
    ProbeRunDetail,
    RawOutput,
    SetAsideDetail,
)
from casefile.cli.render.text import Zone, fixed, percent, short, timestamp

#: facts and lines of raw output shown (the JSON has them all)
SHOWN_FACTS = 40
SHOWN_OUTPUT_LINES = 60


def render_event_detail(view: EventDetail, *, zone: Zone = UTC) -> str:
    """The event in full, its times shown to the second in ``zone`` (UTC unless told), with
    the zone (``--json`` has them as stored)."""
    when = timestamp(view.when, zone, seconds=True)
    recorded = timestamp(view.recorded_at, zone, seconds=True)
    lines = [
        f"#{view.seq} {view.type} (v{view.version}) by {view.actor}",
        f"  when: {when}   recorded: {recorded}",
        f"  hash: {view.hash}",
        f"  prev: {view.prev_hash}",
        "",
        view.summary,
    ]
    if view.detail and view.probe_run is None:  # a run's note is shown with the run
        lines += ["  " + line for line in textwrap.wrap(view.detail, width=100)]
    if view.probe_run is not None:
        lines += probe_run_lines(view.probe_run)
    if view.observation is not None:
        lines += observation_lines(view.observation)
    if view.evidence is not None:
        lines += evidence_lines(view.evidence)
    if view.set_aside is not None:
        lines += set_aside_lines(view.set_aside)
    return "\n".join(lines)


def probe_run_lines(run: ProbeRunDetail) -> list[str]:
    if run.timed_out:
        status = "timed out"
    elif run.exit_status is not None:
        status = f"exit {run.exit_status}"
    else:
        status = f"no exit status ({run.source})"
    if run.error:
        status += f", error: {run.error}"
    origin = ", reconstructed" if run.reconstructed else ""
    lines = [
        "",
        f"Probe run {run.seq}: {run.probe} on {run.host} [{run.load}] ({run.source}{origin})",
        f"  $ {run.command}",
        f"  {status}",
    ]
    if run.source == "stated":  # nothing ran: the output below is what a person said
        lines[2:4] = ["  nothing ran: the readings below were stated, and count as reported"]
    setup = run.conditions.get("setup")
    if setup:
        lines.append(f"  other setup: {setup} (kept to compare; no rule read it)")
    if run.note:
        lines += textwrap.wrap(
            run.note, width=100, initial_indent="  note: ", subsequent_indent="  "
        )
    # the raw output below is the head then the tail, with nothing between to mark the cut
    lines += [f"  {cut.describe()}" for cut in run.truncated]
    for output in (run.stdout, run.stderr):
        if output is not None:
            lines += output_lines(output)
    return lines


def output_lines(output: RawOutput) -> list[str]:
    if output.missing or output.text is None:
        return [f"  {output.stream}: artifact {output.digest} is missing"]
    check = "" if output.verified else ", DOES NOT MATCH ITS DIGEST"
    text = output.text.splitlines()
    lines = [f"  {output.stream} ({output.size} bytes, sha256 {output.digest}{check}):"]
    lines += [f"    │ {line}".rstrip() for line in text[:SHOWN_OUTPUT_LINES]]
    if len(text) > SHOWN_OUTPUT_LINES:
        lines.append(f"    │ … {len(text) - SHOWN_OUTPUT_LINES} more lines")
    return lines


def observation_lines(obs: ObservationDetail) -> list[str]:
    parsed = "" if obs.parsed else ", did not parse"
    lines = [
        "",
        f"Observation from {obs.probe} (probe run {obs.probe_run_seq}, {obs.load}{parsed})",
    ]
    lines += [f"  problem: {problem}" for problem in obs.problems]
    for fact in obs.facts[:SHOWN_FACTS]:
        unit = f" {fact.unit}" if fact.unit else ""
        lines.append(f"  {fact.subject:<16} {fact.name:<32} {fact.value}{unit}")
    if len(obs.facts) > SHOWN_FACTS:
        lines.append(f"  … {len(obs.facts) - SHOWN_FACTS} more facts")
    if obs.evidence_ids:
        lines.append(f"  evidence drawn from it: {', '.join(obs.evidence_ids)}")
    if obs.set_aside_by:
        lines.append(f"  set aside by: {', '.join(obs.set_aside_by)}")
    if obs.run is not None:
        lines += probe_run_lines(obs.run)
    return lines


def evidence_lines(ev: EvidenceDetail) -> list[str]:
    rule = f"rule {ev.rule_id} v{ev.rule_version}, " if ev.rule_id else ""
    lines = [
        "",
        f"Evidence {ev.evidence_id} on {ev.question}: {rule}{ev.kind}, r={ev.reliability:g}",
    ]
    width = max((len(row.hypothesis) for row in ev.likelihoods), default=0)
    lines += [
        f"  P(E | {row.hypothesis:<{width}}) = {row.likelihood:<6g} {row.text}"
        for row in ev.likelihoods
    ]
    lines.append(f"  P(E | {'any other':<{width}}) = {ev.otherwise:g}")
    if ev.outcome is not None:
        lines.append(f"  outcome: {ev.outcome!r} (statistic {ev.statistic})")
    rests = [
        f"observation {ev.observation_seq}" if ev.observation_seq is not None else "",
        f"probe run {ev.probe_run_seq}" if ev.probe_run_seq is not None else "",
        f"raw output {ev.artifact}" if ev.artifact else "",
    ]
    if any(rests):
        lines.append("  rests on: " + ", ".join(r for r in rests if r))
    if ev.supersedes:
        lines.append(f"  supersedes {ev.supersedes}")
    if ev.superseded_by:
        lines.append(f"  superseded by {ev.superseded_by}")
    return lines


def set_aside_lines(aside: SetAsideDetail) -> list[str]:
    probe = f" ({aside.probe})" if aside.probe else ""
    return [
        "",
        f"Reading {aside.observation_seq}{probe} set aside by rule "
        f"{aside.rule_id} v{aside.rule_version}",
        f"  why: {aside.reason}",
    ]


def render_hypothesis_detail(view: HypothesisDetail) -> str:
    parent = f", under {view.parent}" if view.parent else ""
    retired = f" ({view.status_reason})" if view.status_reason else ""
    lines = [
        f"{view.id}: {view.text}  [{view.question}{parent}]",
        f"  confidence {percent(view.confidence).strip()}, prior {view.prior:g}, "
        f"{view.status}{retired}",
    ]
    if view.meaning:
        lines.append(f"  meaning: {view.meaning}")
    if view.children:
        lines.append(f"  refined by: {', '.join(view.children)}")
    lines.append(
        f"  log-odds: prior {_bits(view.prior_log_odds_bits)}, now {_bits(view.log_odds_bits)}"
    )
    if view.contributions:
        lines += ["", "Evidence that moved it (bits of log-odds, newest first)"]
    for c in view.contributions:
        lines.append(
            f"  {fixed(c.bits, 3):>7}  {c.evidence} (seq {c.seq}, {c.kind}, r={c.reliability:g}, "
            f"P(E|h)={c.likelihood:g}, otherwise {c.otherwise:g}): {short(c.rationale, 60)}"
        )
    return "\n".join(lines)


def _bits(value: float) -> str:
    return f"{fixed(value, 3)} bits" if math.isfinite(value) else f"{value} bits"
