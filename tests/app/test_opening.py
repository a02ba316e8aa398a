"""A CASE reference opens a directory only when it looks like a path (issue 9, defect 8).

After ``casefile export inc42 inc42`` a bare ``inc42`` must name the database case whatever the
current directory is; ``./inc42`` (or any reference with a ``/``, ``.``, ``..``, ``~``) names
the directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.app.library import export
from casefile.app.opening import looks_like_directory, open_case, open_service
from casefile.errors import CaseNotFound
from casefile.plugins import Registry


@pytest.fixture
def plugins() -> Registry:
    return Registry.discover(on_broken=lambda name, message: None)


@pytest.fixture
def exported(tmp_path: Path, plugins: Registry) -> tuple[str, Path]:
    """A database holding case ``inc42``, exported to ``<tmp>/work/inc42``."""
    db = f"sqlite:///{tmp_path / 'casefile.db'}"
    service = open_service(db, plugins)
    try:
        service.writer.new_case("Slow decode", case_id="inc42")
        export(service.store, "inc42", tmp_path / "work" / "inc42")
    finally:
        service.close()
    return db, tmp_path / "work"


def test_a_bare_id_names_the_database_case_whatever_the_directory(
    exported: tuple[str, Path], plugins: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, work = exported
    monkeypatch.chdir(work)
    assert not looks_like_directory("inc42")
    with open_case("inc42", db, plugins) as opened:
        assert opened.where == "database"
        opened.service.writer.note(opened.case_id, "to the database")
    assert "to the database" not in (work / "inc42" / "events.jsonl").read_text()


@pytest.mark.parametrize("reference", ["./inc42", "inc42/", "../work/inc42"])
def test_a_path_names_the_directory(
    exported: tuple[str, Path],
    plugins: Registry,
    monkeypatch: pytest.MonkeyPatch,
    reference: str,
) -> None:
    db, work = exported
    monkeypatch.chdir(work)
    with open_case(reference, db, plugins) as opened:
        assert opened.where != "database" and opened.case_id == "inc42"


def test_dot_and_home_name_the_directory(
    exported: tuple[str, Path], plugins: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, work = exported
    monkeypatch.chdir(work / "inc42")
    with open_case(".", db, plugins) as opened:
        assert opened.where != "database"
    monkeypatch.setenv("HOME", str(work))
    with open_case("~/inc42", db, plugins) as opened:
        assert opened.where != "database" and opened.case_id == "inc42"


def test_no_such_case_but_a_directory_says_how_to_open_it(
    exported: tuple[str, Path], plugins: Registry, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _, work = exported
    monkeypatch.chdir(work)
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    with pytest.raises(CaseNotFound, match=r"\./inc42") as missing:
        open_case("inc42", empty, plugins)
    assert "\n" not in str(missing.value)
