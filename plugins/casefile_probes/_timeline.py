"""The one figure of a profile's timeline that no parser derives: the share of a step's wall
time the GPU spends running kernels (``gpu.busy_share``, a fraction from 0 to 1, on ``host``).

``nsys stats`` and ``torch.profiler`` tables sum kernel time but never print the span it fell
in, and an application's own profiler prints it in its own words ("execute=45 ms total=55 ms");
people read it off the timeline and write it in a thread ("GPU busy 270 of 850 ms per step",
"93.6 % busy"). So the probes that profile a job (``nsys-stats``, ``torch-profiler``, and
``app-log`` for a job's own profiler) accept it as a stated reading
(``--stated gpu.busy_share=0.32``), and the playbook's rule reads it. Named here once, for
every probe that gives it.
"""

from __future__ import annotations

__all__ = ["BUSY_SHARE"]

BUSY_SHARE = "gpu.busy_share"
