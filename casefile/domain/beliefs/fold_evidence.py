"""The evidence of a saved fold as columns, and the evidence restored from them.

Evidence is most of a long case's fold, so it has an encoding of its own, apart from the
container in :mod:`~casefile.domain.beliefs.fold_codec`: one column per field in fold order,
repeated values interned into tables, likelihoods flattened, payload fields beyond the core
kept as nullable columns; restored evidence reads its likelihoods and payload from
:class:`_SavedColumns` only when first asked. The layout (the ``evidence`` entry) is
described in ``fold_codec``, whose :data:`~casefile.domain.beliefs.fold_codec.ENGINE_VERSION`
versions it.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any, cast

from casefile.domain.beliefs.by_observation import INDEX as BY_OBSERVATION
from casefile.domain.beliefs.by_observation import ByObservation
from casefile.domain.beliefs.fold_columns import Binary as _Binary
from casefile.domain.beliefs.fold_columns import Section as _Section
from casefile.domain.beliefs.fold_columns import all_of as _all
from casefile.domain.beliefs.fold_columns import check as _check
from casefile.domain.beliefs.fold_columns import hex_digest as _hex_digest
from casefile.domain.beliefs.fold_columns import only as _only
from casefile.domain.beliefs.projection import EvidenceState, Projection
from casefile.domain.beliefs.rules_read import INDEX as RULES_READ
from casefile.domain.beliefs.rules_read import RulesRead

#: Evidence payload fields beyond the ones every evidence has, kept as nullable columns.
_OPTIONAL = ("probe_run_seq", "observation_seq", "rule", "outcome", "statistic", "supersedes")
_CORE = frozenset(
    {"evidence_id", "question_id", "likelihoods", "otherwise", "kind", "reliability", "rationale"}
)
_KNOWN = _CORE.union(_OPTIONAL)
#: The optional fields a case repeats (a playbook's few rules and outcomes), kept interned,
#: and the types each may hold besides null.
_REPEATED_TYPES: dict[str, tuple[type, ...]] = {
    "rule": (dict,),
    "outcome": (str,),
    "statistic": (float, int, str),
    "supersedes": (str,),
}
_REPEATED = tuple(_REPEATED_TYPES)
_NUMBER = (float, int)
_NONE = type(None)


def _interned(values: list[Any]) -> tuple[list[int], list[Any]]:
    """Each value replaced by its position in a table of the distinct values.

    Python calls 1, 1.0 and True equal, and 0.0 and -0.0, and none of them may merge: values
    of one type, unless they are floats with a zero among them, go the fast way, through a
    dict (where equal means identical); the rest are keyed by (type, repr).
    """
    distinct = list(dict.fromkeys(values))
    types = set(map(type, values))  # of every value: the distinct ones have merged 1 into 1.0
    if len(types) <= 1 and (float not in types or all(distinct)):
        position = {value: k for k, value in enumerate(distinct)}
        return list(map(position.__getitem__, values)), distinct
    table: dict[tuple[type, str], int] = {}
    column = []
    distinct = []
    for value in values:
        key = (value.__class__, repr(value))
        found = table.get(key)
        if found is None:
            found = table[key] = len(distinct)
            distinct.append(value)
        column.append(found)
    return column, distinct


def _interned_json(values: list[Any]) -> tuple[list[int], list[Any]]:
    """:func:`_interned`, for values that may not be hashable (rule references are dicts):
    those are told apart by their JSON, key order included."""
    try:
        return _interned(values)
    except TypeError:
        pass
    table: dict[tuple[type, str], int] = {}
    column = []
    distinct: list[Any] = []
    for value in values:
        key = (value.__class__, json.dumps(value) if value.__class__ is dict else repr(value))
        found = table.get(key)
        if found is None:
            found = table[key] = len(distinct)
            distinct.append(value)
        column.append(found)
    return column, distinct


def dump_evidence(p: Projection, binary: _Binary) -> dict[str, Any]:
    states = list(p.evidence.values())
    positions = {qid: k for k, qid in enumerate(p.questions)}
    likelihoods = [s.likelihoods for s in states]
    names, name_table = _interned(list(itertools.chain.from_iterable(likelihoods)))
    values, value_table = _interned(
        list(itertools.chain.from_iterable(map(dict.values, likelihoods)))
    )
    # payload fields straight from the dicts where held (a full fold), else from the state
    held = [s.held_payload for s in states]

    dicts = cast("list[dict[str, Any]]", held) if None not in held else None
    # a case of hand-written evidence has no optional field anywhere: skip those passes
    plain = dicts is not None and all(map(_CORE.issuperset, dicts))

    def field(key: str, default: Any = None) -> list[Any]:
        if dicts is not None:
            get: Callable[[dict[str, Any], str, Any], Any] = dict.get
            return list(map(get, dicts, itertools.repeat(key), itertools.repeat(default)))
        return [
            pl.get(key, default) if pl is not None else s.payload_field(key)
            for pl, s in zip(held, states, strict=True)
        ]

    def interned(column: list[Any]) -> list[Any]:
        indices, table = _interned(column)
        return [binary.ints(indices, below=len(table)), table]

    supports, support_sets = _interned([s.supports for s in states])
    columns: dict[str, Any] = {
        "id": [s.id for s in states],
        "seq": binary.ints([s.seq for s in states]),
        "question": binary.ints([positions[s.question_id] for s in states], below=len(positions)),
        "otherwise": interned([s.otherwise for s in states]),
        "reliability": interned([s.reliability for s in states]),
        "kind": interned([s.kind for s in states]),
        "rationale": interned(field("rationale", "")),
        "supports": [
            binary.ints(supports, below=len(support_sets)),
            [sorted(tops) for tops in support_sets],
        ],
        "likelihoods": [
            binary.ints(list(map(len, likelihoods))),
            binary.ints(names, below=len(name_table)),
            name_table,
            binary.ints(values, below=len(value_table)),
            value_table,
        ],
        "hash": binary.digests([s.hash for s in states]),
        "superseded": [
            [k, s.superseded_by] for k, s in enumerate(states) if s.superseded_by is not None
        ],
    }
    for key in _OPTIONAL:
        if plain:
            columns[key] = {"none": len(states)}
        elif key in _REPEATED:
            column = field(key)
            if column.count(None) == len(column):
                columns[key] = {"none": len(column)}
            else:
                indices, table = _interned_json(column)
                columns[key] = [binary.ints(indices, below=len(table)), table]
        else:
            columns[key] = binary.values(field(key))
    # anything else a payload carries (nothing the catalogue allows today), kept as it was
    other = []
    for k, (pl, s) in enumerate(zip(held, states, strict=True)):
        if plain:
            break
        if pl is None or not _KNOWN.issuperset(pl):
            rest = s.fields_beyond(_KNOWN)
            if rest:
                other.append([k, rest])
    columns["other"] = other
    return columns


def is_rule(rule: Any) -> bool:
    """A rule reference as evidence and set-asides carry it: ``{"id": str, "version": int}``."""
    return (
        rule.__class__ is dict
        and rule.get("id").__class__ is str
        and rule.get("version").__class__ is int
    )


class _SavedColumns:
    """The restored evidence columns, from which each evidence builds its likelihoods and
    payload when first asked (see :class:`~casefile.domain.beliefs.projection.SavedEvidence`).
    Everything here was checked on restore, so building cannot fail."""

    def __init__(
        self,
        ids: list[str],
        questions: list[str],
        starts: list[int],
        names: tuple[list[int], list[str]],
        values: tuple[list[int], list[float]],
        core: dict[str, list[Any]],
        optional: dict[str, list[Any]],
        other: dict[int, dict[str, Any]],
        hashes: bytes,
    ) -> None:
        self.ids = ids
        self.questions = questions
        self.starts = starts
        self.names, self.name_table = names  # each name as its index into the table
        self.values, self.value_table = values  # likewise
        self.core = core  # otherwise, kind, reliability, rationale
        self.optional = optional
        self.other = other
        self.hashes = hashes  # raw digests, when restored evidence was given no hash

    def hash(self, position: int) -> str:
        return _hex_digest(self.hashes, position)

    def likelihoods(self, position: int) -> dict[str, float]:
        start, end = self.starts[position], self.starts[position + 1]
        names = map(self.name_table.__getitem__, self.names[start:end])
        values = map(self.value_table.__getitem__, self.values[start:end])
        return dict(zip(names, values, strict=True))

    def field(self, position: int, key: str) -> Any:
        column = self.core.get(key) or self.optional.get(key)
        if column is not None:
            return column[position]
        if key == "evidence_id":
            return self.ids[position]
        if key == "question_id":
            return self.questions[position]
        if key == "likelihoods":
            return self.likelihoods(position)
        return self.other.get(position, {}).get(key)

    def payload(self, position: int, likelihoods: dict[str, float]) -> dict[str, Any]:
        state: dict[str, Any] = {
            "evidence_id": self.ids[position],
            "question_id": self.questions[position],
            "likelihoods": likelihoods,
        }
        for key, column in self.core.items():
            state[key] = column[position]
        for key, column in self.optional.items():
            value = column[position]
            if value is not None:
                state[key] = value
        state.update(self.other.get(position, {}))
        return state

    def beyond(self, position: int, known: frozenset[str]) -> dict[str, Any]:
        rest = self.other.get(position)
        if not rest:
            return {}
        return {key: value for key, value in rest.items() if key not in known}


def _interned_column(entry: Any, section: _Section, types: tuple[type, ...], what: str) -> Any:
    indices, table = entry
    return section.picks(indices, _all(table, types, what), what)


def restore_evidence(p: Projection, columns: dict[str, Any], section: _Section) -> None:
    ids = _all(columns["id"], (str,), "evidence ids")
    count = len(ids)
    seqs = section.ints(columns["seq"], "evidence seqs")
    questions = section.picks(columns["question"], list(p.questions), "evidence questions")
    otherwise = _interned_column(columns["otherwise"], section, _NUMBER, "otherwise")
    _check(all(0.0 < o <= 1.0 for o in columns["otherwise"][1]), "otherwise values")
    reliability = _interned_column(columns["reliability"], section, _NUMBER, "reliability")
    _check(all(0.0 <= r <= 1.0 for r in columns["reliability"][1]), "reliabilities")
    kinds = _interned_column(columns["kind"], section, (str,), "kinds")
    rationales = _interned_column(columns["rationale"], section, (str,), "rationales")
    support_sets = [frozenset(_all(tops, (str,), "supports")) for tops in columns["supports"][1]]
    supports = section.picks(columns["supports"][0], support_sets, "supports")
    counts, name_index, name_table, value_index, value_table = columns["likelihoods"]
    counts = section.ints(counts, "likelihood counts")
    starts = [0, *itertools.accumulate(counts)]
    _check(min(counts, default=1) >= 1, "likelihood counts")
    _all(name_table, (str,), "likelihood names")
    _check(all(h in p.hypothesis_question for h in name_table), "likelihood names")
    # indices into the tables, read when asked
    names = section.indices(name_index, len(name_table), "likelihood names")
    values = section.indices(value_index, len(value_table), "likelihood values")
    _all(value_table, _NUMBER, "likelihood values")
    _check(all(0.0 < v <= 1.0 for v in value_table), "likelihood values")
    _check(starts[-1] == len(names) == len(values), "likelihood columns")
    # the hashes as raw digests, each read as hex when first asked (else as a list)
    packed = section.packed_digests(columns["hash"], count, "evidence hashes")
    hashes: Any = itertools.repeat(None)
    if packed is None:
        hashes = section.digests(columns["hash"], count, "evidence hashes")
        _check(None not in hashes, "evidence hashes")
    optional = {
        key: section.values(columns[key], count, key)
        for key in ("probe_run_seq", "observation_seq")
    }
    _check(_only(optional["probe_run_seq"], int, _NONE), "run seqs")
    _check(_only(optional["observation_seq"], int, _NONE), "obs seqs")
    for key, types in _REPEATED_TYPES.items():
        entry = columns[key]
        if entry.__class__ is dict:
            optional[key] = section.values(entry, count, key)
            _check(_only(optional[key], _NONE), key)  # a column of nulls, nothing else
        else:
            optional[key] = _interned_column(entry, section, (*types, _NONE), key)
            if key == "rule":  # each distinct reference checked once
                _check(all(rule is None or is_rule(rule) for rule in entry[1]), "rules")
        _check(len(optional[key]) == count, key)
    lengths = {len(c) for c in (seqs, questions, otherwise, reliability, kinds, rationales)}
    _check(lengths | {len(supports), len(counts)} == {count}, "evidence columns")
    other: dict[int, dict[str, Any]] = {}
    for k, rest in columns["other"]:
        _check(k.__class__ is int and 0 <= k < count and rest.__class__ is dict, "other fields")
        _check(bool(rest) and _KNOWN.isdisjoint(rest), "other fields")
        other[k] = rest
    core = {
        "otherwise": otherwise,
        "kind": kinds,
        "reliability": reliability,
        "rationale": rationales,
    }
    saved = _SavedColumns(
        ids,
        questions,
        starts,
        (names, name_table),
        (values, value_table),
        core,
        optional,
        other,
        packed or b"",
    )
    nothing = itertools.repeat(None)
    states = map(
        EvidenceState,
        ids,
        seqs,
        questions,
        nothing,
        otherwise,
        kinds,
        reliability,
        nothing,
        nothing,
        nothing,
        supports,
        hashes,
        itertools.repeat(saved),
        range(count),
    )
    evidence = p.evidence
    evidence.update(zip(ids, states, strict=True))
    _check(len(evidence) == count, "evidence ids given twice")
    for k, newer in columns["superseded"]:
        _check(k.__class__ is int and 0 <= k < count, "superseded evidence")
        _check(newer in evidence, f"superseding evidence {newer!r}")
        evidence[ids[k]].superseded_by = newer
    # the rules read, from the columns at hand: a warm status never walks the evidence for them
    read = RulesRead(count)
    superseded = {ids[k] for k, _ in columns["superseded"]}
    by_rule = read.by_rule
    for eid, rule, outcome in zip(ids, optional["rule"], optional["outcome"], strict=True):
        if rule is not None and eid not in superseded:
            by_rule[rule["id"]] = (eid, str(outcome))
    p.indexes[RULES_READ] = read
    p.indexes[BY_OBSERVATION] = ByObservation(count, pending=(optional["observation_seq"], ids))
