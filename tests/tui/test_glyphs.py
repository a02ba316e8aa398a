"""The text the TUI draws numbers with, checked as text."""

from __future__ import annotations

from casefile.text_safety import block, line
from casefile.tui.glyphs import bar, long_time, percent, short_time, sparkline, trend
from casefile.tui.widgets.rows import settle_top


def test_the_sparkline_has_a_fixed_scale() -> None:
    # 5 % → 6 % is a small step, not a full swing (Textual's own Sparkline rescales)
    assert sparkline([0.05, 0.06]) == "▁▁"  # small, not a full swing, and not nothing
    assert sparkline([0.05, 0.2]) == "▁▂"
    assert sparkline([0.0, 0.5, 1.0]) == " ▄█"
    assert sparkline([0.46, 0.08]) == "▄▁"
    assert sparkline([1.0], width=4) == "···█"  # padding is not a zero


def test_bars_percent_and_trend() -> None:
    assert bar(0.0, 10) == "··········"
    assert bar(1.0, 4) == "████"
    assert bar(0.5, 4) == "██··"
    assert percent(0.474) == " 47.4%"
    assert (trend(0.1), trend(-0.1), trend(0.001)) == ("↑", "↓", "→")


def test_times_say_their_zone() -> None:
    assert short_time("2026-03-02T09:51:00.000000Z") == "2026-03-02 09:51 UTC"
    assert long_time("2026-03-02T09:51:00.000000Z") == "2026-03-02 09:51:00 UTC"


def test_control_characters_are_made_visible() -> None:
    hostile = "title\x1b]0;owned\x07\x1b[2J\x9b\nnext"
    assert line(hostile) == "title\\x1b]0;owned\\x07\\x1b[2J\\x9b\\x0anext"
    assert block(hostile) == "title\\x1b]0;owned\\x07\\x1b[2J\\x9b\nnext"
    assert line("\udcff") == "\\udcff"


def test_the_viewport_follows_the_cursor_and_moves_as_little_as_possible() -> None:
    assert settle_top(0, 67, 40, 68) == 28  # live: the newest row at the bottom
    assert settle_top(28, 30, 40, 68) == 28  # on screen already: no move
    assert settle_top(28, 10, 40, 68) == 10
    assert settle_top(50, 67, 40, 68) == 28  # never past the end
    assert settle_top(5, 0, 0, 3) == 0  # not laid out yet


def test_the_host_picker_offers_what_the_ssh_config_names(tmp_path: object) -> None:
    from pathlib import Path

    from casefile.probes.runners.ssh_config import host_aliases

    assert isinstance(tmp_path, Path)
    (tmp_path / "config").write_text(
        "Host gpu-a gpu-b\n  HostName 127.0.0.2\nInclude more\nHost *\n  User x\n"
    )
    (tmp_path / "more").write_text("Host box9 !bad gpu-*\n  HostName 127.0.0.3\n")
    assert host_aliases(ssh_dir=tmp_path) == ["gpu-a", "gpu-b", "box9"]
    assert host_aliases(ssh_dir=tmp_path / "missing") == []
