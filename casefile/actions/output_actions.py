"""Actions that write files from a case rather than events into it: the report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from casefile.actions.spec import ActionSpec, Option, Outcome

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who

from casefile.report import EXPORTS, FORMATS

#: the report's documents, and the exports for other tools (one home: ``casefile.report``)
REPORT_FORMATS = (*FORMATS, *EXPORTS)
#: the format a file name's suffix says (a .csv may be either export: --format says which)
BY_SUFFIX = {"md": "md", "html": "html", "json": "json", "jsonl": "timeline-jsonl"}


@dataclass(frozen=True)
class WriteReport:
    """Write the postmortem report (and, for Markdown, its chart beside it)."""

    path: str
    #: md, html, json or an export; None: from the file name's suffix
    fmt: str | None = None
    redact: bool = False

    def __post_init__(self) -> None:
        if self.fmt is None:
            suffix = self.path.rsplit(".", 1)[-1].lower()
            if suffix not in BY_SUFFIX:
                raise ValueError(
                    "format must be md, html or json, or an export: "
                    f"{', '.join(EXPORTS)} (or name the file .md, .html, .json, .jsonl)"
                )
            object.__setattr__(self, "fmt", BY_SUFFIX[suffix])

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        from casefile.actions.postmortem_actions import record_hint
        from casefile.report import ReportOptions, build_report, needs_facts
        from casefile.report.files import report_files, write_report_files

        del who
        assert self.fmt is not None  # settled when made
        facts = needs_facts(self.fmt, redact=self.redact)
        options = ReportOptions(redact=self.redact, record=record_hint(case_id), facts=facts)
        report = build_report(service, case_id, options)
        # every file rendered, and every name checked, before the first is written
        files = [
            (target, data)
            for target, data in report_files(report, self.fmt, Path(self.path))
            if target is not None
        ]
        write_report_files(files)
        return Outcome("wrote " + ", ".join(str(target) for target, _ in files), self.path)


# --- the rows of the action table ------------------------------------------------------

REPORT = ActionSpec(
    "report",
    "Report",
    WriteReport,
    (
        Option(
            "path",
            "File to write (.md, .html or .json)",
            flag="-o",
            required=True,
            example="postmortem.html",
            noun="file to write",
        ),
        Option(
            "fmt",
            "Format (md, html, json, or an export: timeline-csv, timeline-jsonl, facts-csv; "
            "empty: from the file name)",
            "choice",
            flag="--format",
            choices=REPORT_FORMATS,
            noun="format",
        ),
        Option(
            "redact",
            "Redact host names, addresses, users, UUIDs? (yes/no)",
            "switch",
            flag="--redact",
            default=False,
        ),
    ),
    ("report",),
    "a postmortem of a case",
    ("Export report", "Write the postmortem report: Markdown, HTML or JSON"),
    key="r",
    writes=False,
    stamped=False,
    heading="Export the postmortem report",
    short="report",
    own_parser=True,
)
