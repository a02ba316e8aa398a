"""The arrow between a change's before and after sides, in every spelling people write.

"eager -> CUDA graphs", "0.6.8 → 0.7.0", "P2P on => off", "535 ⇒ 545", "b2450 ➜ b2600": one
arrow, many keyboards. "285 instead of 385" and "kvstore = 'local' instead of 'device'" are
arrows too, written the other way round: a value instead of another, each a number (a version,
or with a setting's unit: watts, a share) or quoted, reads "OLD -> NEW"; words on either side
("NICs instead of SHM") are left as they are, since which of them a rule names decides nothing
about the order, and so are results ("12 GB instead of 20 GB") and lists. Which way a version
change runs (:mod:`casefile.domain.version_direction`), whether a change takes away what its rule
reads (``ExperimentRule.undoes``) and the normal form a rule's pattern is tried on
(``change_forms.change_readings``) all split a change at this arrow, so they agree on where its
sides are.
"""

from __future__ import annotations

import re

#: every spelling of the arrow, and the space around it
ARROW = re.compile(r"\s*(?:->|→|=>|⇒|➜|⟶|- >)\s*")
#: the spelling a change's normal form uses, the one rules' patterns are written for
PLAIN = " -> "


#: a value: a number (a version's dots allowed) with a setting's unit at most (watts, a
#: share, none), or a quoted word; not a result's unit ("12 GB instead of 20 GB", "1400 MHz
#: instead of 1980 MHz" say what was measured, not what was set)
_VALUE = (
    r"(?:\d{1,12}(?:\.\d{1,12}){0,3}\s?(?:[KM]?W|%)?"
    r"|'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|‘[^’\n]{1,40}’|“[^”\n]{1,40}”)"
)
#: "NEW instead of OLD", both values (see the module's docstring); not one item of a list
#: ("devices 0,1 instead of 0,1,2,3"), and a sentence's full stop may follow
_INSTEAD = re.compile(
    rf"(?<![\w.,])(?P<new>{_VALUE})\s{{1,3}}instead\s{{1,3}}of\s{{1,3}}(?P<old>{_VALUE})"
    r"(?![\w,]|\.\w)"
)


def sides(change: str) -> tuple[str, str] | None:
    """A change's before and after sides, split at its first arrow; None without one."""
    parts = ARROW.split(instead_of(change), maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else None


def plain_arrows(text: str) -> str:
    """``text`` with every arrow spelled ``->``, "NEW instead of OLD" among them."""
    return ARROW.sub(PLAIN, instead_of(text))


def instead_of(text: str) -> str:
    """``text`` with its first "NEW instead of OLD" of two values written "OLD -> NEW", where
    it holds no arrow already."""
    if "instead" not in text or ARROW.search(text):
        return text
    found = _INSTEAD.search(text)
    if found is None:
        return text
    swapped = f"{found.group('old')}{PLAIN}{found.group('new')}"
    return text[: found.start()] + swapped + text[found.end() :]
