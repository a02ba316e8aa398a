"""The probe dialog's picker: every installed probe, with what it reads, its cost and the
facts it gives, chosen with the keyboard (the dialog once said "`casefile plugins` lists
them")."""

from __future__ import annotations

from textual.widgets import Input, OptionList

from casefile.app.views.probe_catalog import ProbeEntry, facts_line
from casefile.tui.dialogs.form import FormDialog
from tests.cli.conftest import builtin_registry
from tests.tui.conftest import build_app
from tests.tui.helpers import open_form, poll_until


async def test_the_picker_lists_the_installed_probes_and_enter_chooses_one(db_url: str) -> None:
    installed = builtin_registry().all_probes()
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await open_form(pilot, "p")
        await poll_until(pilot, lambda: bool(dialog.query("#probe-picker")))
        picker = dialog.query_one("#probe-picker", OptionList)
        await poll_until(pilot, lambda: app.focused is picker, what="the picker has no focus")
        assert picker.option_count == len(installed)
        texts = {
            str(picker.get_option_at_index(i).id): str(picker.get_option_at_index(i).prompt)
            for i in range(picker.option_count)
        }
        assert sorted(texts) == sorted(installed)
        lspci = texts["lspci"]
        assert installed["lspci"].summary[:30] in lspci
        assert f"[{installed['lspci'].cost}]" in lspci
        assert "facts: pci.device" in lspci
        assert "this machine only" in texts["nvml-sampler"]
        assert "casefile plugins" not in str(dialog.query(".form-label").first().render())
        await pilot.press("down", "down", "enter")
        chosen = str(picker.get_option_at_index(2).id)
        field = dialog.query_one("#field-probe", Input)
        await poll_until(pilot, lambda: field.value == chosen, what="Enter did not choose it")
        assert app.focused is dialog.query_one("#field-load", Input)
        assert isinstance(app.screen, FormDialog) and app.screen.request is not None
        assert app.screen.request.request.probe == chosen  # type: ignore[attr-defined]


async def test_a_probe_from_the_next_steps_is_the_one_highlighted(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_form(pilot, "p")
        screen = app.screen
        screen.dismiss(None)
        await poll_until(pilot, lambda: not isinstance(app.screen, FormDialog))
        app.screen.action_probe("nvidia-smi-topo", "idle")  # type: ignore[attr-defined]
        await poll_until(pilot, lambda: bool(app.screen.query("#probe-picker")))
        picker = app.screen.query_one("#probe-picker", OptionList)
        assert picker.highlighted is not None
        assert picker.get_option_at_index(picker.highlighted).id == "nvidia-smi-topo"


def test_the_facts_line_fits_and_counts_the_rest() -> None:
    many = ProbeEntry(
        "p", "s", "cheap", tuple(f"fact.{i:02d}" for i in range(40)), ("local",), False
    )
    text = facts_line(many, 60)
    assert len(text) <= 60 and text.endswith(f"+{40 - text.count('fact.')}")
    none = ProbeEntry("c", "s", "cheap", (), ("local",), False)
    assert "none declared" in facts_line(none)


def test_the_facts_line_names_what_only_a_person_states_first() -> None:
    """A profile's busy share is stated, never given by a run: a picker that listed only what a
    run gives left the user to guess its name."""
    from casefile_probes import nsys_stats

    from casefile.app.views.probe_catalog import probe_catalog
    from casefile.plugins import Registry

    registry = Registry(probes={"nsys-stats": nsys_stats.PROBE})
    (entry,) = probe_catalog(registry)
    text = facts_line(entry, 80)
    assert text.startswith("stated only: gpu.busy_share; facts: kernels.count")
    assert len(text) <= 80 and entry.statable[-1] == "gpu.busy_share"
    assert "gpu.busy_share" in entry.fractions


async def test_the_probes_are_loaded_off_the_ui_thread_once_a_case_is_open(db_url: str) -> None:
    """The probe dialog's first open does not import every probe plugin (0.2 s on the key)."""
    import threading

    app = build_app(db_url)
    loaded_on: list[str] = []
    load = app._probe_catalog
    assert load is not None

    def counted() -> list[ProbeEntry]:
        loaded_on.append(threading.current_thread().name)
        return load()

    app._probe_catalog = counted
    async with app.run_test(size=(160, 45)) as pilot:
        await poll_until(pilot, lambda: bool(loaded_on), what="the probes were never loaded")
        assert loaded_on[0] != threading.main_thread().name
        await open_form(pilot, "p")
        app.screen.dismiss(None)
        await open_form(pilot, "p")
    assert len(loaded_on) == 1


def test_a_probe_with_stated_only_facts_still_fits_its_line() -> None:
    """app-log names two stated-only facts: the first fact a run gives no longer fitted after
    them and the picker wrapped the row (its snapshot showed the facts on a third line)."""
    from casefile.app.views.probe_catalog import probe_catalog
    from casefile.plugins import Registry

    for entry in probe_catalog(Registry.discover()):
        for width in (64, 100):  # the picker's row, and a wide one
            text = facts_line(entry, width)
            assert len(text) <= width, (entry.name, width, text)
            if entry.stated_facts:
                assert text.startswith("stated only: "), text
