"""``ollama ps``: where Ollama placed each loaded model, as ``model.gpu_share``.

Ollama never refuses a model too big for the GPU's memory: it keeps the layers that do not fit
on the CPU and answers at system-memory speed. Its ``ollama ps`` says so in the PROCESSOR
column — ``100% GPU``, ``11%/89% CPU/GPU``, ``100% CPU`` — and that column is what its
maintainers ask for first in a "slow" report. The share on the GPU is read per model (the
model's name is the fact's subject), so a rule can tell a model left partly on the CPU from one
wholly on the GPU.

Read from the table with its header (``NAME  ID  SIZE  PROCESSOR  [CONTEXT]  UNTIL``, the
column added in later versions included) and from rows quoted without it, where the size is
followed by the placement (``25 GB    11%/89% CPU/GPU``): people paste the one row that
matters, sometimes behind a label of their own ("0.7.0: gemma3:27b …"). Without the header a
row needs the model's ID (twelve hex digits) after its name. The name is the word before the ID,
and a label before it goes with it ("gemma3:27b (0.7.0)"): a rule keeps one reading per
subject, and the rows of two versions are two readings. The same name twice in one paste (two
runs of ``ollama ps``, before and after a fix) is read at its last row. What is not a row —
the shell prompt, a SYCL banner, a "Memory: 24 GB 100% GPU" line — is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

__all__ = ["PROBE", "looks_like_ollama_ps", "parse_ollama_ps"]

#: the PROCESSOR column: the CPU share, then the GPU share, or all on one of them; "Unknown"
#: where Ollama could not tell
_PLACEMENT = re.compile(
    r"(?<!\S)(?:(?P<cpu>\d{1,3})%/(?P<gpu>\d{1,3})%\s{1,4}CPU/GPU"
    r"|(?P<whole>100)%\s{1,4}(?P<on>GPU|CPU)|(?P<unknown>Unknown))(?!\S)"
)
#: a model's size just before its placement, as a row prints it
_SIZED = re.compile(r"(?<!\S)\d{1,5}(?:\.\d{1,3})?\s{1,4}[KMGT]i?B\s{1,40}$")
_HEADER = re.compile(
    r"(?m)^\s{0,40}(?:\S{0,200}\$\s{1,4})?NAME\s{1,40}(?:ID\s{1,40})?SIZE\s{1,40}PROCESSOR\b"
)
#: the model's ID: the first twelve hex digits of its digest
_ID = re.compile(r"^[0-9a-f]{12}$")


@dataclass(frozen=True)
class _Row:
    name: str
    share: float | None  # None: the placement is "Unknown"


def looks_like_ollama_ps(text: str) -> bool:
    """Whether a text holds ``ollama ps``'s header or a row with a model's ID, size and
    placement (a line that only ends in "24 GB  100% GPU" is not enough)."""
    if not isinstance(text, str):
        return False
    if _HEADER.search(text) is not None:
        return True
    if "GPU" not in text and "CPU" not in text:
        return False
    return any(_row(line, headed=False) is not None for line in text.splitlines() if "PU" in line)


def _row(line: str, *, headed: bool) -> _Row | None:
    """The model of ``line`` and the percent of it on the GPU, if the line is a row: a name,
    an ID (or, under the table's header, none), a size, a placement. Words before the name
    are a label of the poster's own ("0.7.0:", "Before upgrade:") and go with it."""
    placement = _PLACEMENT.search(line)
    if placement is None or _SIZED.search(line, 0, placement.start()) is None:
        return None
    words = line[: placement.start()].split()[:-2]  # without the size and its unit
    if len(words) >= 2 and _ID.match(words[-1]) is not None:
        name, labels = words[-2], words[:-2]
    elif headed and words:
        labels = words[:-1]
        name = words[-1]
    else:
        return None
    label = " ".join(labels).rstrip(":").strip()
    subject = f"{name} ({label})" if label else name
    if placement.group("unknown") is not None:
        return _Row(subject, None)
    if placement.group("whole") is not None:
        return _Row(subject, 100.0 if placement.group("on") == "GPU" else 0.0)
    cpu, gpu = int(placement.group("cpu")), int(placement.group("gpu"))
    return _Row(subject, float(gpu)) if cpu + gpu == 100 else None


def parse_ollama_ps(text: str) -> ParseResult:
    """``model.gpu_share`` for each model row (percent of the model on the GPU); a model listed
    twice (two runs pasted together) is read at its last row, with a problem."""
    if not isinstance(text, str):
        return ParseResult.unparsed("no text to read")
    headed = _HEADER.search(text) is not None
    shares: dict[str, float] = {}
    problems: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if "PU" not in line and "Unknown" not in line:
            continue
        row = _row(line, headed=headed)
        if row is None:
            continue
        if row.share is None:
            problems.append(f"{row.name}: placement Unknown, not read")
            continue
        if row.name in shares and shares[row.name] != row.share:
            problems.append(
                f"{row.name} is listed twice ({shares[row.name]:g} %, then {row.share:g} % on "
                "the GPU); the last row is kept"
            )
        shares.pop(row.name, None)
        shares[row.name] = row.share
    result = ParseResult(problems=problems)
    for name, share in shares.items():
        result.add("model.gpu_share", share, name, "%")
    if not result.facts:
        if problems:
            return ParseResult.unparsed(problems[0])
        if headed:
            return ParseResult.unparsed("ollama ps lists no loaded model")
        return ParseResult.unparsed("no ollama ps row (a size, then 100% GPU or N%/M% CPU/GPU)")
    return result


PROBE = Probe(
    name="ollama-ps",
    summary="Ollama's loaded models: how much of each it placed on the GPU",
    parse=parse_ollama_ps,
    argv=("ollama", "ps"),
    cost="instant",
    facts=("model.gpu_share",),
    percentages=("model.gpu_share",),  # "100% GPU", "48%/52% CPU/GPU"
    timeout_s=30.0,
    recognises=looks_like_ollama_ps,
    only_for=r"\bollama\b",
)
