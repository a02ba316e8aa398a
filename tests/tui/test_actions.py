"""Every recording action through its dialog: what the TUI appends equals, event for event,
what the matching CLI command appends; bad input is an inline error and appends nothing."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from casefile.actions.spec import argv, command_line
from casefile.actions.table import BY_NAME
from casefile.app.service import CaseService
from casefile.cli.main import main
from casefile.store.sql import SqlEventStore
from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.case import CaseScreen
from tests.cli.conftest import builtin_registry
from tests.tui.conftest import CASE, build_app
from tests.tui.helpers import case_ready, recorded, settle

#: (key that opens the dialog, field values typed into it)
ACTIONS = {
    "note": ("n", {"text": "First line\nsecond line: 1.2 GB/s"}),
    "action": ("a", {"text": "Pinned the clocks", "outcome": "no change"}),
    "question": (
        "A",
        {"text": "Why is single-stream slow?", "question_id": "single", "catch_all": "0.2"},
    ),
    "hypothesis": (
        "plus",
        {
            "text": "CPU launch overhead",
            "under": "compute-launch",
            "prior": "0.4",
            "hypothesis_id": "cpu-launch",
        },
    ),
    "refine": (
        "f",
        {"hypothesis_id": "host-side", "text": "Host-side limits", "because": "shorter"},
    ),
    "retire": ("minus", {"hypothesis_id": "power-thermal", "because": "55% of the power limit"}),
    "evidence": (
        "e",
        {
            "likelihoods": "compute-launch=0.8\npcie-bound=0.1",
            "otherwise": "0.3",
            "kind": "measured",
            "because": "nsys shows launch gaps",
        },
    ),
    "conclude": (
        "c",
        {
            "summary": "Launch-bound",
            "root_cause": "compute-launch",
            "recommendations": "CUDA graphs\nbigger batches",
        },
    ),
}


def events_after(url: str, seq: int) -> list[tuple[str, dict[str, object], str]]:
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        return [(e.type, dict(e.payload), e.actor) for e in service.reader.events(CASE, after=seq)]


def fill(dialog: FormDialog, values: dict[str, str]) -> None:  # type: ignore[type-arg]
    from textual.widgets import Input, TextArea

    dialog.mount_rest()  # the fields below the fold, if their first frame has not yet come
    for name, value in values.items():
        widget = dialog.query_one(f"#field-{name}")
        if isinstance(widget, TextArea):
            widget.text = value
        else:
            assert isinstance(widget, Input)
            widget.value = value
    dialog.check()


@pytest.mark.parametrize("kind", sorted(ACTIONS))
async def test_tui_appends_what_the_cli_appends(
    kind: str, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    twin = tmp_path / "twin.db"
    shutil.copy(db_url.removeprefix("sqlite:///"), twin)
    key, values = ACTIONS[kind]
    app = build_app(db_url, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        await pilot.press(key)
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, values)
        assert dialog.problem is None, dialog.problem
        request = dialog.request
        assert request is not None
        await pilot.press("ctrl+s")
        screen = app.screen_stack[-1]
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and bool(app.screen.commands)
        )
        command = screen.commands[-1]  # type: ignore[attr-defined]
    tui = events_after(db_url, 81)
    assert tui, "the TUI appended nothing"
    # the same action through the CLI, on a copy of the database as it was
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{twin}")
    # the command line the TUI echoed, run as it reads
    assert command.startswith("casefile ") and "--actor alice" in command
    assert command == command_line(BY_NAME[kind], request, CASE, "alice")
    assert main(shlex.split(command)[1:]) == 0
    cli = events_after(f"sqlite:///{twin}", 81)
    assert tui == cli


@pytest.mark.parametrize(
    ("key", "values", "problem"),
    [
        ("n", {"text": "   "}, "empty"),
        ("plus", {"text": "x", "under": "throughput", "prior": "0"}, "within (0, 1)"),
        ("plus", {"text": "x", "under": "throughput", "prior": "1.5"}, "within (0, 1)"),
        ("plus", {"text": "x", "under": "throughput", "prior": "nan"}, "within (0, 1)"),
        ("plus", {"text": "x", "under": "throughput", "prior": "lots"}, "not a number"),
        ("e", {"likelihoods": "compute-launch", "because": "b"}, "HYPOTHESIS=P"),
        ("e", {"likelihoods": "compute-launch=0", "because": "b"}, "within (0, 1]"),
        ("e", {"likelihoods": "compute-launch=1.5", "because": "b"}, "within (0, 1]"),
        ("e", {"likelihoods": "compute-launch=nan", "because": "b"}, "within (0, 1]"),
        ("e", {"likelihoods": "x=0.5", "because": "b", "reliability": "2"}, "within [0, 1]"),
        ("e", {"likelihoods": "a=0.5\na=0.6", "because": "b"}, "twice"),
        ("A", {"text": ""}, "empty"),
    ],
)
async def test_bad_input_is_an_inline_error_and_appends_nothing(
    key: str, values: dict[str, str], problem: str, db_url: str
) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        await pilot.press(key)
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, values)
        assert dialog.problem is not None and problem in dialog.problem
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, FormDialog)  # still open, nothing confirmed
        shown = str(dialog.query_one("#form-problem").render())
        assert problem in shown
    assert events_after(db_url, 81) == []


async def test_a_refused_action_is_a_notification_and_appends_nothing(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        await pilot.press("minus")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"hypothesis_id": "no-such-hypothesis", "because": "typo"})
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: isinstance(app.screen, CaseScreen) and bool(app._notifications))
        titles = [n.title for n in app._notifications]
        assert any("not recorded" in (t or "") for t in titles)
    assert events_after(db_url, 81) == []


async def test_pasted_probe_output_is_recorded_like_the_cli(db_url: str) -> None:
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "topo"
    sample = next(p for p in sorted(corpus.iterdir()) if p.is_file() and p.suffix != ".tsv")
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        await pilot.press("p")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"probe": "nvidia-smi-topo", "paste": sample.read_text(errors="replace")})
        assert dialog.problem is None, dialog.problem
        await pilot.press("ctrl+s")
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and bool(app.screen.commands)
        )
    types = [t for t, _p, _a in events_after(db_url, 81)]
    assert types[:2] == ["probe.ran", "observation.recorded"]


@pytest.mark.parametrize("fmt", ["md", "html"])
async def test_the_report_from_the_tui_is_the_cli_report(
    fmt: str, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / f"tui.{fmt}"
    # a report is not a write: read-only may export; an actor is named, and the line the TUI
    # echoes must still run (report takes no --actor)
    app = build_app(db_url, read_only=True, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("r")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"path": str(mine)})
        assert dialog.problem is None, dialog.problem
        await pilot.press("ctrl+s")
        screen = app.screen_stack[-1]
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and bool(app.screen.commands)
        )
        echoed = shlex.split(screen.commands[-1])  # type: ignore[attr-defined]
    theirs = tmp_path / f"cli.{fmt}"
    monkeypatch.setenv("CASEFILE_DB", db_url)
    assert echoed[0] == "casefile" and echoed[echoed.index("-o") + 1] == str(mine)
    echoed[echoed.index("-o") + 1] = str(theirs)
    assert main(echoed[1:]) == 0
    if fmt == "md":  # each links its own chart file, written beside it (its digest covers that)
        assert (tmp_path / "tui.svg").read_bytes() == (tmp_path / "cli.svg").read_bytes()
        unsealed = re.compile(r"(casefile-report-digest: sha256:)[0-9a-f]{64}")
        mine_text = unsealed.sub(r"\1", mine.read_text()).replace("tui.svg", "cli.svg")
        assert mine_text == unsealed.sub(r"\1", theirs.read_text())
    else:
        assert mine.read_bytes() == theirs.read_bytes()


async def test_the_evidence_dialog_shows_the_posterior_before_recording(db_url: str) -> None:
    from textual.widgets import Static

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(
            dialog, {"likelihoods": "collective-latency=0.95\ncompute-launch=0.05", "because": "b"}
        )
        shown = dialog.query_one("#form-preview", Static)
        await settle(pilot, lambda: "If recorded now" in str(shown.render()))
        text = str(shown.render())
        assert "compute-launch" in text and "↓" in text
        assert "the leader would change: compute-launch → collective-latency" in text
        fill(dialog, {"likelihoods": "no-such=0.5"})
        await settle(pilot, lambda: "no-such" in str(shown.render()))
    assert events_after(db_url, 81) == []  # a preview records nothing


async def test_reinstate_from_the_tui_is_the_cli_reinstate(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from casefile.app.who import Who

    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        service.writer.retire_hypothesis(CASE, "host-side", "CPU is idle", Who("alice"))
    twin = tmp_path / "twin.db"
    shutil.copy(db_url.removeprefix("sqlite:///"), twin)
    app = build_app(db_url, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("i")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"hypothesis_id": "host-side", "because": "the tokenizer is single-threaded"})
        request = dialog.request
        assert request is not None
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{twin}")
    assert main([*argv(BY_NAME["reinstate"], request, CASE), "--actor", "alice"]) == 0
    assert events_after(db_url, 82) == events_after(f"sqlite:///{twin}", 82)
    assert [k for k, _p, _a in events_after(db_url, 82)] == ["hypothesis.reinstated"]


async def test_opening_a_playbook_from_the_tui_is_the_cli_playbook_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from casefile.app.who import Who

    mine, twin = tmp_path / "mine.db", tmp_path / "twin.db"
    for path in (mine, twin):
        with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()) as service:
            service.writer.new_case("Slow decode", "11 tok/s", case_id="pb", who=Who("alice"))
    app = build_app(f"sqlite:///{mine}", case="pb", actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("o")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"playbook": "gpu-throughput"})
        request = dialog.request
        assert request is not None
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{twin}")
    assert main([*argv(BY_NAME["playbook"], request, "pb"), "--actor", "alice"]) == 0

    def after(path: Path) -> list[tuple[str, dict[str, object], str]]:
        with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()) as service:
            return [
                (e.type, dict(e.payload), e.actor) for e in service.reader.events("pb", after=1)
            ]

    assert after(mine) == after(twin) and len(after(mine)) > 3


async def test_export_from_the_tui_writes_what_the_cli_writes(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, theirs = tmp_path / "tui-export", tmp_path / "cli-export"
    app = build_app(db_url, read_only=True, actor="alice")  # an export writes no event
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("x")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"directory": str(mine)})
        await pilot.press("ctrl+s")
        screen = app.screen_stack[-1]
        await settle(pilot, recorded(app))
        echoed = shlex.split(screen.commands[-1])  # type: ignore[attr-defined]
    monkeypatch.setenv("CASEFILE_DB", db_url)
    assert echoed == ["casefile", "export", CASE, str(mine)]  # runnable: no --actor
    assert main([*echoed[1:-1], str(theirs)]) == 0
    files = sorted(p.relative_to(mine) for p in mine.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file())
    assert all((mine / f).read_bytes() == (theirs / f).read_bytes() for f in files)


#: what evidence rests on, typed into the dialog: the reference case's last query run (62), its
#: observation (63), and the evidence about it that is re-assessed (e14)
RESTS_ON = {
    "likelihoods": "compute-launch=0.7\ncollective-latency=0.3",
    "because": "re-read the query output",
    "probe_run_seq": "62",
    "observation_seq": "#63",
    "supersedes": "e14",
}


async def _evidence_dialog(app: object, pilot: object, values: dict[str, str]) -> FormDialog:  # type: ignore[type-arg]
    await settle(pilot, case_ready(app))  # type: ignore[arg-type]
    await pilot.press("e")  # type: ignore[attr-defined]
    await settle(pilot, lambda: isinstance(app.screen, FormDialog))  # type: ignore[arg-type, attr-defined]
    dialog = app.screen  # type: ignore[attr-defined]
    assert isinstance(dialog, FormDialog)
    fill(dialog, values)
    return dialog


async def test_evidence_resting_on_a_run_an_observation_and_superseding_is_the_cli_one(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Static

    twin = tmp_path / "twin.db"
    shutil.copy(db_url.removeprefix("sqlite:///"), twin)
    app = build_app(db_url, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await _evidence_dialog(app, pilot, RESTS_ON)
        assert dialog.problem is None, dialog.problem
        shown = dialog.query_one("#form-preview", Static)
        await settle(pilot, lambda: "If recorded now" in str(shown.render()))
        request = dialog.request
        assert request is not None
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    words = argv(BY_NAME["evidence"], request, CASE)
    assert words[words.index("--probe-run") + 1] == "62"
    assert words[words.index("--observation") + 1] == "63"
    assert words[words.index("--supersedes") + 1] == "e14"
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{twin}")
    assert main([*words, "--actor", "alice"]) == 0
    tui = events_after(db_url, 81)
    assert tui == events_after(f"sqlite:///{twin}", 81)
    payload = tui[0][1]
    assert (payload["probe_run_seq"], payload["observation_seq"], payload["supersedes"]) == (
        62,
        63,
        "e14",
    )


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"probe_run_seq": "63"}, "seq 63 is not a probe run of this case"),
        ({"observation_seq": "62"}, "seq 62 is not an observation of this case"),
        ({"supersedes": "e99"}, "no evidence 'e99' to supersede"),
    ],
)
async def test_what_evidence_rests_on_is_checked_against_the_case_as_you_type(
    values: dict[str, str], problem: str, db_url: str
) -> None:
    from textual.widgets import Button, Static

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await _evidence_dialog(app, pilot, {**RESTS_ON, **values})
        assert dialog.problem is None  # it reads; the case refuses it
        shown = dialog.query_one("#form-preview", Static)
        await settle(pilot, lambda: problem in str(shown.render()))
        assert dialog.query_one("#form-confirm", Button).disabled
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is dialog  # still open: nothing confirmed
        fill(dialog, RESTS_ON)  # corrected, it records
        await settle(pilot, lambda: "If recorded now" in str(shown.render()))
        assert not dialog.query_one("#form-confirm", Button).disabled
    assert events_after(db_url, 81) == []


async def test_evidence_on_another_question_cannot_supersede(db_url: str) -> None:
    from textual.widgets import Static

    from casefile.app.who import Who

    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        qid = service.writer.add_question(CASE, "Why is start-up slow?", "startup", 0.1, Who("bob"))
        service.writer.add_hypothesis(
            CASE, "Cold page cache", qid, 0.5, "cold-cache", None, Who("bob")
        )
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await _evidence_dialog(app, pilot, {**RESTS_ON, "likelihoods": "cold-cache=0.9"})
        shown = dialog.query_one("#form-preview", Static)
        await settle(pilot, lambda: "bears on another question" in str(shown.render()))


async def test_superseded_evidence_cannot_be_superseded_again(db_url: str) -> None:
    from textual.widgets import Static

    from casefile.app.who import Who

    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        service.writer.assess(
            CASE, {"compute-launch": 0.6}, "first re-read", Who("bob"), supersedes="e14"
        )
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await _evidence_dialog(app, pilot, RESTS_ON)
        shown = dialog.query_one("#form-preview", Static)
        await settle(pilot, lambda: "already superseded by" in str(shown.render()))
    assert events_after(db_url, 82) == []


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"probe_run_seq": "x1"}, "not an event seq"),
        ({"observation_seq": "0"}, "event seqs start at 1"),
        ({"probe_run_seq": "²"}, "not an event seq"),
        ({"supersedes": "e1 e2"}, "one evidence id"),
    ],
)
async def test_a_seq_that_does_not_read_is_an_inline_error(
    values: dict[str, str], problem: str, db_url: str
) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await _evidence_dialog(app, pilot, {**RESTS_ON, **values})
        assert dialog.problem is not None and problem in dialog.problem
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is dialog
    assert events_after(db_url, 81) == []


async def test_the_open_case_is_kept_from_the_collector_until_its_screen_closes(
    db_url: str,
) -> None:
    """(Not an action, but the case screen's: the fold is frozen out of the cyclic collector
    while the case is open, so a full collection does not stall a key; closing hands it back.)"""
    import gc

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        assert gc.get_freeze_count() > 0
        await pilot.press("b")  # back to the case list: the case screen closes
        await settle(pilot, lambda: not isinstance(app.screen, CaseScreen))
        assert gc.get_freeze_count() == 0
