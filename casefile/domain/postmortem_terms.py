"""The postmortem's vocabulary: its sections, and an action item's priorities and states.

Kept apart from the event types (which load pydantic) because the CLI's parser and the TUI's
forms offer these words as choices, and ``casefile --help`` must stay light.
"""

from __future__ import annotations

from typing import Literal, get_args

#: The template's sections, in the order the report shows them, each with its heading.
SECTIONS: dict[str, str] = {
    "impact": "Impact",
    "trigger": "Trigger",
    "detection": "Detection",
    "resolution": "Resolution",
    "verification": "How the resolution was verified",
    "went-well": "What went well",
    "went-badly": "What went badly",
    "lucky": "Where we got lucky",
}
Section = Literal[
    "impact",
    "trigger",
    "detection",
    "resolution",
    "verification",
    "went-well",
    "went-badly",
    "lucky",
]
Priority = Literal["P0", "P1", "P2", "P3"]
ItemStatus = Literal["open", "in-progress", "done", "won't-do"]
PRIORITIES: tuple[str, ...] = get_args(Priority)
ITEM_STATUSES: tuple[str, ...] = get_args(ItemStatus)
