"""What `casefile report` writes outside a case: regular files only (issue 23, R3-H4, R3-L5).

`-o FILE`, the chart a Markdown report puts beside it and `--redact-map FILE` each go through a
temporary in the same directory renamed over the name; so a device, a FIFO, a symlink or a
directory where one of them goes must be refused in one line before anything is written, never
replaced (as root, `-o /dev/null` once replaced the system's `/dev/null` with a report). The
devices here are made inside tmp_path, never the real ones.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from casefile.actions.output_actions import WriteReport
from casefile.app.who import Who
from casefile.errors import CasefileError
from tests.cli.conftest import CLI
from tests.report.cases import REFERENCE, service_with


@pytest.fixture
def imported(cli: CLI) -> str:
    done = cli("import", str(REFERENCE))
    assert done.code == 0, done.err
    return "glm5-pcie-pivot"


@pytest.fixture
def here(tmp_path: Path) -> Path:
    """A directory of its own for what the report writes (tmp_path holds the CLI's database)."""
    made = tmp_path / "here"
    made.mkdir()
    return made


@pytest.fixture
def umask_022() -> Iterator[None]:
    """A known umask, so that modes a test expects do not depend on the machine's."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _device(path: Path) -> None:
    """A character device like /dev/null (1, 3), made in tmp_path; skips unless permitted."""
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError) as error:
        pytest.skip(f"cannot make a device node here: {error}")


def _link_to_file(path: Path) -> None:
    elsewhere = path.parent / "elsewhere.txt"
    elsewhere.write_bytes(b"KEEP\n")
    path.symlink_to(elsewhere.name)


def _dangling_link(path: Path) -> None:
    path.symlink_to("nowhere.txt")


def _directory(path: Path) -> None:
    path.mkdir()
    (path / "inside.txt").write_bytes(b"KEEP\n")


#: each kind of name that is not a regular file, and how to make one
KINDS: dict[str, Callable[[Path], None]] = {
    "character device": _device,
    "FIFO": os.mkfifo,
    "symbolic link": _link_to_file,
    "dangling symbolic link": _dangling_link,
    "directory": _directory,
}


def _snapshot(directory: Path) -> dict[str, tuple[int, bytes | str | None]]:
    """Each name in ``directory``: its file type and what it holds (a link: where it points)."""
    seen: dict[str, tuple[int, bytes | str | None]] = {}
    for entry in sorted(directory.iterdir()):
        mode = entry.lstat().st_mode
        if stat.S_ISLNK(mode):
            seen[entry.name] = (stat.S_IFMT(mode), os.readlink(entry))
        elif stat.S_ISREG(mode):
            seen[entry.name] = (stat.S_IFMT(mode), entry.read_bytes())
        else:
            seen[entry.name] = (stat.S_IFMT(mode), None)
    return seen


#: (what is refused, the name made odd, the report's arguments); all paths in one directory
ROLES = {
    "report -o": ("pm.html", ["--format", "html", "-o", "pm.html"]),
    "report -o, before its chart and map": (
        "pm.md",
        ["-o", "pm.md", "--redact", "--redact-map", "map.json"],
    ),
    "chart beside the report": ("pm.svg", ["-o", "pm.md"]),
    "redact map": (
        "map.json",
        ["--format", "html", "-o", "pm.html", "--redact", "--redact-map", "map.json"],
    ),
}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("role", list(ROLES))
def test_only_regular_files_are_written(
    cli: CLI,
    imported: str,
    here: Path,
    monkeypatch: pytest.MonkeyPatch,
    role: str,
    kind: str,
) -> None:
    """Refused in one line naming the path and what it is; nothing in the directory changes:
    the odd name is not replaced, nothing is written through a link, no other file of the
    report is written, and no temporary is left."""
    odd, arguments = ROLES[role]
    KINDS[kind](here / odd)
    before = _snapshot(here)
    monkeypatch.chdir(here)
    done = cli("report", imported, *arguments)
    assert done.code == 1, done.err
    shown = "symbolic link" if "link" in kind else kind
    assert done.err.startswith(f"casefile: error: refusing to write {odd}: it is a"), done.err
    assert shown in done.err
    assert done.err.count("\n") == 1
    assert _snapshot(here) == before


def test_an_existing_report_is_replaced_keeping_its_mode(
    cli: CLI, imported: str, here: Path, umask_022: None
) -> None:
    out = here / "pm.html"
    out.write_bytes(b"old report\n")
    out.chmod(0o640 | stat.S_ISUID)
    done = cli("report", imported, "--format", "html", "-o", str(out))
    assert done.code == 0, done.err
    assert out.read_bytes().startswith(b"<!DOCTYPE html>")
    assert stat.S_IMODE(out.stat().st_mode) == 0o640  # the set-user-ID bit is not kept
    assert sorted(p.name for p in here.iterdir()) == ["pm.html"]


def test_a_new_report_gets_the_umask_mode(
    cli: CLI, imported: str, here: Path, umask_022: None
) -> None:
    done = cli("report", imported, "-o", str(here / "pm.md"))
    assert done.code == 0, done.err
    for name in ("pm.md", "pm.svg"):
        assert stat.S_IMODE((here / name).stat().st_mode) == 0o644


@pytest.mark.parametrize("existing", [None, 0o644])
def test_the_redact_map_is_readable_by_its_owner_only(
    cli: CLI, imported: str, here: Path, umask_022: None, existing: int | None
) -> None:
    """The map holds every original the report hides: 0600, even over a 0644 file (R3-L5)."""
    mapping = here / "map.json"
    if existing is not None:
        mapping.write_bytes(b"{}\n")
        mapping.chmod(existing)
    out = here / "pm.html"
    redacting = ["--redact", "--redact-map", str(mapping)]
    done = cli("report", imported, "--format", "html", "-o", str(out), *redacting)
    assert done.code == 0, done.err
    assert b'"pseudonyms"' in mapping.read_bytes()
    assert stat.S_IMODE(mapping.stat().st_mode) == 0o600
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_the_chart_never_replaces_a_file_of_the_users(cli: CLI, imported: str, here: Path) -> None:
    """``-o keep.md`` beside the user's own ``keep.svg``: refused in one line, nothing written
    (R3-L7); a chart an earlier run wrote there is replaced as before."""
    (here / "keep.svg").write_bytes(b"KEEP\n")
    done = cli("report", imported, "-o", str(here / "keep.md"))
    assert done.code == 1
    assert done.err.count("\n") == 1 and "a file that casefile did not write" in done.err
    assert (here / "keep.svg").read_bytes() == b"KEEP\n"
    assert sorted(p.name for p in here.iterdir()) == ["keep.svg"]
    for _ in range(2):
        done = cli("report", imported, "-o", str(here / "pm.md"))
        assert done.code == 0, done.err
    assert b"casefile-report-digest" in (here / "pm.svg").read_bytes()


@pytest.mark.parametrize("mapping", ["pm.svg", "./pm.md"])
def test_the_map_is_never_written_over_by_the_report_or_its_chart(
    cli: CLI, imported: str, here: Path, monkeypatch: pytest.MonkeyPatch, mapping: str
) -> None:
    monkeypatch.chdir(here)
    redacting = ["--redact", "--redact-map", mapping]
    done = cli("report", imported, "-o", "pm.md", *redacting)
    assert done.code == 1
    assert done.err.count("\n") == 1 and "would be that one file" in done.err
    assert list(here.iterdir()) == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    cli: CLI, imported: str, here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = here / "pm.html"
    out.write_bytes(b"old report\n")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    done = cli("report", imported, "--format", "html", "-o", str(out))
    assert done.code == 1
    assert done.err == f"casefile: error: cannot write {out}: No space left on device\n"
    assert sorted(p.name for p in here.iterdir()) == ["pm.html"]
    assert out.read_bytes() == b"old report\n"


def test_the_tuis_report_export_refuses_the_same_names(here: Path) -> None:
    """The TUI writes through the same function: a FIFO where the chart goes is refused, and
    the report beside it is not written either."""
    service, case_id = service_with(REFERENCE)
    os.mkfifo(here / "pm.svg")
    before = _snapshot(here)
    request = WriteReport(str(here / "pm.md"))
    with pytest.raises(CasefileError, match=r"refusing to write .*pm\.svg: it is a FIFO"):
        request.run(service, case_id, Who("user", None))
    assert _snapshot(here) == before
