"""The arrow between a change's before and after sides, in every spelling people write.

"eager -> CUDA graphs", "0.6.8 → 0.7.0", "P2P on => off", "535 ⇒ 545", "b2450 ➜ b2600": one
arrow, many keyboards. Which way a version change runs (:mod:`casefile.domain.version_direction`),
whether a change takes away what its rule reads (``ExperimentRule.undoes``) and the normal form
a rule's pattern is tried on (``change_forms.change_readings``) all split a change at this arrow,
so they agree on where its sides are.
"""

from __future__ import annotations

import re

#: every spelling of the arrow, and the space around it
ARROW = re.compile(r"\s*(?:->|→|=>|⇒|➜|⟶|- >)\s*")
#: the spelling a change's normal form uses, the one rules' patterns are written for
PLAIN = " -> "


def sides(change: str) -> tuple[str, str] | None:
    """A change's before and after sides, split at its first arrow; None without one."""
    parts = ARROW.split(change, maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else None


def plain_arrows(text: str) -> str:
    """``text`` with every arrow spelled ``->``."""
    return ARROW.sub(PLAIN, text)
