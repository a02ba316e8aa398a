"""Artifact references come from the schema, not from key names (issue 9, defect 6).

An environment key ending in ``_artifact`` is an environment key: the case verifies, exports
and imports, and a value equal to another case's digest does not pull that blob along.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from casefile.app.library import export, import_directory, verify
from casefile.domain.catalogue import CATALOGUE
from casefile.domain.events import NewEvent
from casefile.store.casedir import read_case_dir
from casefile.store.memory import MemoryEventStore
from casefile.store.verify import ARTIFACT_FIELDS, referenced_artifacts

SECRET = b"another case's raw output\n"


def test_env_key_ending_in_artifact_verifies_and_round_trips(tmp_path: Path) -> None:
    store = MemoryEventStore()
    store.append(
        "t", 0, [NewEvent("case.opened", {"title": "t", "environment": {"build_artifact": "v1.2"}})]
    )
    assert referenced_artifacts(store.load("t")[0]) == set()
    report = verify(store, "t")
    assert report.ok, report.message
    directory = export(store, "t", tmp_path / "t")
    again = MemoryEventStore()
    assert import_directory(again, directory).case_id == "t"
    assert again.load("t") == store.load("t")
    assert verify(again, "t").ok


def test_a_value_equal_to_another_digest_does_not_pull_that_blob(tmp_path: Path) -> None:
    store = MemoryEventStore()
    digest = store.put_artifact(SECRET)
    store.append(
        "other",
        0,
        [
            NewEvent("case.opened", {"title": "o"}),
            NewEvent(
                "probe.ran",
                {
                    "probe": "command",
                    "argv": ["true"],
                    "host": "h",
                    "source": "local",
                    "stdout_artifact": digest,
                },
            ),
        ],
    )
    store.append(
        "t", 0, [NewEvent("case.opened", {"title": "t", "environment": {"log_artifact": digest}})]
    )
    directory = export(store, "t", tmp_path / "t")
    assert not (directory / "artifacts" / digest).exists()
    _, artifacts = read_case_dir(directory)
    assert artifacts == {}
    # The probe's own reference is still one.
    other = export(store, "other", tmp_path / "other")
    assert (other / "artifacts" / digest).read_bytes() == SECRET


def _artifact_fields(model: type[BaseModel]) -> set[str]:
    return {name for name in model.model_fields if name.endswith("_artifact")}


def test_every_artifact_field_of_the_schema_is_listed() -> None:
    listed = {kind: set(fields) for kind, fields in ARTIFACT_FIELDS.items()}
    in_schema = {
        kind: _artifact_fields(model)
        for kind, (_, model) in CATALOGUE.items()
        if _artifact_fields(model)
    }
    expected = {
        "probe.ran": {"stdout_artifact", "stderr_artifact", "transcript_artifact"},
        "note.added": {"transcript_artifact"},
    }
    assert listed == in_schema == expected
