"""The detail pane: the selected event in full, or why a hypothesis's confidence is what it is.

Rendering only: the views come from the case thread already built (raw output with the probe's
command, host and conditions; parsed facts; the likelihood table with rule and version; why a
reading was set aside; a hypothesis's prior and every piece of evidence that moved it, in bits).
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from casefile.app.views import EventDetail, HypothesisDetail
from casefile.text_safety import block, line
from casefile.tui.glyphs import long_time, percent

#: Raw output shown inline, in characters (the rest: `casefile show CASE SEQ`).
RAW_LIMIT = 6000


class DetailPane(VerticalScroll):
    """Scrollable detail of whatever was chosen last."""

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("Choose an event or a hypothesis.", id="detail-body")

    def show(self, renderable: RenderableType) -> None:
        self.query_one("#detail-body", Static).update(renderable)
        self.scroll_home(animate=False)


def _pairs(rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in rows:
        table.add_row(Text(key), Text(value))  # Text, never str: a str cell is read as markup
    return table


def _cells(*values: str) -> list[Text]:
    """Table cells from case text: escaped, and as ``Text`` (a ``str`` cell is parsed as Rich
    markup, and a note saying ``[/]`` would stop the pane from drawing)."""
    return [Text(line(value)) for value in values]


def event_renderable(detail: EventDetail) -> RenderableType:
    parts: list[RenderableType] = []
    title = Text(f"#{detail.seq}  {detail.type}", style="bold")
    parts.append(title)
    rows = [
        ("hash", f"{detail.seq}@{detail.hash}"),
        ("actor", line(detail.actor)),
        ("when", long_time(detail.when)),
    ]
    if detail.occurred_at and detail.occurred_at != detail.recorded_at:
        rows.append(("recorded", long_time(detail.recorded_at)))
    rows.append(("summary", block(detail.summary)))  # a multi-line note reads as lines
    if detail.text:
        rows.append(("text", block(detail.text)))
    if detail.outcome:
        rows.append(("outcome", block(detail.outcome)))
    if detail.detail:
        rows.append(("detail", block(detail.detail)))
    parts.append(_pairs(rows))
    run = detail.probe_run or (detail.observation.run if detail.observation else None)
    if detail.observation is not None:
        obs = detail.observation
        parts.append(Text(f"\nParsed facts ({obs.probe}, load {obs.load})", style="bold"))
        if obs.problems:
            parts.append(Text("\n".join(f"⚠ {line(p)}" for p in obs.problems)))
        facts = Table(box=None, padding=(0, 1), show_edge=False)
        for column in ("subject", "fact", "value", "unit"):
            facts.add_column(column, overflow="fold")
        for fact in obs.facts[:200]:
            facts.add_row(*_cells(fact.subject, fact.name, str(fact.value), fact.unit or ""))
        parts.append(facts)
    if detail.evidence is not None:
        ev = detail.evidence
        parts.append(Text(f"\nEvidence {ev.evidence_id}", style="bold"))
        parts.append(
            _pairs(
                [
                    ("kind", f"{ev.kind}, reliability {ev.reliability:g}"),
                    ("rule", f"{ev.rule_id} v{ev.rule_version}" if ev.rule_id else "by hand"),
                    ("outcome", line(str(ev.outcome)) if ev.outcome else "—"),
                    ("rationale", block(ev.rationale)),
                ]
            )
        )
        table = Table(box=None, padding=(0, 1), show_edge=False)
        table.add_column("hypothesis")
        table.add_column("P(E|h)", justify="right")
        for item in ev.likelihoods:
            table.add_row(*_cells(item.hypothesis, f"{item.likelihood:g}"))
        table.add_row(*_cells("otherwise", f"{ev.otherwise:g}"))
        parts.append(table)
    if detail.set_aside is not None:
        aside = detail.set_aside
        parts.append(Text("\nSet aside", style="bold"))
        parts.append(
            _pairs(
                [
                    ("rule", f"{aside.rule_id} v{aside.rule_version}"),
                    ("why", block(aside.reason)),
                ]
            )
        )
    if run is not None:
        parts.append(Text(f"\nProbe run #{run.seq}: {run.probe}", style="bold"))
        rows = [
            ("command", line(run.command)),
            ("host", line(run.host)),
            ("source", run.source),
            ("load", run.load),
        ]
        if run.conditions.get("setup"):
            setup = str(run.conditions["setup"])
            rows.append(("other setup", line(f"{setup} (kept to compare; no rule read it)")))
        others = {k: v for k, v in run.conditions.items() if k != "setup"}  # its own row
        if others:
            rows.append(("conditions", line(", ".join(f"{k}={v}" for k, v in others.items()))))
        if run.exit_status is not None:
            rows.append(("exit", str(run.exit_status)))
        if run.error:
            rows.append(("error", line(run.error)))
        for truncation in run.truncated:
            rows.append(("cut", truncation.describe()))
        parts.append(_pairs(rows))
        for raw in (run.stdout, run.stderr):
            if raw is None:
                continue
            if raw.missing or raw.text is None:
                parts.append(Text(f"{raw.stream}: {raw.digest[:12]} (not stored here)"))
                continue
            text = raw.text
            cut = len(text) > RAW_LIMIT
            shown = block(text[:RAW_LIMIT])
            suffix = f"\n… {len(text) - RAW_LIMIT} more characters" if cut else ""
            parts.append(Text(f"{raw.stream} ({raw.size} bytes, {raw.digest[:12]})", style="bold"))
            parts.append(Text(shown + suffix))
    return Group(*parts)


def hypothesis_renderable(detail: HypothesisDetail, seq: int | None) -> RenderableType:
    at = f" at #{seq}" if seq is not None else ""
    parts: list[RenderableType] = [
        Text(f"{detail.id}{at}: {percent(detail.confidence).strip()}", style="bold"),
        Text(line(detail.text)),
        _pairs(
            [
                ("question", detail.question),
                (
                    "status",
                    detail.status
                    + (f" ({line(detail.status_reason)})" if detail.status_reason else ""),
                ),
                ("prior", f"{detail.prior:g} ({detail.prior_log_odds_bits:+.2f} bits log-odds)"),
                ("now", f"{detail.log_odds_bits:+.2f} bits log-odds"),
            ]
        ),
        Text("\nWhy (each evidence, newest first, in bits)", style="bold"),
    ]
    table = Table(box=None, padding=(0, 1), show_edge=False)
    table.add_column("bits", justify="right")
    table.add_column("evidence")
    table.add_column("seq", justify="right")
    table.add_column("rationale", overflow="fold")
    for item in detail.contributions:
        table.add_row(*_cells(f"{item.bits:+.3f}", item.evidence, str(item.seq), item.rationale))
    if not detail.contributions:
        parts.append(Text("no evidence has moved it yet: its confidence is its prior"))
    else:
        parts.append(table)
    return Group(*parts)
