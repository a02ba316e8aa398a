"""The timeline's type column names every event type by its short label, never by its full
type name cut to the column (``experiment.recorded`` once read ``experiment…``), and the
summary beside it does not say the type again."""

from __future__ import annotations

import pytest
from rich.style import Style

from casefile.app.views.board import TimelineRow, tail_rows
from casefile.app.views.summaries import summarise
from casefile.domain.catalogue import CATALOGUE
from casefile.domain.event_types import EVENT_TYPES, label
from casefile.store.sql import SqlEventStore
from casefile.tui.widgets.timeline import Timeline
from tests.tui.conftest import CASE


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


def test_no_row_of_the_reference_case_says_its_type_twice(db_url: str) -> None:
    """The type column says "evidence"; the summary beside it reads "e8: rule …", not
    "evidence e8: rule …" (and "refined" reads "h: text", not "hypothesis h refined: text"),
    while the log keeps the whole line, which has no type column."""
    events = SqlEventStore(db_url).load_strict(CASE)
    rows = tail_rows(events)
    assert {row.type for row in rows} >= {
        "case.opened",
        "note.added",
        "evidence.assessed",
        "reading.set_aside",
        "probe.ran",
        "observation.recorded",
        "hypothesis.proposed",
        "case.concluded",
    }
    for event, row in zip(events, rows, strict=True):
        shown = row.summary.lower()
        name = label(row.type).lower()
        assert not shown.startswith(name), (row.seq, row.summary)
        assert summarise(event).endswith(row.summary), (row.seq, row.summary)
    by_seq = {row.seq: row.summary for row in rows}
    assert by_seq[50].startswith("e8: rule link-width")


@pytest.mark.parametrize(
    ("event_type", "payload", "shown"),
    [
        ("hypothesis.refined", {"hypothesis_id": "h2", "text": "NVLink down"}, "h2: NVLink down"),
        ("hypothesis.retired", {"hypothesis_id": "h2", "reason": "no"}, "h2: no"),
        ("hypothesis.reinstated", {"hypothesis_id": "h2"}, "h2"),
        ("case.opened", {"title": "slow", "symptom": "0.5x"}, "slow — 0.5x"),
        (
            "priors.rebalanced",
            {"question_id": "q", "priors": {"a": 0.5}, "forced": True},
            "priors of q (forced, after evidence) [a=0.5]",
        ),
        ("postmortem.section", {"section": "impact", "text": "2 days"}, "impact: 2 days"),
        ("postmortem.about", {"title": "PCIe"}, "title PCIe"),
    ],
)
def test_types_whose_summary_says_the_label_inside(
    event_type: str, payload: dict[str, object], shown: str
) -> None:
    kind = EVENT_TYPES[event_type]
    assert kind.timeline_text(payload) == shown
    assert kind.label.split()[-1] not in shown or event_type == "postmortem.section"


def test_a_filter_finds_a_type_by_its_label() -> None:
    timeline = Timeline()
    timeline.rows = (
        TimelineRow(1, "2026-01-01T00:00:00.000000Z", "dave", "reading.set_aside", "r", "h", ()),
        TimelineRow(2, "2026-01-01T00:00:00.000000Z", "dave", "note.added", "n", "h", ()),
    )
    timeline.filter_text = "set aside"
    timeline._apply_filter()
    assert timeline.shown == [0]
