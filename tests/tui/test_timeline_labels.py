"""The timeline's type column names every event type by its short label, never by its full
type name cut to the column (``experiment.recorded`` once read ``experiment…``)."""

from __future__ import annotations

import pytest
from rich.style import Style

from casefile.app.views.board import TimelineRow
from casefile.domain.catalogue import CATALOGUE
from casefile.domain.event_types import EVENT_TYPES
from casefile.tui.widgets.timeline import Timeline


def _kind_column(event_type: str) -> str:
    timeline = Timeline()
    timeline.rows = (
        TimelineRow(1, "2026-01-01T00:00:00.000000Z", "dave", event_type, "what", "h" * 64, ()),
    )
    (segment,) = timeline.row_segments(0, 120, Style())
    # … marks, the type column (11 cells), a space, the summary
    summary = segment.text.rindex(" what")
    return segment.text[summary - 11 : summary].rstrip()


@pytest.mark.parametrize("event_type", sorted(CATALOGUE))
def test_every_type_shows_its_label(event_type: str) -> None:
    assert _kind_column(event_type) == EVENT_TYPES[event_type].label


def test_an_experiment_is_labelled() -> None:
    assert _kind_column("experiment.recorded") == "experiment"


def test_an_unknown_type_shows_its_name() -> None:
    assert _kind_column("case.merged") == "case.merged"
