"""What ``casefile mcp`` takes from where the CLI takes it (the database from ``--db``,
``CASEFILE_DB`` or the config file), status's order of warnings, SSH probes that cannot
connect, and resources that do not exist."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from mcp.shared.exceptions import MCPError

from casefile.app.opening import open_service
from casefile.mcp.reads import warning_lines
from tests.mcp.client import ToolError, serve


def make_case(db: str) -> None:
    with open_service(db) as service:
        service.writer.new_case("Slow decode", case_id="c1")


async def test_the_database_from_casefile_db(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'from-env.db'}"
    make_case(db)
    async with serve(None, env={"CASEFILE_DB": db}) as s:
        assert [row["id"] for row in (await s.call("list_cases"))["cases"]] == ["c1"]


async def test_the_database_from_the_config_file(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'from-config.db'}"
    make_case(db)
    home = tmp_path / "home"
    (home / "casefile").mkdir(parents=True)
    (home / "casefile" / "config.toml").write_text(f'db = "{db}"\n')
    async with serve(None, home=str(home)) as s:
        assert [row["id"] for row in (await s.call("list_cases"))["cases"]] == ["c1"]


def test_never_measured_comes_first_in_plain_words() -> None:
    groups = [
        SimpleNamespace(code="set-aside", message="reading 4 set aside", count=2),
        SimpleNamespace(
            code="never-measured", message="'PCIe-bound' leads on calculations", count=1
        ),
    ]
    lines = warning_lines(SimpleNamespace(warning_groups=groups))  # type: ignore[arg-type]
    assert lines[0].startswith("NEVER MEASURED: 'PCIe-bound' leads on calculations. Do not")
    assert lines[1] == "set-aside: reading 4 set aside (2×)"


async def test_an_ssh_probe_that_cannot_connect_is_one_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'casefile.db'}"
    make_case(db)
    async with serve(db, "--allow-run") as s:
        with pytest.raises(ToolError) as refused:
            await s.call(
                "probe_run", case="c1", probe="command", command=["true"], hosts=["127.0.0.1:1"]
            )
    message = str(refused.value)
    assert "127.0.0.1" in message and "\n" not in message
    assert "Traceback" not in s.stderr


async def test_a_resource_that_does_not_exist(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'casefile.db'}"
    make_case(db)
    async with serve(db) as s:
        for uri in ("casefile://c1/nothing", "casefile://nope/log"):
            with pytest.raises(MCPError) as refused:
                await s.session.read_resource(uri)
            assert "\n" not in str(refused.value)
        assert (await s.session.read_resource("casefile://c1/log")).contents
    assert "Traceback" not in s.stderr


async def test_the_scripted_client_leaves_nothing_in_the_temporary_folder(
    tmp_path: Path,
) -> None:
    """Its server's home and stderr file go when the server stops, and what the server wrote
    on stderr can still be read (a run of the tests left about thirty of each behind)."""
    db = f"sqlite:///{tmp_path / 'x.db'}"
    make_case(db)
    async with serve(db) as s:
        assert [row["id"] for row in (await s.call("list_cases"))["cases"]] == ["c1"]
        home = s.home
        stderr = s.stderr_path
        assert home.is_dir() and stderr.is_file()
    assert not home.exists() and not stderr.exists()
    assert "Traceback" not in s.stderr
