"""The fold, the report and the detail views read payloads through their models, never by
string key.

A reader that needs one of the payloads kept as stored (a probe run, an observation, the fold's
set-aside records, the likelihoods the fold keeps) reads it through
:mod:`casefile.domain.event_types.stored`, the one module that says why and reads those dicts
by key; every other payload is validated into the model of its type and read by attribute, so
each default lives in the model alone.
"""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

from casefile.domain.beliefs import projection
from casefile.domain.event_types import EVENT_TYPES

ROOT = Path(__file__).resolve().parents[2]

#: The modules that read events' payloads: the fold, the report's readers and the detail views.
READERS = (
    "casefile/domain/beliefs/projection.py",
    "casefile/report/evidence.py",
    "casefile/report/sources.py",
    "casefile/report/narrative.py",
    "casefile/report/reasoning.py",
    "casefile/report/postmortem.py",
    "casefile/app/views/event_detail.py",
    "casefile/app/views/probe_detail.py",
)

_BY_KEY = frozenset({"get", "pop", "setdefault"})


def string_key_reads(source: str) -> list[str]:
    """Each ``x["name"]`` read and ``x.get("name", …)`` call in ``source``, with its line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _BY_KEY
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("module", READERS)
def test_a_reader_reads_no_payload_by_string_key(module: str) -> None:
    reads = string_key_reads((ROOT / module).read_text(encoding="utf-8"))
    assert reads == [], (
        f"{module} reads by string key (validate the payload into its model, or read a stored "
        f"probe run, observation or set-aside through casefile/domain/event_types/stored.py): "
        + "; ".join(reads)
    )


def test_the_check_finds_string_key_reads() -> None:
    source = (
        "def handler(event, payload):\n"
        "    a = payload['prior']\n"
        "    b = payload.get('otherwise', 0.5)\n"
        "    c = event.payload['likelihoods']['h1']\n"
        "    d = payload[key]\n"  # not a string key: a mapping read by a value
        "    del fields['facts']\n"  # not a read
        "    return payload.prior\n"
    )
    reads = string_key_reads(source)
    assert [r.split(":")[0] for r in reads] == ["line 2", "line 3", "line 4", "line 4"]


def test_each_fold_handler_takes_the_model_of_its_type() -> None:
    """The dispatcher validates each payload into ``EVENT_TYPES[type].model`` and the handler's
    parameter says so; the types kept as stored take the stored dict."""
    for name in projection.FOLDED_TYPES:
        handler = getattr(projection._Folder, "_" + name.replace(".", "_"))
        given = typing.get_type_hints(handler)["payload"]
        if name in projection.KEPT_AS_STORED:
            assert given == dict[str, typing.Any], name
        else:
            assert given is EVENT_TYPES[name].model, name


def test_a_payload_of_a_stored_dict_is_what_model_validate_makes() -> None:
    from pydantic import ValidationError

    from casefile.domain.event_types.evidence import EvidenceAssessed

    stored = {"evidence_id": "e1", "likelihoods": {"h": 0.9}, "reliability": 1, "rationale": "r"}
    assert EvidenceAssessed.of(stored) == EvidenceAssessed.model_validate(stored)
    assert EvidenceAssessed.of(stored).reliability.__class__ is float
    with pytest.raises(ValidationError, match="rationale"):
        EvidenceAssessed.of({**stored, "rationale": ""})


#: Where an event's payload may be read by key: the descriptors' summaries and narrative lines
#: (by design, see ``event_types/base.py``) and the stored-dict views.
_PAYLOAD_KEY_READERS = "casefile/domain/event_types/"


def payload_key_reads(source: str) -> list[str]:
    """Each ``payload["name"]`` / ``x.payload["name"]`` read and ``….get("name")`` call on a
    payload in ``source``, with its line: the reads this rule forbids everywhere."""

    def is_payload(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id == "payload") or (
            isinstance(node, ast.Attribute) and node.attr == "payload"
        )

    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and is_payload(node.value)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _BY_KEY
            and is_payload(node.func.value)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_reads_an_event_payload_by_string_key() -> None:
    """Beyond the readers above: the service, the actions, the store's case layout, the fold's
    helpers and every front end read an event's payload through its model (or the stored-dict
    views), so a renamed or retyped field is a type error, not a silent ``None``."""
    offenders = []
    for path in sorted((ROOT / "casefile").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(_PAYLOAD_KEY_READERS):
            continue
        offenders += [f"{relative} {read}" for read in payload_key_reads(path.read_text("utf-8"))]
    assert offenders == []


def test_the_payload_check_finds_payload_reads_only() -> None:
    source = (
        "a = event.payload['evidence_id']\n"
        "b = payload.get('title', '')\n"
        "c = record['rule']\n"  # a fold record, not an event's payload
        "d = event.payload.get(key)\n"  # not a string key
    )
    assert [r.split(":")[0] for r in payload_key_reads(source)] == ["line 1", "line 2"]
