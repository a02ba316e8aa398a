"""The facts nvidia-smi's family gives in percent, named once for every probe that gives them.

A statement must keep a fact's scale: utilisation is 0 to 100 as nvidia-smi prints it, so
"0.9" stated for 90 % would read as a GPU idle below 1 %, and a rule would count a busy GPU as
one the job does not use. Each probe that gives these lists them in ``percentages``
(:class:`casefile.probes.api.Probe`), and such a statement is refused.
"""

from __future__ import annotations

__all__ = ["UTILISATION"]

_COUNTERS = ("utilization.gpu", "utilization.memory")
#: the driver's utilisation counters, their peaks over a sampled window (NVML), and what a
#: timed series gives of them (``casefile_probes.series``; its slope, per second, is no
#: percentage); a probe that gives only some of them simply never meets the others
UTILISATION = tuple(
    f"{counter}{part}"
    for counter in _COUNTERS
    for part in ("", ".max", ".series.min", ".series.max", ".series.first", ".series.last")
)
