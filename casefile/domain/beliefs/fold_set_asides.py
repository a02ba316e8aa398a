"""The set-aside readings of a saved fold and the warnings they raised, in columns.

A long case sets aside tens of thousands of readings (taken at idle, another setup), and each
raises a warning whose message is built from its record: written out as JSON they were most of
a snapshot, and most of a warm ``status``'s time parsing it. Here the records are columns (the
seq, the reading's seq and the event hash in the binary section, the rest interned: a playbook
sets readings aside for a handful of reasons), and an active warning that is exactly the one
its record raises is saved as that record's position, rebuilt by the same function the fold
raises it with (:func:`~casefile.domain.beliefs.warnings.set_aside_warning`). Records that do
not fit the columns stay a JSON list, and any other warning stays written out in full.
"""

from __future__ import annotations

import json
from typing import Any

from casefile.domain.beliefs.fold_columns import Binary as _Binary
from casefile.domain.beliefs.fold_columns import Section as _Section
from casefile.domain.beliefs.fold_columns import all_of as _all
from casefile.domain.beliefs.fold_columns import check as _check
from casefile.domain.beliefs.fold_columns import only as _only
from casefile.domain.beliefs.fold_columns import picks as _picks
from casefile.domain.beliefs.fold_evidence import is_rule as _is_rule
from casefile.domain.beliefs.projection import Projection
from casefile.domain.beliefs.warnings import CaseWarning, set_aside_warning

#: the keys each record has its own value for (the rest repeat: interned)
_VARYING = ("seq", "observation_seq", "hash")
_NONE = type(None)


def dump_set_asides(records: list[dict[str, Any]], binary: _Binary) -> Any:
    """``{"columns": …}`` when every record fits them, else ``{"list": records}``."""
    if not all(_fits(r) for r in records):
        return {"list": records}
    shapes: dict[str, int] = {}
    table: list[list[Any]] = []
    shape_of = []
    for record in records:
        shape = [[k, None if k in _VARYING else v] for k, v in record.items()]
        key = json.dumps(shape, separators=(",", ":"))
        if key not in shapes:
            shapes[key] = len(table)
            table.append(shape)
        shape_of.append(shapes[key])
    return {
        "columns": {
            "shapes": table,
            "shape": binary.ints(shape_of, below=len(table)),
            "seq": binary.ints([r["seq"] for r in records]),
            "observation_seq": binary.ints([r["observation_seq"] for r in records]),
            "hash": binary.digests([r["hash"] for r in records]),
        }
    }


def _fits(record: dict[str, Any]) -> bool:
    return (
        record.get("seq").__class__ is int
        and record.get("observation_seq").__class__ is int
        and record.get("hash").__class__ is str
    )


def restore_set_asides(saved: Any, section: _Section) -> list[dict[str, Any]]:
    _check(saved.__class__ is dict and len(saved) == 1, "set-aside records")
    if "list" in saved:
        records = _all(saved["list"], (dict,), "set-aside records")
        for record in records:
            _check_record(record)
        return records
    columns = saved["columns"]
    templates = []
    for shape in _all(columns["shapes"], (list,), "set-aside shapes"):
        _check(_only(shape, list), "set-aside shape")
        _check(all(len(kv) == 2 and kv[0].__class__ is str for kv in shape), "set-aside shape")
        template = dict(shape)
        _check(len(template) == len(shape) and set(_VARYING) <= set(template), "set-aside shape")
        template.update(seq=0, observation_seq=0, hash="")
        _check_record(template)  # the varying columns are ints and digests by construction
        templates.append(template)
    shape_of = _picks(section.ints(columns["shape"], "set-aside shapes"), templates, "shapes")
    count = len(shape_of)
    seqs = section.ints(columns["seq"], "set-aside seqs")
    readings = section.ints(columns["observation_seq"], "set-aside readings")
    hashes = section.digests(columns["hash"], count, "set-aside hashes")
    _check(len(seqs) == len(readings) == count and None not in hashes, "set-aside columns")
    records = []
    for template, seq, reading, digest in zip(shape_of, seqs, readings, hashes, strict=True):
        record = template.copy()  # in the record's own key order
        record["seq"] = seq
        record["observation_seq"] = reading
        record["hash"] = digest
        records.append(record)
    return records


def _check_record(record: dict[str, Any]) -> None:
    _check(record.get("seq").__class__ is int, "set-aside seq")
    _check(record.get("observation_seq").__class__ is int, "set-aside reading")
    _check(record.get("reason").__class__ is str, "set-aside reason")
    _check(_is_rule(record.get("rule")), "set-aside rule")


def dump_active(active: list[CaseWarning], records: list[dict[str, Any]]) -> list[Any]:
    """Each active warning as the position of the record that raised it, or in full."""
    position = {r["seq"]: k for k, r in enumerate(records) if r.get("seq").__class__ is int}
    out: list[Any] = []
    for w in active:
        k = position.get(w.seq) if w.code == "set-aside" else None
        if k is not None and set_aside_warning(w.seq, records[k]) == w:
            out.append(k)
        else:
            out.append([w.code, w.message, w.seq, w.question_id, w.subject])
    return out


def restore_active(saved: list[Any], p: Projection) -> list[CaseWarning]:
    """The active warnings (``p.set_asides`` restored first)."""
    records = p.set_asides
    active = []
    for entry in _all(saved, (int, list), "warnings"):
        if entry.__class__ is int:
            _check(0 <= entry < len(records), "warning of a set-aside reading")
            active.append(set_aside_warning(records[entry]["seq"], records[entry]))
            continue
        code, message, seq, question, subject = entry
        _check(code.__class__ is str and message.__class__ is str, "warning")
        _check(seq.__class__ is int and question in (None, *p.questions), "warning")
        _check(subject.__class__ in (str, _NONE), "warning subject")
        active.append(CaseWarning(code, message, seq, question, subject))
    return active
