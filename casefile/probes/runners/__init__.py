"""Runners: where a probe runs. All of them return :class:`RunResult`."""

from casefile.probes.runners.result import RunResult

__all__ = ["RunResult"]
