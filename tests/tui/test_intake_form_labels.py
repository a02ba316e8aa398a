"""The TUI's intake form shows every question whole: its answers in full (once cut off at the
dialog's edge, "[one-pair / al"), and on a one-GPU job it does not ask the questions about
several GPUs, saying once which they are and the answer that makes them moot."""

from __future__ import annotations

from pathlib import Path

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.store.sql import SqlEventStore
from tests.cli.conftest import builtin_registry
from tests.tui.conftest import build_app
from tests.tui.helpers import open_form

CASE = "one"


def make_case(path: Path, gpus: str) -> None:
    with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()) as service:
        who = Who("alice", "2026-01-05T09:00:00.000000Z")
        service.writer.new_case(
            "Slow training", "2 it/s", {"gpus": gpus}, CASE, "gpu-throughput", who
        )


def screen_text(app: object) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())  # type: ignore[attr-defined]


async def open_intake(path: Path, size: tuple[int, int]) -> tuple[str, list[str]]:
    """The intake form's text on screen, and the questions it asks (its fields)."""
    app = build_app(f"sqlite:///{path}", case=CASE, actor="alice")
    async with app.run_test(size=size) as pilot:
        dialog = await open_form(pilot, "I")
        app.export_screenshot()  # a frame now
        return screen_text(app), [spec.name for spec in dialog.fields]


def unwrapped(text: str) -> str:
    """The dialog's text (what lies between its two side borders on each row) with its line
    breaks taken out, so a label wrapped over two rows reads as one line."""
    rows = [row.split("█")[1] for row in text.splitlines() if row.count("█") >= 2]
    return " ".join(" ".join(rows).split())


async def test_every_question_is_shown_with_all_its_answers(tmp_path: Path) -> None:
    path = tmp_path / "several.db"
    make_case(path, "2x RTX A6000")
    text, asked = await open_intake(path, (100, 60))
    assert "scope" in asked
    flat = unwrapped(text)
    assert "Is it one GPU pair (or one GPU) that is slow, or all of them? [one-pair / all]" in flat
    assert "[one / several]" in flat


async def test_a_one_gpu_job_is_not_asked_about_several_gpus(tmp_path: Path) -> None:
    path = tmp_path / "one.db"
    make_case(path, "1x A100")
    text, asked = await open_intake(path, (120, 60))
    assert not {"scaling", "scope", "nvlink"} & set(asked), asked
    assert {"degrades-over-time", "after-upgrade", "platform"} <= set(asked)
    flat = unwrapped(text)
    assert "Not asked, as they do not apply: scaling, scope, nvlink — gpu-count = one (seq " in flat
