"""The facts nvidia-smi's family gives in percent, named once for every probe that gives them.

A statement must keep a fact's scale: utilisation is 0 to 100 as nvidia-smi prints it, so
"0.9" stated for 90 % would read as a GPU idle below 1 %, and a rule would count a busy GPU as
one the job does not use. Each probe that gives these lists them in ``percentages``
(:class:`casefile.probes.api.Probe`), and such a statement is refused.
"""

from __future__ import annotations

__all__ = ["UTILISATION"]

#: the driver's utilisation counters, and their peaks over a sampled window
UTILISATION = (
    "utilization.gpu",
    "utilization.memory",
    "utilization.gpu.max",
    "utilization.memory.max",
)
