"""The ingest dialog: which transcript, in what format, under what load. It returns the ingest
row's :class:`~casefile.actions.ingest_actions.IngestTranscript`; the case screen builds the
proposal from it on a thread worker and opens the review screen
(``casefile/tui/screens/ingest_review.py``) on what it proposes, whose
:class:`IngestSelection` appends the items kept.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from casefile.actions.ingest_actions import INGEST, IngestTranscript, appended
from casefile.actions.spec import Outcome, command_line
from casefile.actions.text import parse
from casefile.tui.dialogs.form import Field, FormDialog

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who
    from casefile.transcripts.proposal import Proposal


@dataclass(frozen=True)
class IngestSelection:
    """What the review kept: the proposal and the indexes of the accepted items."""

    request: IngestTranscript
    proposal: Proposal
    keep: tuple[int, ...]
    title: str = "Ingest"

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        runs = service.probing.ingest(case_id, self.proposal, list(self.keep), who)
        said = appended(len(runs), len(self.keep) - len(runs), self.proposal.format)
        return Outcome(said)

    @property
    def everything(self) -> bool:
        return len(self.keep) == len(self.proposal.items)

    def command_line(self, case_id: str, actor: str) -> str:
        """The ``casefile ingest`` line, and what it cannot say as a comment after it: --yes
        keeps everything; a subset has no flag (the CLI asks for it at a prompt), and the
        line says so in a comment rather than show a command that would do more."""
        kept = replace(self.request, yes=self.everything)
        return command_line(INGEST, kept, case_id, actor) + self.remark()

    def remark(self) -> str:
        """What the command line cannot say: the answer to type at its prompt."""
        if self.everything:
            return ""
        total = len(self.proposal.items)
        return (
            f"  # answer {ranges(self.keep)} at its prompt (no flag picks a subset; "
            f"--yes keeps all {total})"
        )


def ranges(indexes: Sequence[int]) -> str:
    """0-based indexes as the CLI's prompt takes them, 1-based: ``0,2,3,4`` → ``1,3-5``."""
    ordered = sorted(set(indexes))
    parts: list[str] = []
    at = 0
    while at < len(ordered):
        end = at
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            end += 1
        first, last = ordered[at] + 1, ordered[end] + 1
        parts.append(str(first) if first == last else f"{first}-{last}")
        at = end + 1
    return ",".join(parts)


def build_ingest(values: Mapping[str, str]) -> IngestTranscript:
    """The ingest row's action from the dialog's fields (a ``~`` in a path is expanded)."""
    given = dict(values)
    for name in ("path", "timing"):
        if given.get(name, "").strip():
            given[name] = os.path.expanduser(given[name].strip())
    action: IngestTranscript = parse(INGEST, given)
    return action


class IngestDialog(FormDialog[IngestTranscript]):
    """The transcript, its format and the load then; Enter moves on, ctrl+s reads it."""

    def __init__(self, *, case_id: str, actor: str, path: str = "") -> None:
        fields = [
            Field("path", INGEST.option("path").label, "", path),
            Field("format", INGEST.option("format").label, "", "auto"),
            Field("load", INGEST.option("load").label, "", "unknown"),
            Field("timing", INGEST.option("timing").label),
        ]
        super().__init__(
            "Ingest a transcript",
            fields,
            build_ingest,
            echo=lambda action: command_line(INGEST, replace(action, yes=True), case_id, actor),
            confirm_label="Review",
        )
