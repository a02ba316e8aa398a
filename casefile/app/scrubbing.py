"""Secrets kept out of what a case seals: a run's command, output and note, free text, and
the environment a case is opened with.

Everything a case records is kept for good and may be shared (a report, an exported case
directory), so a secret is masked before it is stored or parsed, never after: the run as
recorded, its raw bytes, the facts read from it and the note all come from the masked text.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from casefile.probes.runners.result import RunResult


@dataclass(frozen=True)
class ScrubbedRun:
    """A run with the secrets taken out of its command, output, error and note."""

    result: RunResult
    note: str | None
    #: how many different secrets were taken out
    count: int


def scrub_run(result: RunResult, note: str | None) -> ScrubbedRun:
    """``result`` and ``note`` with every secret masked before anything is stored or parsed:
    the argv word by word, the output text (all of it for a command that prints a secret,
    such as ``aws configure get …secret…``) and the raw bytes kept as artifacts, where each
    secret found is overwritten at its length (split by terminal escapes or not)."""
    from casefile.transcripts.secrets import MASK, mask_values, scrub, scrub_argv

    argv, line = scrub_argv(result.argv)
    command = shlex.join(result.argv)
    out = scrub(result.stdout, command=command)
    err = scrub(result.stderr)
    said = scrub(note or "")
    error = scrub(result.error or "")
    values = [*line.values, *out.values, *err.values, *said.values, *error.values]
    if not values:
        return ScrubbedRun(result, note, 0)
    longest_first = sorted({value for value in values if len(value) >= 4}, key=len, reverse=True)

    def text(clean: str) -> str:
        for value in longest_first:
            clean = clean.replace(value, MASK)
        return clean

    def raw(data: bytes | None, printed_by: str | None) -> bytes | None:
        if data is None:
            return None
        masked = mask_values(data, values).decode("latin-1")
        return scrub(masked, keep_length=True, command=printed_by).text.encode("latin-1")

    scrubbed = replace(
        result,
        argv=argv,
        stdout=text(out.text),
        stderr=text(err.text),
        error=text(error.text) if result.error else None,
        stdout_bytes=raw(result.stdout_bytes, command),
        stderr_bytes=raw(result.stderr_bytes, None),
    )
    return ScrubbedRun(scrubbed, text(said.text) if note else note, len(set(values)))


def scrub_text(text: str) -> str:
    """A note's, an action's or a rationale's text with its secrets masked."""
    from casefile.transcripts.secrets import scrub

    return scrub(text).text


def scrub_environment(environment: Mapping[str, str]) -> dict[str, str]:
    """A case's environment with its secrets masked: a value named like one (``HF_TOKEN``)
    whole, and a secret shape within any other."""
    from casefile.transcripts.secrets import MASK, is_secret_name, scrub

    return {
        name: MASK if is_secret_name(name) and value else scrub(value).text
        for name, value in environment.items()
    }
