"""The cyclic garbage collector held off while a dialog, the palette or the help pane opens.

Opening one makes tens of thousands of objects that live as long as it does (its widgets, their
styles, every line each one renders, with the caches of each line), and the collector, run every
few hundred of them, walked them again and again as they were made: up to a tenth of an opening
on a long case, and a full collection over the whole heap now and then. Held from the moment the
screen is pushed (or the pane mounted) until its next frame is out and every task waiting on that
frame has had a turn, the collector then runs once, over what is left, while the dialog is read.

Nothing is freed any later than it would be otherwise save cycles (reference counting frees
everything else as it goes), and it never stays held: it is let go after the frame, when the
screen or the app closes, or after :data:`LONGEST_S` whatever happens.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

#: The longest the collector is held, should no frame come
LONGEST_S = 1.0

#: How long after the frame it is let go (a turn of the event loop, and then some)
AFTER_FRAME_S = 0.001

_held = False
#: the timer that lets the collector go after :data:`LONGEST_S`, while it is held
_fail_safe: Any = None


def hold_collector(app: Any) -> None:
    """Hold the collector (no-op if it is already held, or turned off by someone else) until
    :func:`release_after_frame` lets it go, or :data:`LONGEST_S` has passed."""
    global _held, _fail_safe
    if _held or not gc.isenabled():
        return
    gc.disable()
    _held = True
    _fail_safe = app.set_timer(LONGEST_S, _at_the_latest, name="release-collector")


def _at_the_latest() -> None:
    global _fail_safe
    _fail_safe = None  # (it has fired: nothing to stop)
    release_collector()


def release_after_frame(node: Any) -> None:
    """Let the collector go after ``node``'s next frame, once every callback waiting on that
    frame has run and every task it woke has had a turn (a moment later on the event loop: a
    callback of the frame that let it go at once would have the next allocation of the
    callbacks after it collect)."""

    def after_frame() -> None:
        asyncio.get_running_loop().call_later(AFTER_FRAME_S, release_collector)

    if _held:
        node.call_after_refresh(after_frame)


def release_collector() -> None:
    """Let the collector run again if this module holds it, and stop the fail-safe timer: its
    task was made while the dialog was opening and keeps that dialog's context, so a timer left
    to run out kept the closed dialog and all its widgets alive for up to :data:`LONGEST_S`."""
    global _held, _fail_safe
    if _held:
        _held = False
        gc.enable()
    if _fail_safe is not None:
        timer, _fail_safe = _fail_safe, None
        timer.stop()
