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
from collections import deque
from itertools import repeat
from operator import itemgetter, setitem
from typing import Any

from casefile.domain.beliefs.fold_columns import Binary as _Binary
from casefile.domain.beliefs.fold_columns import Section as _Section
from casefile.domain.beliefs.fold_columns import all_of as _all
from casefile.domain.beliefs.fold_columns import check as _check
from casefile.domain.beliefs.fold_columns import only as _only
from casefile.domain.beliefs.fold_evidence import is_rule as _is_rule
from casefile.domain.beliefs.projection import Projection
from casefile.domain.beliefs.warnings import (
    CaseWarning,
    SavedEntries,
    WarningTracker,
    Written,
    set_aside_warning,
    without,
)

#: the keys each record has its own value for (the rest repeat: interned)
_VARYING = ("seq", "observation_seq", "hash")
_NONE = type(None)
_READING = itemgetter("observation_seq")
_RULE = itemgetter("rule")
_ID = itemgetter("id")


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
    shape_of = section.picks(columns["shape"], templates, "set-aside shapes")
    count = len(shape_of)
    seqs = section.ints(columns["seq"], "set-aside seqs")
    readings = section.ints(columns["observation_seq"], "set-aside readings")
    hashes = section.digests(columns["hash"], count, "set-aside hashes")
    _check(len(seqs) == len(readings) == count and None not in hashes, "set-aside columns")
    records = list(map(dict.copy, shape_of))  # each in the record's own key order
    for key, column in (("seq", seqs), ("observation_seq", readings), ("hash", hashes)):
        deque(map(setitem, records, repeat(key), column), maxlen=0)  # at C speed
    return records


def _check_record(record: dict[str, Any]) -> None:
    _check(record.get("seq").__class__ is int, "set-aside seq")
    _check(record.get("observation_seq").__class__ is int, "set-aside reading")
    _check(record.get("reason").__class__ is str, "set-aside reason")
    _check(_is_rule(record.get("rule")), "set-aside rule")


def dump_active(tracker: WarningTracker, records: list[dict[str, Any]]) -> list[Any]:
    """Each active warning as the position of the record that raised it, or in full (a
    restored tracker whose warnings were never built writes them back as it was given them)."""
    entries = tracker.saved_entries()
    if entries is None:
        position = {r["seq"]: k for k, r in enumerate(records) if r.get("seq").__class__ is int}
        entries = []
        for w in tracker.active.values():
            k = position.get(w.seq) if w.code == "set-aside" else None
            fits = k is not None and set_aside_warning(w.seq, records[k]) == w
            entries.append(k if fits and k is not None else w)
    return [
        e if isinstance(e, int) else [e.code, e.message, e.seq, e.question_id, e.subject]
        for e in entries
    ]


def restore_active(saved: list[Any], p: Projection) -> tuple[SavedEntries, Written]:
    """The active warnings as saved (``p.set_asides`` restored first), and those of them
    written in full by their place in the raised order: each a warning or the position of its
    set-aside record, checked as building them and raising them one by one would need: every
    position names a record, and no two warnings share a key."""
    records = p.set_asides
    saved = _all(saved, (int, list), "warnings")
    written: Written = {}
    entries: SavedEntries = saved  # ints stay as they are; written warnings are built
    if not _only(saved, int):
        entries = list(saved)  # the saved list is left as it was read
        for k in [k for k, entry in enumerate(saved) if entry.__class__ is list]:
            code, message, seq, question, subject = saved[k]
            _check(code.__class__ is str and message.__class__ is str, "warning")
            _check(seq.__class__ is int and question in (None, *p.questions), "warning")
            _check(subject.__class__ in (str, _NONE), "warning subject")
            entries[k] = written[k] = CaseWarning(code, message, seq, question, subject)
    positions: list[int] = without(saved, written)
    count = len(positions)
    _check(
        not positions or (min(positions) >= 0 and max(positions) < len(records)),
        "warning of a set-aside reading",
    )
    _check(len(set(positions)) == count, "a warning given twice")
    # a record's warning is keyed by its reading and rule: two records may not share both
    named = list(map(records.__getitem__, positions))
    keys = set(
        zip(
            map(_READING, named),
            map(_ID, map(_RULE, named)),
            strict=True,
        )
    )
    _check(len(keys) == count, "a warning given twice")
    _check(len({w.key for w in written.values()}) == len(written), "a warning given twice")
    alike = [w.subject for w in written.values() if w.code == "set-aside" and w.question_id is None]
    if alike:  # a set-aside warning written in full may not be a record's too
        subjects = {f"{reading}:{rule}" for reading, rule in keys}
        _check(subjects.isdisjoint(alike), "a warning given twice")
    return entries, written
