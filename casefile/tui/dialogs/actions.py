"""The dialogs of the actions: each one built from its row of the action table.

A dialog's fields are the row's options a form offers, in order; what is typed goes through
the same parser as the CLI's arguments (:func:`casefile.actions.text.parse`), so a form and a
command line refuse the same input in the same words. The dialog shows the command line that
records the same thing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from casefile.actions.spec import ActionSpec, Option, command_line
from casefile.actions.table import BY_NAME
from casefile.actions.text import parse
from casefile.tui.dialogs.form import Field, FormDialog

#: options a form shows as several lines
MULTILINE = ("note", "lines", "table", "pairs")


def fields_of(spec: ActionSpec, preset: Mapping[str, str]) -> list[Field]:
    """The form's fields: the options a form offers, prefilled from ``preset``."""
    return [
        Field(
            o.name,
            o.label,
            f"e.g. {o.example}" if o.example else "",
            preset.get(o.name, shown_default(o)),
            o.kind in MULTILINE if o.multiline is None else o.multiline,
        )
        for o in spec.options
        if o.form
    ]


def shown_default(option: Option) -> str:
    """An option's default as a form shows it, typed in (``0.5``, ``measured``, ``no``); empty
    where absent means absent."""
    default = option.default
    if option.kind == "switch":
        return "yes" if default else "no"
    if default is None or default in ((), {}):
        return ""
    return f"{default:g}" if isinstance(default, float) else str(default)


def build_from(spec: ActionSpec) -> Callable[[Mapping[str, str]], Any]:
    """Typed text → the action (a ``ValueError`` in the action's words when it cannot be)."""
    offered = [o.name for o in spec.options if o.form]

    def build(values: Mapping[str, str]) -> Any:
        return parse(spec, {name: values.get(name, "") for name in offered})

    return build


def dialog(
    kind: str,
    *,
    case_id: str,
    actor: str,
    preset: Mapping[str, str] | None = None,
    preview: Callable[[Any], Awaitable[str]] | None = None,
) -> FormDialog[Any]:
    """The dialog for one action of the table, its fields prefilled from ``preset``."""
    spec = BY_NAME[kind]
    return FormDialog(
        spec.heading or spec.title,
        fields_of(spec, preset or {}),
        build_from(spec),
        echo=lambda action: command_line(spec, action, case_id, actor),
        # an action that appends nothing (a report, an export) writes files, records nothing
        confirm_label="Record" if spec.writes else "Write",
        preview=preview,
    )


def preview_text(preview: Any) -> str:
    """An :class:`~casefile.app.views.board.EvidencePreview` as the dialog shows it."""
    lines = [f"If recorded now (reliability {preview.reliability:g}):"]
    for row in preview.rows:
        if abs(row.after - row.before) < 0.0005 and row.depth > 0:
            continue
        arrow = (
            "↑"
            if row.after > row.before + 0.0005
            else ("↓" if row.after < row.before - 0.0005 else "→")
        )
        name = f"{'  ' * row.depth}{row.id}"
        lines.append(f"  {name:<26} {row.before * 100:5.1f}% {arrow} {row.after * 100:5.1f}%")
    if preview.leader_after != preview.leader_before:
        lines.append(f"◆ the leader would change: {preview.leader_before} → {preview.leader_after}")
    return "\n".join(lines)
