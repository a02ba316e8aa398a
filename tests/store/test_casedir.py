"""Cases on disk: lossless round trips, and every kind of damage refused with file:line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from casefile.app.library import import_directory
from casefile.domain.events import Event, NewEvent, canonical_json, compute_hash, sha256_hex
from casefile.errors import CaseNotFound, ImportRefused, StoreError
from casefile.store.casedir import (
    export_case,
    export_stored_case,
    read_case_dir,
)
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import ArtifactRow, EventRow, SqlEventStore

STDOUT = b"GPU0 GPU1 CPU Affinity\nGPU0 X PHB 0-31\n"
STDERR = b"warning: \xff not utf-8\n"


def build_case(store: SqlEventStore, case_id: str = "pcie") -> None:
    out = store.put_artifact(STDOUT)
    err = store.put_artifact(STDERR)
    store.append(
        case_id,
        0,
        [
            NewEvent(
                "case.opened",
                {"title": "Decode at 12 tok/s", "symptom": "expected ~40 tok/s — «PCIe-bound»"},
            ),
            NewEvent("note.added", {"text": "ratio 0.1 + 0.2 and ünïcödé"}, actor="bob"),
        ],
    )
    store.append(
        case_id,
        2,
        [
            NewEvent(
                "probe.ran",
                {
                    "probe": "nvidia-smi-topo",
                    "argv": ["nvidia-smi", "topo", "-m"],
                    "host": "node1",
                    "source": "local",
                    "exit_status": 0,
                    "duration_s": 0.30000000000000004,
                    "stdout_artifact": out,
                    "stderr_artifact": err,
                },
                occurred_at="2025-03-04T05:06:07.000000Z",
            ),
            NewEvent("note.added", {"text": "line\nbreak and \u2028 separator"}),
        ],
    )


def files(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def rows(store: SqlEventStore) -> tuple[int, int]:
    with store.engine.connect() as conn:
        events = conn.execute(select(func.count()).select_from(EventRow)).scalar_one()
        blobs = conn.execute(select(func.count()).select_from(ArtifactRow)).scalar_one()
    return int(events), int(blobs)


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    with SqlEventStore(f"sqlite:///{tmp_path / 'source.db'}") as source:
        build_case(source)
        return export_stored_case(source, "pcie", tmp_path / "cases" / "pcie")


def test_export_import_export_is_byte_identical(sql_store: SqlEventStore, tmp_path: Path) -> None:
    with SqlEventStore(f"sqlite:///{tmp_path / 'a.db'}") as source:
        build_case(source)
        first = export_stored_case(source, "pcie", tmp_path / "one")
    assert import_directory(sql_store, first).case_id == "pcie"
    second = export_stored_case(sql_store, "pcie", tmp_path / "two")
    assert files(first) == files(second)
    assert sorted(files(first)) == sorted(
        [
            "README.md",
            "events.head",
            "events.jsonl",
            f"artifacts/{sha256_hex(STDOUT)}",
            f"artifacts/{sha256_hex(STDERR)}",
        ]
    )
    # split("\n"), not splitlines(): U+2028 inside a JSON string is not a line break here.
    lines = (first / "events.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    assert len(lines) == 4 and all(json.loads(line)["case_id"] == "pcie" for line in lines)
    readme = (first / "README.md").read_text(encoding="utf-8")
    assert "# Decode at 12 tok/s" in readme and "Events: 4" in readme
    assert "casefile verify" in readme


def test_reexport_over_the_same_case_is_allowed(tmp_path: Path) -> None:
    with SqlEventStore(f"sqlite:///{tmp_path / 'a.db'}") as store:
        build_case(store)
        target = export_stored_case(store, "pcie", tmp_path / "out")
        before = files(target)
        export_stored_case(store, "pcie", target)
        assert files(target) == before
        store.append("pcie", 4, [NewEvent("note.added", {"text": "more"})])
        export_stored_case(store, "pcie", target)
        assert (target / "events.jsonl").read_text().count("\n") == 5
        build_case(store, "other")
        with pytest.raises(StoreError, match="holds an export of case pcie"):
            export_stored_case(store, "other", target)
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not empty"):
        export_case(memory_case(), {}, stranger)


def memory_case() -> list[Event]:
    return MemoryEventStore().append("m", 0, [NewEvent("case.opened", {"title": "t"})])


def test_missing_directory_is_case_not_found(tmp_path: Path) -> None:
    with pytest.raises(CaseNotFound):
        read_case_dir(tmp_path / "nope")


def _lines(directory: Path) -> list[bytes]:
    return (directory / "events.jsonl").read_bytes().splitlines(keepends=True)


def _write(directory: Path, lines: list[bytes]) -> None:
    (directory / "events.jsonl").write_bytes(b"".join(lines))


def _edit_line(number: int, change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def edit(directory: Path) -> None:
        lines = _lines(directory)
        data = json.loads(lines[number - 1])
        change(data)
        lines[number - 1] = canonical_json(data).encode() + b"\n"
        _write(directory, lines)

    return edit


def _rehash(data: dict[str, Any]) -> None:
    data["hash"] = compute_hash({k: v for k, v in data.items() if k != "hash"})


def _truncate(directory: Path) -> None:
    path = directory / "events.jsonl"
    path.write_bytes(path.read_bytes()[:-25])


def _no_final_newline(directory: Path) -> None:
    path = directory / "events.jsonl"
    path.write_bytes(path.read_bytes()[:-1])


def _bad_json(directory: Path) -> None:
    lines = _lines(directory)
    lines[1] = lines[1].replace(b'"actor":', b'"actor"', 1)
    _write(directory, lines)


def _swap(directory: Path) -> None:
    lines = _lines(directory)
    lines[1], lines[2] = lines[2], lines[1]
    _write(directory, lines)


def _drop(directory: Path) -> None:
    lines = _lines(directory)
    del lines[1]
    _write(directory, lines)


def _duplicate(directory: Path) -> None:
    lines = _lines(directory)
    lines.insert(2, lines[1])
    _write(directory, lines)


def _delete_artifact(directory: Path) -> None:
    (directory / "artifacts" / sha256_hex(STDOUT)).unlink()


def _corrupt_artifact(directory: Path) -> None:
    path = directory / "artifacts" / sha256_hex(STDERR)
    path.write_bytes(path.read_bytes() + b"!")


def _set(key: str, value: object, rehash: bool = False) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data[key] = value
        if rehash:
            _rehash(data)

    return change


def _payload(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["payload"][key] = value
        _rehash(data)

    return change


# name → (damage, file the message names, line or None, words the message contains)
DAMAGE: dict[str, tuple[Callable[[Path], None], str, int | None, str]] = {
    "truncated last line": (_truncate, "events.jsonl", 4, "truncated"),
    "no final newline": (_no_final_newline, "events.jsonl", 4, "truncated"),
    "bad JSON": (_bad_json, "events.jsonl", 2, "bad JSON"),
    "missing field": (_edit_line(3, lambda d: d.pop("actor")), "events.jsonl", 3, "'actor'"),
    "wrong field type": (_edit_line(2, _set("seq", "2")), "events.jsonl", 2, "'seq'"),
    "broken hash": (
        _edit_line(2, lambda d: d["payload"].update(text="edited")),
        "events.jsonl",
        2,
        "seq 2: hash",
    ),
    "prev_hash mismatch": (
        _edit_line(3, _set("prev_hash", "f" * 64, rehash=True)),
        "events.jsonl",
        3,
        "seq 3: prev_hash",
    ),
    "gap in seq": (_drop, "events.jsonl", 2, "expected seq 2, found seq 3"),
    "duplicate seq": (_duplicate, "events.jsonl", 3, "seq 2 appears again"),
    "reordered": (_swap, "events.jsonl", 2, "expected seq 2, found seq 3"),
    "other case_id": (
        _edit_line(4, _set("case_id", "other", rehash=True)),
        "events.jsonl",
        4,
        "case_id 'other'",
    ),
    "invalid payload": (
        _edit_line(2, _payload("text", "")),
        "events.jsonl",
        2,
        "invalid payload",
    ),
    "missing artifact": (_delete_artifact, "events.jsonl", 3, "missing from artifacts/"),
    "artifact digest mismatch": (
        _corrupt_artifact,
        f"artifacts/{sha256_hex(STDERR)}",
        None,
        "does not match its name",
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_case_dir_is_refused_and_database_unchanged(
    damage: str, exported: Path, sql_store: SqlEventStore
) -> None:
    build_case(sql_store, "bystander")
    before = rows(sql_store)
    change, name, line, words = DAMAGE[damage]
    change(exported)
    with pytest.raises(ImportRefused) as caught:
        import_directory(sql_store, exported)
    message = str(caught.value)
    assert "\n" not in message
    where = f"{exported / name}:{line}:" if line is not None else f"{exported / name}:"
    assert message.startswith(where), message
    assert words in message, message
    assert rows(sql_store) == before
    assert sql_store.case_ids() == ["bystander"]


def test_import_of_an_existing_case_is_a_no_op_when_identical_and_refused_when_not(
    exported: Path, sql_store: SqlEventStore, tmp_path: Path
) -> None:
    assert not import_directory(sql_store, exported).already
    before = rows(sql_store)
    assert import_directory(sql_store, exported).already  # the same case again: nothing
    assert rows(sql_store) == before
    other = MemoryEventStore()
    other.append("pcie", 0, [NewEvent("case.opened", {"title": "another case, same id"})])
    elsewhere = tmp_path / "elsewhere"
    export_case(other.load("pcie"), {}, elsewhere)
    with pytest.raises(StoreError, match="different events"):
        import_directory(sql_store, elsewhere)
    assert rows(sql_store) == before
    # and the store itself refuses any second stream under an existing id
    with pytest.raises(StoreError, match="already exists"):
        sql_store.import_case(other.load("pcie"), {})
