"""How a job is laid out over its GPUs, as its log says it: ``app.tensor_parallel``,
``app.world_size`` and ``app.gpus_used`` for :mod:`casefile_probes.app_log`.

A tensor-parallel size, a world size or a count of GPUs used tells which causes can apply at
all: a model split over more GPUs than it needs, collectives between them, or one GPU alone. A
log states them as settings (``tensor_parallel_size=2``, ``--tp 4``, trtllm-bench's ``TP Size: 2``,
``world_size: 8``, ``num_gpus=2``, "Let's use 2 GPUs!"); TensorRT-LLM's benchmark line puts key
and value apart by a space (``[BENCHMARK] … world_size 2 …``), read on such a line only, since
"the world_size 2 run" in prose is no setting. A log that gives several values for one of them
(two runs pasted together) keeps the last, with a problem that says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult

from ._text import first_match as _first

__all__ = ["LayoutLines"]

_TP = (
    re.compile(r"tensor[_-]parallel[_-]size['\"]?\s{0,4}[=:]?\s{0,4}(\d{1,4})\b"),
    re.compile(r"(?<![\w-])(?:--tp(?:-size)?|tp_size)(?:=|\s{1,4})(\d{1,4})\b"),
    re.compile(r"^\s{0,8}TP Size:\s{0,40}(\d{1,4})\b"),
)
_WORLD = re.compile(
    r"(?i)(?<![\w])(?:distributed_)?world[_ ]size['\"]?\s{0,4}[=:]\s{0,4}(\d{1,6})\b"
)
_BENCH_WORLD = re.compile(r"(?<![\w])world_size\s{1,4}(\d{1,6})\b")
_GPUS = (
    re.compile(r"(?i)\b(?:using|let's use)\s{1,4}(\d{1,4})\s{1,4}gpus?\b"),
    re.compile(r"(?<![\w])(?:num_gpus|n_gpu)['\"]?\s{0,4}[=:]\s{0,4}(\d{1,4})\b"),
    re.compile(r"--num[-_]gpus(?:=|\s{1,4})(\d{1,4})\b"),
)


@dataclass
class LayoutLines:
    """The parallel sizes a log's lines give, in reading order."""

    tensor_parallel: list[int] = field(default_factory=list)
    world_size: list[int] = field(default_factory=list)
    gpus: list[int] = field(default_factory=list)

    def read(self, line: str) -> None:
        # cheap substring looks first: a 10 MB log stays one quick pass
        if "parallel" in line or "tp" in line or "TP" in line:
            match = _first(_TP, line)
            if match is not None:
                self.tensor_parallel.append(int(match.group(1)))
        if "orld" in line or "ORLD" in line:
            match = _WORLD.search(line)
            if match is None and "[BENCHMARK]" in line:
                match = _BENCH_WORLD.search(line)
            if match is not None:
                self.world_size.append(int(match.group(1)))
        if "gpu" in line or "GPU" in line:
            match = _first(_GPUS, line)
            if match is not None:
                self.gpus.append(int(match.group(1)))

    def add_facts(self, result: ParseResult) -> None:
        problems = result.problems
        result.add(
            "app.tensor_parallel", _settle(self.tensor_parallel, "tensor parallel size", problems)
        )
        result.add("app.world_size", _settle(self.world_size, "world size", problems))
        result.add("app.gpus_used", _settle(self.gpus, "GPUs used", problems))


def _settle(values: list[int], name: str, problems: list[str]) -> int | None:
    """The last value a log gave for a setting, with a problem when it gave several."""
    if not values:
        return None
    if len(set(values)) > 1:
        shown = ", ".join(str(v) for v in sorted(set(values)))
        problems.append(f"{name}: the log gives several values ({shown}); the last is kept")
    return values[-1]
