"""Ingesting a transcript, as one action: which file, in what format, under what load, and
whether everything it proposes is kept.

What a recorded session proposes (probe runs and notes) is reviewed before anything is
appended: the CLI asks at a prompt, the TUI shows a review screen. ``yes`` keeps everything
without asking, which is also what running the action outright does; a subset kept on review
has no flag, so the line the TUI echoes for one says the answer to type at the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from casefile.actions.spec import ActionSpec, Option, Outcome
from casefile.app.probing import LOADS
from casefile.transcripts import FORMATS as TRANSCRIPT_FORMATS

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who
    from casefile.transcripts.proposal import Proposal

#: The formats ``casefile ingest --format`` takes (``auto``: detect from the content).
FORMATS = ("auto", *TRANSCRIPT_FORMATS)


@dataclass(frozen=True)
class IngestTranscript:
    path: str
    format: str = "auto"
    timing: str | None = None
    load: str = "unknown"
    #: keep everything proposed, without a review
    yes: bool = False
    #: False: keep the secrets in what is recorded (the events say so)
    scrub: bool = True

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}")
        if self.load not in LOADS:
            raise ValueError(f"load must be one of {', '.join(LOADS)}")
        if self.timing is not None and self.format not in ("auto", "typescript"):
            raise ValueError("a timing file goes with a typescript (format auto or typescript)")

    def propose(self, service: CaseService) -> Proposal:
        """Read the file (and the timing file) and ask what it proposes: nothing is stored."""
        from casefile.app.files import read_transcript

        data = read_transcript(self.path)
        timing = read_transcript(self.timing, "timing file") if self.timing else None
        return service.probing.propose_ingest(
            data, self.format, timing, self.load, scrub=self.scrub
        )

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        """Everything proposed, appended (what ``--yes`` does; the TUI reviews first)."""
        proposal = self.propose(service)
        runs = service.probing.ingest(case_id, proposal, None, who)
        return Outcome(appended(len(runs), len(proposal.items) - len(runs), proposal.format))


def appended(runs: int, notes: int, fmt: str) -> str:
    return f"appended {runs} run(s) and {notes} note(s) ({fmt})"


INGEST = ActionSpec(
    "ingest",
    "Ingest",
    IngestTranscript,
    (
        Option(
            "path",
            "Transcript file (typescript, asciinema cast, shell log, Markdown)",
            required=True,
            example="session.typescript",
            metavar="FILE",
            help="typescript, asciinema cast, shell log or Markdown transcript",
            noun="transcript file",
        ),
        Option(
            "format",
            f"Format ({', '.join(FORMATS)})",
            "choice",
            flag="--format",
            default="auto",
            choices=FORMATS,
            help="default: detect",
        ),
        Option(
            "timing",
            "Timing file (optional: script(1)'s, for a typescript)",
            flag="--timing",
            metavar="FILE",
            help="script(1)'s timing file for a typescript",
        ),
        Option(
            "load",
            f"Load then ({', '.join(LOADS)})",
            "choice",
            flag="--load",
            default="unknown",
            choices=LOADS,
            help="load state then",
        ),
        Option(
            "yes",
            "Keep everything proposed",
            "switch",
            flag="--yes",
            default=False,
            form=False,
            help="accept everything proposed",
        ),
        Option("scrub", "Scrub secrets", "switch", flag="--no-scrub", default=True, form=False),
    ),
    ("ingest",),
    "read a recorded session or transcript into a case (runs and notes, reviewed)",
    ("Ingest transcript", "Review a recorded session or transcript, append it"),
    heading="Ingest a transcript",
    key="t",
    short="ingest transcript",
    own_parser=True,
)
