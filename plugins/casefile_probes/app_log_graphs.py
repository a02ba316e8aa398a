"""Whether an inference server's log says it runs without CUDA graphs: ``app.cuda_graphs_off``
for :mod:`casefile_probes.app_log`.

Small-batch decode launches hundreds of small kernels per token, and a server that replays them
as CUDA graphs pays the launch cost once; one started in eager mode pays it every step, which
makes it launch-bound. Servers say which at start-up:

- off: vLLM's engine config ``enforce_eager=True`` and its non-default args
  ``'enforce_eager': True``, "Enforce eager set", "Cudagraph is disabled", SGLang's
  ``disable_cuda_graph=True``, a command line with ``--enforce-eager`` or
  ``--disable-cuda-graph``, SGLang's ``Decode batch … cuda graph: False`` where no line
  says they are on (a batch larger than the largest captured graph runs eagerly with graphs
  on);
- on: ``enforce_eager=False``, ``disable_cuda_graph=False``, "Capturing cudagraphs",
  "Capturing CUDA graph shapes", "Graph capturing finished", SGLang's "Capture cuda graph
  begin/end" and its ``Decode batch … cuda graph: True``.

SGLang's scheduler says on each batch line whether the batch ran as a graph; only its decode
lines say anything about the setting: prefill batches run eagerly whatever it is, so their
``cuda graph: False`` is not read.

vLLM's engine config may say ``enforce_eager=False`` with ``cudagraph_mode`` NONE (0): that is off,
and the line is read as off. An option listed by ``--help`` (indented, the flag first) is not a
setting; the same shape after a line that ends in a backslash is the last flag of a multi-line
command (``vllm serve … \\`` then ``    --enforce-eager``), and is.

vLLM's capture notice itself says "To run the model in eager mode, set 'enforce_eager=True'":
a setting in quotes is advice, not the setting, so it is not read. A log that says both (two
runs pasted together) counts as off: the eager run is the one that matters to a slow decode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult

__all__ = ["GRAPH_WORDS", "LOOKS_LIKE_GRAPHS", "GraphLines"]

_OFF = re.compile(
    r"(?i)(?:(?<![\w'\"])enforce_eager\s{0,2}=\s{0,2}true\b"
    r"|['\"]enforce_eager['\"]\s{0,2}:\s{0,2}true\b"
    r"|enforce eager set\b|cudagraph is disabled|cuda graphs? (?:is |are )?disabled"
    r"|(?<![\w'\"])disable_cuda_graph\s{0,2}=\s{0,2}true\b"
    r"|cudagraph_mode['\"]?\s{0,2}[:=]\s{0,2}(?:[^,;]{0,30}\bNONE\b|0(?![\d.]))"
    r"|(?<![\w'\"-])--enforce-eager(?![\w-])(?!\s{0,2}(?:=\s{0,2})?(?:false|0)\b)(?!,\s{0,2}--no-)"
    r"|(?<![\w'\"-])--disable-cuda-graph(?![\w-]))"
)
#: a decode batch that ran eagerly: SGLang prints it for every batch larger than its largest
#: captured graph, with graphs on, so it says "off" only where nothing says "on"
_DECODE_EAGER = re.compile(r"(?i)decode batch[^\n]{0,300}?\bcuda graph:\s{0,2}false\b")
_ON = re.compile(
    r"(?i)(?:(?<![\w'\"])enforce_eager\s{0,2}=\s{0,2}false\b"
    r"|(?<![\w'\"])disable_cuda_graph\s{0,2}=\s{0,2}false\b"
    r"|capturing cudagraphs|capturing cuda graph|graph capturing finished"
    r"|capture cuda graph (?:begin|end)\b"
    r"|decode batch[^\n]{0,300}?\bcuda graph:\s{0,2}true\b)"
)
#: an option as ``--help`` lists it: indented, the flag first ("  --enforce-eager, ...")
_HELP = re.compile(r"^\s{1,12}--[\w-]{1,60}(?:,\s{0,2}--[\w-]{1,60})?(?:\s{2,}|\s{0,2}$)")
#: the start-up lines that make a paste look like an application's log (for ``recognises``)
LOOKS_LIKE_GRAPHS = (
    r"(?<![\w'\"])enforce_eager\s{0,2}=\s{0,2}(?:True|False)\b|'enforce_eager': True"
    r"|Cudagraph is disabled|Graph capturing finished|Capturing cudagraphs|disable_cuda_graph=True"
)
#: a line is tried only if it holds one of these (most log lines hold none)
GRAPH_WORDS = ("eager", "Eager", "graph", "Graph", "GRAPH")


@dataclass
class GraphLines:
    """The log's statements about CUDA graphs, in reading order."""

    off: list[str] = field(default_factory=list)
    on: list[str] = field(default_factory=list)
    #: decode batches that ran eagerly (SGLang): off only where no line says on
    decode_eager: list[str] = field(default_factory=list)

    def read(self, line: str, continued: bool = False) -> None:
        """Note what one line says about CUDA graphs, if anything (call only for lines that
        hold one of :data:`GRAPH_WORDS`). ``continued``: the line before ended in a backslash,
        so this one is part of a command, whatever its indentation."""
        if not continued and _HELP.match(line) is not None:
            return  # a command's --help lists the flag; it does not set it
        if (off := _OFF.search(line)) is not None:
            self.off.append(off.group(0))
        elif (eager := _DECODE_EAGER.search(line)) is not None:
            self.decode_eager.append(eager.group(0))
        elif (on := _ON.search(line)) is not None:
            self.on.append(on.group(0))

    def add_facts(self, result: ParseResult) -> None:
        """``app.cuda_graphs_off``: a statement that they are off outweighs one that they are
        on (two runs pasted together), with a problem naming both. A decode batch that ran
        eagerly is a statement only where nothing says graphs are on: with graphs captured, a
        batch larger than the largest graph runs eagerly all the same."""
        if not self.on:
            self.off.extend(self.decode_eager)
        if self.off:
            result.add("app.cuda_graphs_off", True, "host")
            if self.on:
                result.problems.append(
                    f"the log runs without CUDA graphs ({self.off[0]!r}) and with them "
                    f"({self.on[0]!r}); taken as without"
                )
        elif self.on:
            result.add("app.cuda_graphs_off", False, "host")
