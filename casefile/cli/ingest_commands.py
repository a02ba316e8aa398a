"""``casefile ingest CASE FILE``: a past terminal session or transcript read into the case.

The proposal is shown as a table (one row per run or note), then appended as the user accepts
it, in one append: all with ``--yes``; on a terminal, by answering (all, none, or the numbers
to keep); without a terminal and without ``--yes``, refused. Exit 0 when something was
appended, 1 when nothing was.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from casefile.actions.ingest_actions import FORMATS as INGEST_FORMATS
from casefile.app.files import TRANSCRIPT_LIMIT
from casefile.app.probing import LOADS
from casefile.cli.terminal import say

if TYPE_CHECKING:
    from casefile.transcripts.proposal import Proposal

#: the loads a session may have been recorded under (the probe's and ingest's one list)
LOAD_CHOICES = LOADS


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    from casefile.cli.parsing import who_and_when

    p = sub.add_parser(
        "ingest",
        parents=[common, who_and_when()],
        help="read a recorded session or transcript into a case (runs and notes, reviewed)",
    )
    p.add_argument("case", help="case id, unique prefix, or case directory")
    p.add_argument("file", help="typescript, asciinema cast, shell log or Markdown transcript")
    p.add_argument("--format", choices=INGEST_FORMATS, default="auto", help="default: detect")
    p.add_argument("--timing", metavar="FILE", help="script(1)'s timing file for a typescript")
    p.add_argument("--load", choices=LOAD_CHOICES, default="unknown", help="load state then")
    p.add_argument("--yes", action="store_true", help="accept everything proposed")
    p.add_argument(
        "--no-scrub",
        dest="scrub",
        action="store_false",
        help="keep secrets (tokens, passwords, keys) in what is recorded; the events say so",
    )
    from casefile.actions.ingest_actions import INGEST
    from casefile.cli.action_commands import dests_for

    # where this parser keeps the ingest row's options (the positional ``file`` → ``path``)
    p.set_defaults(handler=cmd_ingest, row_dests=dests_for(p, INGEST))


def _clip(text: str, width: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def review_table(proposal: Proposal) -> list[str]:
    """The proposal, one row per item."""
    from casefile.transcripts.proposal import ProposedRun

    rows = [f"{'#':>4}  {'kind':<5} {'probe':<18} {'host':<14} {'at':<20} text"]
    for item in proposal.items:
        if isinstance(item, ProposedRun):
            extra = f"  [{item.filter}]" if item.filter else ""
            if item.setup:
                extra += f"  [other setup: {item.setup}]"
            scrubbed = f"  (scrubbed: {', '.join(item.scrubbed)})" if item.scrubbed else ""
            rows.append(
                f"{item.index + 1:>4}  {'run':<5} {_clip(item.probe, 18):<18} "
                f"{_clip(item.host, 14):<14} {(item.at or '-')[:19]:<20} "
                f"{_clip(item.line, 60)}{extra}{scrubbed}"
            )
        else:
            rows.append(
                f"{item.index + 1:>4}  {'note':<5} {'':<18} {'':<14} {'':<20} "
                f"{_clip(item.text, 60)}"
            )
    return rows


def _numbers(answer: str, count: int) -> list[int] | None:
    """The 0-based indexes an answer keeps (``1,3-5``), or None when it does not read."""
    kept: list[int] = []
    for part in answer.replace(" ", "").split(","):
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            return None
        first, last = int(low), int(high or low)
        if not 1 <= first <= last <= count:
            return None
        kept.extend(range(first - 1, last))
    return kept


def _ask(count: int) -> list[int]:
    from casefile.errors import CasefileError

    say(
        f"Append all {count}? [a]ll, [n]one, or the numbers to keep (e.g. 1,3-5): ",
        file=sys.stderr,
        end="",
        flush=True,
    )
    answer = sys.stdin.readline().strip().lower()
    if answer in ("a", "all", "y", "yes"):
        return list(range(count))
    if answer in ("", "n", "no", "none"):
        return []
    kept = _numbers(answer, count)
    if kept is None:
        raise CasefileError(f"{answer!r} is not all, none, or numbers such as 1,3-5")
    return kept


def cmd_ingest(args: argparse.Namespace) -> int:
    from casefile.actions.ingest_actions import INGEST
    from casefile.app.opening import open_case
    from casefile.cli.action_commands import action_from
    from casefile.cli.parsing import read_input, who
    from casefile.errors import CasefileError

    actor = who(args)
    action = action_from(INGEST, args, args.row_dests)
    data = read_input(action.path, TRANSCRIPT_LIMIT)  # a regular file, or stdin for ``-``
    timing = read_input(action.timing, TRANSCRIPT_LIMIT) if action.timing else None
    with open_case(args.case, args.db) as opened:
        service, case_id = opened.service, opened.case_id
        proposal = service.probing.propose_ingest(
            data, action.format, timing, action.load, scrub=action.scrub
        )
        for row in review_table(proposal):
            say(row)
        count = len(proposal.items)
        if action.yes:
            keep: list[int] = list(range(count))
        elif not sys.stdin.isatty():
            raise CasefileError(
                f"ingest asks which of the {count} proposed events to append, and stdin is not "
                "a terminal: pass --yes to append them all"
            )
        else:
            keep = _ask(count)
        if not keep:
            say("casefile: nothing appended", file=sys.stderr)
            return 1
        runs = service.probing.ingest(case_id, proposal, keep, actor)
    notes = len(keep) - len(runs)
    say(f"appended {len(runs)} run(s) and {notes} note(s) from {args.file} ({proposal.format})")
    for run in runs:
        if run.read_as:
            say(f"run #{run.index + 1} ({run.probe}): read as {', '.join(run.read_as)}")
        if not run.parsed:
            why = "; ".join(run.problems[:1]) or "no reason given"
            say(
                f"casefile: run #{run.index + 1} ({run.probe}) did not parse: {why}",
                file=sys.stderr,
            )
        if run.truncated:
            say(
                f"casefile: run #{run.index + 1}: output over the cap, recorded truncated",
                file=sys.stderr,
            )
        if run.scrubbed:
            say(
                f"casefile: run #{run.index + 1}: scrubbed {', '.join(run.scrubbed)}",
                file=sys.stderr,
            )
    say_scrubbed(proposal, keep, "the transcript")
    return 0


def say_scrubbed(proposal: Proposal, keep: list[int], where: str) -> None:
    """Say once how many secrets the appended items had scrubbed, if any."""
    from casefile.cli.probe_commands import scrubbed_line

    kept = set(keep)
    count = sum(item.secrets for item in proposal.items if item.index in kept)
    if count:
        say(scrubbed_line(count, where), file=sys.stderr)
