"""The dialogs of the recording actions: each one a list of fields and a builder.

The builders are plain functions over the typed text, so the validation rules are tested
without a screen; the dialogs are :class:`~casefile.tui.dialogs.form.FormDialog` instances.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from casefile.domain.kinds import KINDS
from casefile.tui.dialogs.form import (
    Field,
    FormDialog,
    lines_of,
    optional,
    probability_of,
    required,
)
from casefile.tui.requests import (
    ActionRequest,
    ConcludeRequest,
    EvidenceRequest,
    ExportRequest,
    HypothesisRequest,
    NewCaseRequest,
    NoteRequest,
    PlaybookRequest,
    QuestionRequest,
    RefineRequest,
    ReinstateRequest,
    ReportRequest,
    RetireRequest,
)


def build_note(values: Mapping[str, str]) -> NoteRequest:
    text = values.get("text", "")
    if not text.strip():
        raise ValueError("the note is empty")
    return NoteRequest(text.rstrip("\n"))


def build_action(values: Mapping[str, str]) -> ActionRequest:
    return ActionRequest(required(values, "text", "the action"), optional(values, "outcome"))


def build_question(values: Mapping[str, str]) -> QuestionRequest:
    return QuestionRequest(
        required(values, "text", "the question"),
        optional(values, "id"),
        probability_of(values, "catch_all", "the catch-all prior", default=0.1),
    )


def build_hypothesis(values: Mapping[str, str]) -> HypothesisRequest:
    return HypothesisRequest(
        required(values, "text", "the hypothesis"),
        required(values, "under", "'under' (a question or parent hypothesis id)"),
        probability_of(values, "prior", "the prior"),
        optional(values, "id"),
        optional(values, "meaning"),
    )


def build_refine(values: Mapping[str, str]) -> RefineRequest:
    return RefineRequest(
        required(values, "hypothesis", "the hypothesis id"),
        required(values, "text", "the new wording"),
        optional(values, "because"),
    )


def build_retire(values: Mapping[str, str]) -> RetireRequest:
    return RetireRequest(
        required(values, "hypothesis", "the hypothesis id"),
        required(values, "because", "the reason"),
    )


def build_reinstate(values: Mapping[str, str]) -> ReinstateRequest:
    return ReinstateRequest(
        required(values, "hypothesis", "the hypothesis id"), optional(values, "because")
    )


def build_evidence(values: Mapping[str, str]) -> EvidenceRequest:
    table: dict[str, float] = {}
    for raw in values.get("likelihoods", "").replace(",", "\n").splitlines():
        item = raw.strip()
        if not item:
            continue
        hid, sep, number = item.partition("=")
        if not sep or not hid.strip():
            raise ValueError(f"{item!r}: write each likelihood as HYPOTHESIS=P")
        if hid.strip() in table:
            raise ValueError(f"the likelihood of {hid.strip()!r} is given twice")
        table[hid.strip()] = probability_of({"p": number}, "p", f"P(E | {hid.strip()})", high=True)
    if not table:
        raise ValueError("give at least one likelihood (HYPOTHESIS=P)")
    kind = values.get("kind", "").strip() or "measured"
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    reliability = values.get("reliability", "").strip()
    supersedes = optional(values, "supersedes")
    if supersedes is not None and len(supersedes.split()) > 1:
        raise ValueError(f"{supersedes!r}: give one evidence id to supersede")
    return EvidenceRequest(
        table,
        required(values, "because", "the rationale"),
        probability_of(values, "otherwise", "P(E) for the others", default=0.5, high=True),
        kind,
        probability_of(values, "reliability", "the reliability", low=True, high=True)
        if reliability
        else None,
        seq_of(values, "probe_run", "the probe run"),
        seq_of(values, "observation", "the observation"),
        supersedes,
    )


def seq_of(values: Mapping[str, str], name: str, what: str) -> int | None:
    """An optional event seq (``12`` or ``#12``), as the CLI's ``SEQ`` arguments take it;
    whether the case holds such an event is the preview's to say (it asks the case)."""
    text = values.get(name, "").strip()
    if not text:
        return None
    digits = text.removeprefix("#")
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"{what}: {text!r} is not an event seq (1, 2, 3 …)")
    if int(digits) < 1:
        raise ValueError(f"{what}: {text!r}: event seqs start at 1")
    return int(digits)


def build_conclude(values: Mapping[str, str]) -> ConcludeRequest:
    return ConcludeRequest(
        required(values, "summary", "the summary"),
        optional(values, "root_cause"),
        lines_of(values, "recommend"),
        lines_of(values, "lessons"),
    )


def build_playbook(values: Mapping[str, str]) -> PlaybookRequest:
    return PlaybookRequest(required(values, "playbook", "the playbook id"))


def build_export(values: Mapping[str, str]) -> ExportRequest:
    return ExportRequest(required(values, "directory", "the directory"))


def build_report(values: Mapping[str, str]) -> ReportRequest:
    path = required(values, "path", "the file to write")
    fmt = values.get("format", "").strip() or path.rsplit(".", 1)[-1].lower()
    if fmt not in ("md", "html", "json"):
        raise ValueError("format must be md, html or json (or name the file .md, .html, .json)")
    redact = values.get("redact", "").strip().lower()
    if redact not in ("", "yes", "no", "y", "n"):
        raise ValueError("redact: yes or no")
    return ReportRequest(path, fmt, redact in ("yes", "y"))


def build_new_case(values: Mapping[str, str]) -> NewCaseRequest:
    environment: dict[str, str] = {}
    for item in lines_of(values, "environment"):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{item!r}: write the environment as KEY=VALUE, one per line")
        environment[key.strip()] = value.strip()
    return NewCaseRequest(
        required(values, "title", "the title"),
        optional(values, "symptom"),
        environment,
        optional(values, "playbook"),
    )


def dialog(
    kind: str,
    *,
    case_id: str,
    actor: str,
    preset: Mapping[str, str] | None = None,
    preview: Callable[[Any], Awaitable[str]] | None = None,
) -> FormDialog:  # type: ignore[type-arg]
    """The dialog for one action, its fields prefilled from ``preset``."""
    preset = preset or {}

    def f(name: str, label: str, placeholder: str = "", multiline: bool = False) -> Field:
        return Field(name, label, placeholder, preset.get(name, ""), multiline)

    specs: dict[str, tuple[str, Sequence[Field], object]] = {
        "note": (
            "Add a note",
            [f("text", "Note (several lines allowed)", multiline=True)],
            build_note,
        ),
        "action": (
            "Record an action",
            [f("text", "What was done"), f("outcome", "Outcome (optional)")],
            build_action,
        ),
        "question": (
            "Ask a question",
            [
                f("text", "Question"),
                f("id", "Id (optional)", "e.g. throughput"),
                f("catch_all", "Catch-all prior", "0.1"),
            ],
            build_question,
        ),
        "hypothesis": (
            "Propose a hypothesis",
            [
                f("text", "Hypothesis"),
                f("under", "Under (question or parent hypothesis id)"),
                f("prior", "Prior (absolute, or share of the parent)", "0.2"),
                f("id", "Id (optional)"),
                f("meaning", "Meaning (optional): what would be true if this is the answer"),
            ],
            build_hypothesis,
        ),
        "refine": (
            "Reword a hypothesis",
            [
                f("hypothesis", "Hypothesis id"),
                f("text", "New wording"),
                f("because", "Because (optional)"),
            ],
            build_refine,
        ),
        "retire": (
            "Retire a hypothesis",
            [f("hypothesis", "Hypothesis id"), f("because", "Because")],
            build_retire,
        ),
        "reinstate": (
            "Reinstate a hypothesis",
            [f("hypothesis", "Hypothesis id"), f("because", "Because (optional)")],
            build_reinstate,
        ),
        "evidence": (
            "Assess evidence",
            [
                f(
                    "likelihoods",
                    "Likelihoods, one HYPOTHESIS=P per line (P(E | h))",
                    multiline=True,
                ),
                f("otherwise", "P(E) for every other hypothesis", "0.5"),
                f("kind", f"Kind ({', '.join(KINDS)})", "measured"),
                f("reliability", "Reliability (optional; default by kind)"),
                f("because", "Rationale"),
                f("probe_run", "Rests on probe run (seq, optional)", "e.g. 33"),
                f("observation", "Rests on observation (seq, optional)", "e.g. 34"),
                f("supersedes", "Re-assesses evidence (id, optional)", "e.g. e3"),
            ],
            build_evidence,
        ),
        "conclude": (
            "Conclude the case",
            [
                f("summary", "Summary"),
                f("root_cause", "Root cause (hypothesis id, optional)"),
                f("recommend", "Recommendations, one per line", multiline=True),
                f("lessons", "Lessons, one per line", multiline=True),
            ],
            build_conclude,
        ),
        "playbook": (
            "Open a playbook",
            [f("playbook", "Playbook id", "gpu-throughput")],
            build_playbook,
        ),
        "export": ("Export the case", [f("directory", "Directory to write")], build_export),
        "report": (
            "Export the postmortem report",
            [
                f("path", "File to write (.md, .html or .json)", "postmortem.html"),
                f("format", "Format (md, html, json; empty: from the file name)"),
                f("redact", "Redact host names, addresses, users, UUIDs? (yes/no)", "no"),
            ],
            build_report,
        ),
        "new": (
            "New case",
            [
                f("title", "Title"),
                f("symptom", "Symptom, with numbers"),
                f("environment", "Environment, KEY=VALUE per line", multiline=True),
                f("playbook", "Playbook (optional)", "gpu-throughput"),
            ],
            build_new_case,
        ),
    }
    title, fields, build = specs[kind]
    return FormDialog(
        title,
        fields,
        build,  # type: ignore[arg-type]
        case_id=case_id,
        actor=actor,
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
