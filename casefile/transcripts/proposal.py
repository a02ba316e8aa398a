"""The events a transcript proposes: a probe run for each command, a note for the prose.

Each command's output is rendered to what the terminal showed (the parsers read that), its
raw bytes are kept for the artifact, and secrets are scrubbed from both, and from the command
line, before anything is sealed. The source file itself is kept with every secret found
overwritten in place (same length), so the offsets the events record stay true.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from casefile.transcripts import formats
from casefile.transcripts.commands import (
    COMMAND_PROBE,
    CommandLineError,
    ProbeShape,
    match_command,
)
from casefile.transcripts.screen_text import render
from casefile.transcripts.secrets import Scrubbed, mask_values, scrub
from casefile.transcripts.stream import Command, Prose, Step, TranscriptError

__all__ = ["OUTPUT_CAP", "Proposal", "ProposedNote", "ProposedRun", "propose"]

#: the most output bytes one run keeps (head and tail), as the runners' capture does
OUTPUT_CAP = 4 * 1024 * 1024


@dataclass(frozen=True)
class ProposedRun:
    """A command proposed as a probe run."""

    index: int
    line: str
    probe: str
    argv: tuple[str, ...]
    host: str
    filter: str | None
    text: str
    output: bytes
    offset: int
    length: int
    at: str | None
    exit_status: int | None
    scrubbed: tuple[str, ...]
    #: (total bytes, head bytes, tail bytes) when the output was over the cap
    cut: tuple[int, int, int] | None = None
    #: the other setup the command ran on (its own ``NAME=VALUE`` words): no rule reads it
    setup: str | None = None
    #: how many different secrets were scrubbed from its line and output
    secrets: int = 0


@dataclass(frozen=True)
class ProposedNote:
    """Prose proposed as a note."""

    index: int
    text: str
    offset: int
    length: int
    scrubbed: tuple[str, ...]
    #: how many different secrets were scrubbed from it
    secrets: int = 0


Proposed = ProposedRun | ProposedNote


@dataclass(frozen=True)
class Proposal:
    """What a transcript proposes, with the source as it will be kept."""

    format: str
    items: tuple[Proposed, ...]
    #: the source file, secrets overwritten in place
    source: bytes
    load: str
    #: False when the user kept the secrets (nothing was scrubbed)
    scrub: bool = True

    @property
    def runs(self) -> list[ProposedRun]:
        return [item for item in self.items if isinstance(item, ProposedRun)]


class _Scrubber(Protocol):
    def __call__(
        self,
        text: str,
        *,
        program_line: bool = False,
        keep_length: bool = False,
        command: str | None = None,
    ) -> Scrubbed: ...


def _cap(output: bytes) -> tuple[bytes, tuple[int, int, int] | None]:
    if len(output) <= OUTPUT_CAP:
        return output, None
    head = OUTPUT_CAP // 2
    tail = OUTPUT_CAP - head
    return output[:head] + output[-tail:], (len(output), head, tail)


def propose(
    data: bytes,
    shapes: Sequence[ProbeShape],
    *,
    fmt: str = "auto",
    timing: bytes | None = None,
    load: str = "unknown",
    exclude: Callable[[str], bool] | None = None,
    host: str = "unknown",
    marks: str | None = None,
    scrub: bool = True,
) -> Proposal:
    """Read ``data`` and propose its events. Raises :class:`TranscriptError` for a
    file that cannot be read or holds no command. A command ``exclude`` picks (given the line
    as typed, leading space and all) is left out, its output too, and blanked in the source
    kept (``record``: a line typed after a space, or matching ``--exclude``). ``host`` is where
    a command not run over ``ssh`` ran, where that is known (``record``: this machine).
    ``marks`` is the nonce of ``record``'s shell integration, whose OSC 133 marks alone are
    trusted (:func:`.stream.split_stream`); a file from elsewhere has none. ``scrub=False``
    keeps every secret (the user asked: the proposal says so)."""
    clean = _scrub if scrub else _keep
    chosen, steps = formats.read(data, fmt, timing, marks)
    data = formats.as_kept(data, chosen)
    if exclude is not None:
        blanked = bytearray(data)
        kept: list[Step] = []
        for step in steps:
            if isinstance(step, Command) and exclude(step.line):
                end = step.offset + step.length
                blanked[step.offset : end] = b" " * (end - step.offset)
            else:
                kept.append(step)
        data, steps = bytes(blanked), kept
    if not any(isinstance(step, Command) for step in steps):
        foreign = "" if marks is not None or b"\x1b]133;" not in data else _FOREIGN_MARKS
        raise TranscriptError(
            f"no recognisable command in this {chosen} file (looked for "
            + _looked_for(chosen)
            + ")"
            + foreign
        )
    items: list[Proposed] = []
    secrets: list[str] = []
    for step in steps:
        if isinstance(step, Prose):
            prose = clean(step.text)
            secrets.extend(prose.values)
            items.append(
                ProposedNote(
                    len(items), prose.text, step.offset, step.length, prose.kinds, prose.count
                )
            )
            continue
        items.append(_run(len(items), step, shapes, secrets, host, clean))
    if not scrub:
        return Proposal(chosen, tuple(items), data, load, scrub=False)
    masked = mask_values(data, secrets).decode("latin-1")
    source = _scrub(masked, keep_length=True).text.encode("latin-1")
    return Proposal(chosen, tuple(items), source, load)


def _scrub(
    text: str, *, program_line: bool = False, keep_length: bool = False, command: str | None = None
) -> Scrubbed:
    return scrub(text, program_line=program_line, keep_length=keep_length, command=command)


def _keep(
    text: str, *, program_line: bool = False, keep_length: bool = False, command: str | None = None
) -> Scrubbed:
    return Scrubbed(text)


def _run(
    index: int,
    step: Command,
    shapes: Sequence[ProbeShape],
    secrets: list[str],
    default_host: str,
    clean: _Scrubber,
) -> ProposedRun:
    line = clean(step.line.strip(), program_line=True)
    raw = step.output
    text = render(raw.decode("utf-8", errors="replace"))
    out = clean(text, command=step.line)
    secrets.extend(line.values)
    secrets.extend(out.values)
    raw = mask_values(raw, [*line.values, *out.values])
    try:
        matched = match_command(line.text, shapes)
        probe, argv, host, filter_ = matched.probe, matched.argv, matched.host, matched.filter
        setup = matched.setup
    except CommandLineError:
        probe, argv, host, filter_, setup = COMMAND_PROBE, (line.text,), None, None, None
    kept, cut = _cap(raw)
    kinds = tuple(dict.fromkeys([*line.kinds, *out.kinds]))
    if cut is not None:
        out_text = render(kept.decode("utf-8", errors="replace"))
        out = clean(out_text, command=step.line)
    return ProposedRun(
        index,
        line.text,
        probe,
        argv or (line.text,),
        host or default_host,
        filter_,
        out.text,
        kept,
        step.offset,
        step.length,
        step.at,
        step.exit_status,
        kinds,
        cut,
        setup,
        len({*line.values, *out.values}),
    )


#: why a file whose prompts carry another tool's shell-integration marks proposes nothing
_FOREIGN_MARKS = (
    "; its OSC 133 marks are not casefile record's own, so they and the lines that carry them "
    "are read as output (any command's output can print them)"
)


def _looked_for(fmt: str) -> str:
    return {
        "markdown": "'[bash] CMD' lines and fenced shell blocks",
        "asciicast": "prompt lines in its output",
        "typescript": "prompt lines",
        "shell-log": "prompt lines such as '$ CMD' or 'user@host:~$ CMD'",
    }.get(fmt, "commands")


def accepted(proposal: Proposal, indexes: Iterable[int] | None) -> list[Proposed]:
    """The items the user accepted (all of them for None)."""
    if indexes is None:
        return list(proposal.items)
    chosen = set(indexes)
    return [item for item in proposal.items if item.index in chosen]
