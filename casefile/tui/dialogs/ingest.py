"""The ingest dialog: which transcript, in what format, under what load. It returns an
:class:`IngestRequest`; the case screen builds the proposal from it on a thread worker and
opens the review screen (``casefile/tui/screens/ingest_review.py``) on what it proposes.

The request is plain data, like the other requests: it reads the file and asks the service for
a proposal (off the UI thread), and knows the ``casefile ingest`` line that records the same.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casefile.actions.spec import Outcome
from casefile.app.files import TRANSCRIPT_LIMIT, read_regular_file
from casefile.app.probing import LOADS
from casefile.transcripts import FORMATS as TRANSCRIPT_FORMATS
from casefile.tui.dialogs.form import Field, FormDialog, optional, required

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who
    from casefile.transcripts.proposal import Proposal

#: The formats ``casefile ingest --format`` takes (``auto``: detect from the content).
FORMATS = ("auto", *TRANSCRIPT_FORMATS)


def read_transcript(path: str, what: str = "transcript", limit: int = TRANSCRIPT_LIMIT) -> bytes:
    """The bytes of a transcript (or its timing file), refused in one line as the CLI refuses
    it: the same reader, in the app layer both front ends reach."""
    return read_regular_file(path, limit, label=f"the {what} {path}")


@dataclass(frozen=True)
class IngestRequest:
    """A transcript to propose from, as ``casefile ingest CASE FILE`` options."""

    path: str
    fmt: str = "auto"
    load: str = "unknown"
    timing: str | None = None
    title: str = "Ingest"

    def propose(self, service: CaseService) -> Proposal:
        """Read the file and ask the service what it proposes (nothing is stored)."""
        data = read_transcript(self.path)
        timing = read_transcript(self.timing, "timing file") if self.timing else None
        return service.probing.propose_ingest(data, self.fmt, timing, self.load)

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        """Everything proposed, appended: what ``--yes`` does (the TUI reviews first)."""
        proposal = self.propose(service)
        runs = service.probing.ingest(case_id, proposal, None, who)
        return Outcome(appended_text(len(runs), len(proposal.items) - len(runs), proposal.format))

    def words(self, case_id: str) -> list[str]:
        """The ``casefile ingest`` arguments without the answer to its review."""
        words = ["ingest", case_id, self.path]
        if self.fmt != "auto":
            words += ["--format", self.fmt]
        if self.timing:
            words += ["--timing", self.timing]
        if self.load != "unknown":
            words += ["--load", self.load]
        return words

    def argv(self, case_id: str) -> list[str]:
        return [*self.words(case_id), "--yes"]

    def command_line(self, case_id: str, actor: str) -> str:
        return _command(self.argv(case_id), actor)


@dataclass(frozen=True)
class IngestSelection:
    """What the review kept: the proposal and the indexes of the accepted items."""

    request: IngestRequest
    proposal: Proposal
    keep: tuple[int, ...]
    title: str = "Ingest"

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        runs = service.probing.ingest(case_id, self.proposal, list(self.keep), who)
        said = appended_text(len(runs), len(self.keep) - len(runs), self.proposal.format)
        return Outcome(said)

    @property
    def everything(self) -> bool:
        return len(self.keep) == len(self.proposal.items)

    def argv(self, case_id: str) -> list[str]:
        # --yes keeps everything; a subset has no flag (the CLI asks for it at a prompt), and
        # the log line says so in a comment rather than show a command that would do more
        return self.request.argv(case_id) if self.everything else self.request.words(case_id)

    def command_line(self, case_id: str, actor: str) -> str:
        """The ``casefile ingest`` line, and what it cannot say as a comment after it."""
        return _command(self.argv(case_id), actor) + self.remark()

    def remark(self) -> str:
        """What the command line cannot say: the answer to type at its prompt."""
        if self.everything:
            return ""
        total = len(self.proposal.items)
        return (
            f"  # answer {ranges(self.keep)} at its prompt (no flag picks a subset; "
            f"--yes keeps all {total})"
        )


def _command(argv: list[str], actor: str) -> str:
    return shlex.join(["casefile", *argv, *(["--actor", actor] if actor != "user" else [])])


def appended_text(runs: int, notes: int, fmt: str) -> str:
    return f"appended {runs} run(s) and {notes} note(s) ({fmt})"


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


def build_ingest(values: Mapping[str, str]) -> IngestRequest:
    path = os.path.expanduser(required(values, "path", "the transcript file"))
    fmt = values.get("format", "").strip() or "auto"
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    load = values.get("load", "").strip() or "unknown"
    if load not in LOADS:
        raise ValueError(f"load must be one of {', '.join(LOADS)}")
    timing = optional(values, "timing")
    if timing is not None and fmt not in ("auto", "typescript"):
        raise ValueError("a timing file goes with a typescript (format auto or typescript)")
    return IngestRequest(path, fmt, load, os.path.expanduser(timing) if timing else None)


class IngestDialog(FormDialog[IngestRequest]):
    """The transcript, its format and the load then; Enter moves on, ctrl+s reads it."""

    def __init__(self, *, case_id: str, actor: str, path: str = "") -> None:
        fields = [
            Field(
                "path",
                "Transcript file (typescript, asciinema cast, shell log, Markdown)",
                "",
                path,
            ),
            Field("format", f"Format ({', '.join(FORMATS)})", "", "auto"),
            Field("load", f"Load then ({', '.join(LOADS)})", "", "unknown"),
            Field("timing", "Timing file (optional: script(1)'s, for a typescript)"),
        ]
        super().__init__(
            "Ingest a transcript",
            fields,
            build_ingest,
            echo=lambda request: request.command_line(case_id, actor),
            confirm_label="Review",
        )
