"""What Textual keeps of widgets already gone, dropped: the dialogs, the palette and the help
pane are made afresh at each opening, and what their predecessors left grew the heap that every
full garbage collection walks (a collection pausing a dialog's opening grew from a few
milliseconds to tens of them over a few dozen dialogs).

- **Watchers.** A widget that watches another object's reactive (``self.watch(self.app,
  "theme", …)``, as every ``TextArea`` does; ``data_bind``, as each key of Textual's footer does
  on the footer) stays in that object's list of watchers, with everything it holds, until the
  value watched next changes: Textual drops the watchers of closed widgets only then, and the
  app's theme and the footer's compactness hardly ever change. :func:`prune_watchers` drops them
  as Textual would at that change.
- **Rendered lines.** Textual's ``StylesCache.get_inner_outer`` is an ``lru_cache`` on a method:
  it keeps the last 1,024 widgets' style caches, each with every line that widget rendered,
  long after the widget is gone. :func:`drop_rendered_lines` empties it (a widget still shown
  works its two background styles out again at its next render).
"""

from __future__ import annotations

from typing import Any

from textual._styles_cache import StylesCache


def prune_watchers(watched: Any) -> int:
    """Drop from ``watched``'s watchers those set by widgets since closed (those Textual skips
    and drops at the next change of the value watched). Returns how many were dropped."""
    watchers: dict[str, list[tuple[Any, Any]]] = getattr(watched, "__watchers", {})
    dropped = 0
    for listed in watchers.values():
        kept = [(node, callback) for node, callback in listed if not node._closing]
        if len(kept) != len(listed):
            dropped += len(listed) - len(kept)
            listed[:] = kept
    return dropped


def drop_rendered_lines() -> None:
    """Let go of the style caches (and the lines in them) of widgets no longer shown."""
    clear = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if clear is not None:
        clear()
