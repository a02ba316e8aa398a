"""How long the host took to dispatch a step against how long the GPU took to run it, as
TorchBench's ``run.py`` prints them: facts for :mod:`casefile_probes.app_log`.

``python run.py resnet50 -d cuda -t train`` ends with::

    GPU Time:            1034.030 milliseconds
    CPU Dispatch Time:   1026.865 milliseconds
    CPU Total Wall Time: 1034.011 milliseconds

(later versions print ``GPU Time per batch:`` and ``CPU Wall Time per batch:`` and no dispatch
line). The GPU time is the step's elapsed time on the device, timed with CUDA events; the
dispatch time is how long the host took to enqueue the step's work. When dispatching takes
about as long as the GPU runs, the GPU waits on the host for its next kernel (launch overhead,
a slow Python loop) or the step synchronises with the host part-way through (TorchBench's
maintainers stopped printing the figure because such syncs make it read high); when it takes
far less, the host runs ahead and the GPU is the busy side.

Facts, on ``host``: ``app.gpu_time_ms``, ``app.cpu_dispatch_ms`` and ``app.cpu_wall_ms`` (ms,
the median over the runs a paste holds) and ``app.dispatch_share``: per run, its dispatch time
over the GPU time printed before it; the median of those.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from statistics import median

from casefile.domain.facts import ParseResult

__all__ = ["DISPATCH_FACTS", "LOOKS_LIKE_DISPATCH", "DispatchLines"]

_N = r"(\d{1,12}(?:\.\d{1,12})?)"
_MS = rf"\s{{0,40}}{_N}\s{{0,4}}(milliseconds?|ms)\b"
_GPU = re.compile(rf"^\s{{0,8}}GPU Time(?: per batch)?:{_MS}")
_DISPATCH = re.compile(rf"^\s{{0,8}}CPU Dispatch Time(?: per batch)?:{_MS}")
_WALL = re.compile(rf"^\s{{0,8}}CPU (?:Total )?Wall Time(?: per batch)?:{_MS}")
#: what :func:`casefile_probes.app_log.looks_like_app_log` takes for one of these outputs
LOOKS_LIKE_DISPATCH = r"^\s{0,8}(?:GPU|CPU Dispatch) Time(?: per batch)?:\s{0,40}\d"
DISPATCH_FACTS = ("app.gpu_time_ms", "app.cpu_dispatch_ms", "app.cpu_wall_ms", "app.dispatch_share")


@dataclass
class DispatchLines:
    """The timing lines of a paste, in reading order."""

    gpu: list[float] = field(default_factory=list)
    dispatch: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)

    def read(self, line: str) -> None:
        """Take one line (callers pass only lines holding "Time")."""
        for pattern, values in ((_GPU, self.gpu), (_DISPATCH, self.dispatch), (_WALL, self.wall)):
            match = pattern.match(line)
            if match is None:
                continue
            values.append(float(match.group(1)))
            if pattern is _DISPATCH and self.gpu and self.gpu[-1] > 0.0:
                self.shares.append(values[-1] / self.gpu[-1])
            return

    def add_facts(self, result: ParseResult) -> None:
        for name, values in (
            ("app.gpu_time_ms", self.gpu),
            ("app.cpu_dispatch_ms", self.dispatch),
            ("app.cpu_wall_ms", self.wall),
        ):
            if values:
                result.add(name, round(median(values), 6), "host", "ms")
        if self.shares:
            result.add("app.dispatch_share", round(median(self.shares), 6), "host")
