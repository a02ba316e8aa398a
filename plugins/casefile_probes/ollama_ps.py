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
matters, sometimes behind a label of their own ("0.7.0: gemma3:27b …"). The name is the first
word of the row that is not such a label, and the label goes with it ("gemma3:27b (0.7.0)"): a
rule keeps one reading per subject, and the rows of two versions are two readings. The same
name twice in one paste (two runs of ``ollama ps``) is told apart by its row ("(row 2)"). What
is not a row — the shell prompt, a SYCL banner — is left alone.
"""

from __future__ import annotations

import re

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

__all__ = ["PROBE", "looks_like_ollama_ps", "parse_ollama_ps"]

#: the PROCESSOR column: the CPU share, then the GPU share, or all on one of them
_PLACEMENT = re.compile(
    r"(?<!\S)(?:(?P<cpu>\d{1,3})%/(?P<gpu>\d{1,3})%\s{1,4}CPU/GPU"
    r"|(?P<whole>100)%\s{1,4}(?P<on>GPU|CPU))(?!\S)"
)
#: a model's size just before its placement, as a row prints it
_SIZED = re.compile(r"(?<!\S)\d{1,5}(?:\.\d{1,3})?\s{1,4}[KMGT]i?B\s{1,40}$")
_HEADER = re.compile(
    r"(?m)^\s{0,40}(?:\S{0,200}\$\s{1,4})?NAME\s{1,40}(?:ID\s{1,40})?SIZE\s{1,40}PROCESSOR\b"
)
#: a label a person put before the row ("0.7.0:", "before:")
_LABEL = re.compile(r"^\S{1,40}:$")


def looks_like_ollama_ps(text: str) -> bool:
    """Whether a text holds ``ollama ps``'s header or a row that gives a size and a placement."""
    if not isinstance(text, str) or ("GPU" not in text and "CPU" not in text):
        return False
    if _HEADER.search(text) is not None:
        return True
    return any(_row(line) is not None for line in text.splitlines() if "PU" in line)


def _row(line: str) -> tuple[str, float] | None:
    """The model's name and the percent of it on the GPU, if ``line`` is a row."""
    placement = _PLACEMENT.search(line)
    if placement is None or _SIZED.search(line, 0, placement.start()) is None:
        return None
    words = line[: placement.start()].split()
    labels: list[str] = []
    while words and _LABEL.match(words[0]) is not None and len(words) > 3:
        labels.append(words.pop(0).rstrip(":"))
    if len(words) < 3:  # a name, maybe an ID, a size and its unit at least
        return None
    if placement.group("whole") is not None:
        share = 100.0 if placement.group("on") == "GPU" else 0.0
    else:
        cpu, gpu = int(placement.group("cpu")), int(placement.group("gpu"))
        if cpu + gpu != 100:
            return None
        share = float(gpu)
    name = f"{words[0]} ({' '.join(labels)})" if labels else words[0]
    return name, share


def parse_ollama_ps(text: str) -> ParseResult:
    """``model.gpu_share`` for each model row (percent of the model on the GPU)."""
    if not isinstance(text, str):
        return ParseResult.unparsed("no text to read")
    result = ParseResult()
    seen: set[str] = set()
    rows = 0
    for line in text.replace("\r\n", "\n").split("\n"):
        if "PU" not in line:
            continue
        row = _row(line)
        if row is None:
            continue
        rows += 1
        name = row[0] if row[0] not in seen else f"{row[0]} (row {rows})"
        seen.add(name)
        result.add("model.gpu_share", row[1], name, "%")
    if not result.facts:
        if _HEADER.search(text) is not None:
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
    timeout_s=30.0,
    recognises=looks_like_ollama_ps,
)
