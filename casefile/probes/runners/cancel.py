"""Asking running probes to stop: a flag that every runner's wait loop looks at.

Ctrl-C must stop a fan-out within a second, keep what finished and record the rest as
cancelled. A runner built with a :class:`CancelToken` checks it at least every
:data:`POLL_S` seconds wherever it waits (the process, the SSH exec reply, the output), and
returns a result with ``error_kind="cancelled"`` carrying the output it had so far.

:meth:`CancelToken.cancel` only sets an attribute: it takes no lock, so a signal handler may
call it while the interrupted thread holds any lock at all.
"""

from __future__ import annotations

#: How often a waiting runner looks at its token, seconds.
POLL_S = 0.05

CANCELLED = "cancelled"


class CancelToken:
    """Set once, read by many threads; never reset."""

    __slots__ = ("_cancelled", "reason")

    def __init__(self) -> None:
        self._cancelled = False
        self.reason = "interrupted"

    def cancel(self, reason: str = "interrupted") -> None:
        """Ask every runner holding this token to stop (safe inside a signal handler)."""
        self.reason = reason
        self._cancelled = True

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def message(self, elapsed_s: float) -> str:
        """The error a cancelled run records."""
        return f"cancelled ({self.reason}) after {elapsed_s:.1f}s, before the command finished"


def poll_interval(token: CancelToken | None, remaining: float | None) -> float | None:
    """How long one wait may block: until the deadline, but never past the next look at the
    token."""
    if token is None:
        return remaining
    return POLL_S if remaining is None else min(remaining, POLL_S)
