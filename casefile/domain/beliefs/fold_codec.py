"""Save a fold as plain data and restore it: a cache so a one-shot command need not refold.

``dump_fold(p)`` writes everything needed to show ``p``'s current state and to keep folding
exactly as ``p`` would: ``project(tail, into=restore_fold(dump_fold(p)))`` gives the same
confidences (bit for bit), leaders, warnings (active, and raised/cleared at every tail step),
evidence states, next-step ranking and decisive evidence as folding every event. It leaves out
what can be megabytes on a long case and is only needed for replay: the events, the
trajectory, the facts of observations and the payloads of probe runs (only stubs of the keys
views and commands read are kept; see :data:`PROBE_RUN_KEYS` and :data:`OBSERVATION_KEYS`).
Restored evidence has no ``effect`` or ``surprise`` (they describe the moment it was folded)
and builds its likelihoods and payload dict when first asked.

The data may sit in a database other people write to, so it is data that cannot run code when
loaded (never pickle or marshal)::

    casefile-fold <ENGINE_VERSION> <sha256 of everything after this line>\\n
    <zlib-compressed JSON><binary section>

The binary section holds what a long case has tens of thousands of and JSON writes and parses
slowly: integer columns (little-endian arrays) and event hashes (raw 32-byte digests). The
JSON refers to them as ``{"ints": [typecode, offset, count]}``, ``{"floats": [offset,
count]}`` (float64) and ``{"digests": [offset, count], "absent": <ints>}``; a column that
does not fit (a big or non-integer value, a hash that is not 64 lowercase hex digits) stays a
JSON list, and an all-null column is ``{"none": count}``.

:func:`restore_fold` raises :class:`FoldUnreadable` for anything else — damaged, truncated,
not a fold, written by another engine version, or holding values of the wrong type — and never
another exception, so a caller can always fall back to folding the events. Everything is
checked when restoring, so nothing read later from a restored projection can fail. A fold is
trusted only as far as the database it came from: the checks catch damage and foreign data,
not forged numbers.

**Version rule.** :data:`ENGINE_VERSION` names what a saved fold means. Bump it whenever the
same events would fold to different state (an event type newly folded, a change to the
arithmetic, a warning added or changed, a field added to what the fold keeps) or the layout
below changes. A fold of another version is refused, never migrated: it is a cache, rebuilt
from the events.

The JSON (lists are in the projection's own order, so a restored fold dumps to the same bytes;
"interned" columns hold indices into a table of the distinct values beside them)::

    case          [case_id, title, symptom, last_seq, last_hash]
    concluded     the case.concluded record, or null
    questions     [{id, text, catch_all, playbook, seq, evidence, sums, support, nodes}]
                  nodes: [id, parent, text, prior, meaning, retired, reason, seq] in proposal
                  order; sums: each node's integer evidence sum; support: [[top, [[kind,
                  count], …]], …]
    evidence      columns, one entry per evidence in fold order: id, seq, question (index),
                  otherwise, reliability, kind, rationale, supports (interned: [column,
                  table]), likelihoods ([counts, names, name table, values], flattened),
                  hash, the optional payload fields, other ([[position, {field:
                  value}], …] for anything else) and superseded ([[position, id], …])
    probe_runs    {seq, hash, shape, shapes, stdout_artifact, stderr_artifact}
    observations  {seq, hash, shape, shapes, probe_run_seq}
                  a stub is its shape (the keys that repeat from run to run) plus columns
    set_asides    the folded set-aside records (payload, seq, hash)
    experiments   the folded experiment records (payload, seq, hash), in seq order
    environment   the case's environment (``--env`` when it was opened)
    decisive      the current decisive ranking: [positions in the evidence columns, bits]
                  (scored once, when the fold was saved: a warm status reads it back)
    warnings      {active: [[code, message, seq, question, subject], …] in raised order,
                   leaders: [[question, leader, unmeasured], …], catch_all: [[question,
                   rising], …]}
    binary        the size of the binary section
"""

from __future__ import annotations

import hashlib
import itertools
import json
import zlib
from collections.abc import Callable
from typing import Any, cast

from casefile.domain.beliefs.fold_columns import Binary as _Binary
from casefile.domain.beliefs.fold_columns import FoldUnreadable as FoldUnreadable
from casefile.domain.beliefs.fold_columns import Section as _Section
from casefile.domain.beliefs.fold_columns import all_of as _all
from casefile.domain.beliefs.fold_columns import check as _check
from casefile.domain.beliefs.fold_columns import only as _only
from casefile.domain.beliefs.fold_columns import picks as _picks
from casefile.domain.beliefs.projection import EvidenceState, Projection, collector_paused
from casefile.domain.beliefs.question import HypothesisNode, QuestionState
from casefile.domain.beliefs.warnings import CaseWarning, WarningTracker

ENGINE_VERSION = "fold-4"

#: The keys of a probe run's payload that a restored projection keeps (graph building and
#: event detail read them; ``assess_evidence`` only needs the seq).
PROBE_RUN_KEYS = (
    "probe",
    "host",
    "argv",
    "source",
    "conditions",
    "stdout_artifact",
    "stderr_artifact",
    "exit_status",
    "error",
    "error_kind",
    "reconstructed",
)
#: The keys of an observation's payload a restored projection keeps (no facts).
OBSERVATION_KEYS = ("probe_run_seq", "probe", "parsed", "problems", "conditions")

#: A body that inflates past this is refused rather than exhausting memory.
MAX_BODY_BYTES = 1 << 30

_MAGIC = b"casefile-fold"
_COMPRESSION = 1  # level 1 already gets most of it: the JSON left is mostly text
_RUN_VARYING = ("stdout_artifact", "stderr_artifact")
_OBSERVATION_VARYING = ("probe_run_seq",)
#: Evidence payload fields beyond the ones every evidence has, kept as nullable columns.
_OPTIONAL = ("probe_run_seq", "observation_seq", "rule", "outcome", "statistic", "supersedes")
_CORE = frozenset(
    {"evidence_id", "question_id", "likelihoods", "otherwise", "kind", "reliability", "rationale"}
)
_KNOWN = _CORE.union(_OPTIONAL)
_NUMBER = (float, int)
_NONE = type(None)


# --- dump -------------------------------------------------------------------------------------


def dump_fold(projection: Projection) -> bytes:
    """The projection's state as bytes (the same projection always gives the same bytes)."""
    binary = _Binary()
    with collector_paused():
        state = _state(projection, binary)
        state["binary"] = binary.size
        text = json.dumps(state, separators=(",", ":"))
    rest = zlib.compress(text.encode("ascii"), _COMPRESSION) + b"".join(binary.parts)
    digest = hashlib.sha256(rest).hexdigest().encode("ascii")
    return b" ".join((_MAGIC, ENGINE_VERSION.encode("ascii"), digest)) + b"\n" + rest


def _state(p: Projection, binary: _Binary) -> dict[str, Any]:
    active, leaders, catch_all = p.warnings.saved_state()
    return {
        "case": [p.case_id, p.title, p.symptom, p.last_seq, p.last_hash],
        "concluded": p.concluded,
        "questions": [_question(q) for q in p.questions.values()],
        "evidence": _evidence(p, binary),
        "probe_runs": _stubs(
            p.probe_runs, p.probe_run_hashes, PROBE_RUN_KEYS, _RUN_VARYING, binary
        ),
        "observations": _stubs(
            p.observations, p.observation_hashes, OBSERVATION_KEYS, _OBSERVATION_VARYING, binary
        ),
        "set_asides": p.set_asides,
        "experiments": list(p.experiments.values()),
        "environment": p.environment,
        "decisive": _decisive(p, binary),
        "warnings": {
            "active": [[w.code, w.message, w.seq, w.question_id, w.subject] for w in active],
            "leaders": [[q, leader, unmeasured] for q, (leader, unmeasured) in leaders.items()],
            "catch_all": [[q, rising] for q, rising in catch_all.items()],
        },
    }


def _decisive(p: Projection, binary: _Binary) -> list[Any]:
    from casefile.domain.beliefs.scoring import decisive_ranking

    position = {eid: k for k, eid in enumerate(p.evidence)}
    ranked = decisive_ranking(p)
    return [
        binary.ints([position[state.id] for _, state in ranked], below=len(position)),
        binary.floats([bits for bits, _ in ranked]),
    ]


def _restore_decisive(p: Projection, saved: Any, section: _Section) -> None:
    from casefile.domain.beliefs.scoring import keep_ranking

    _check(saved.__class__ is list and len(saved) == 2, "decisive ranking")
    positions = section.ints(saved[0], "decisive ranking")
    bits = section.floats(saved[1], len(positions), "decisive bits")
    states = list(p.evidence.values())
    _check(all(0 <= k < len(states) for k in positions), "decisive ranking")
    _check(len(set(positions)) == len(positions), "decisive ranking")
    _check(_only(bits, float) and all(b >= 0.0 for b in bits), "decisive bits")
    ranked = [(b, states[k]) for k, b in zip(positions, bits, strict=True)]
    _check(all(state.active for _, state in ranked), "decisive ranking")
    _check(len(ranked) == sum(1 for s in states if s.active), "decisive ranking")
    keep_ranking(p, ranked)


def _question(q: QuestionState) -> dict[str, Any]:
    return {
        "id": q.id,
        "text": q.text,
        "catch_all": q.catch_all_reserve,
        "playbook": q.playbook,
        "seq": q.proposed_seq,
        "evidence": q.evidence_count,
        "sums": q.node_sums,
        "support": [[top, list(kinds.items())] for top, kinds in q.support.items()],
        "nodes": [
            [
                n.id,
                n.parent_id,
                n.text,
                n.prior,
                n.meaning,
                n.retired,
                n.retired_reason,
                n.proposed_seq,
            ]
            for n in q.nodes.values()
        ],
    }


def _interned(values: list[Any]) -> tuple[list[int], list[Any]]:
    """Each value replaced by its position in a table of the distinct values.

    Python calls 1, 1.0 and True equal, and 0.0 and -0.0, and none of them may merge: values
    of one type, unless they are floats with a zero among them, go the fast way, through a
    dict (where equal means identical); the rest are keyed by (type, repr).
    """
    distinct = list(dict.fromkeys(values))
    types = {v.__class__ for v in distinct}
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


def _evidence(p: Projection, binary: _Binary) -> dict[str, Any]:
    states = list(p.evidence.values())
    positions = {qid: k for k, qid in enumerate(p.questions)}
    likelihoods = [s.likelihoods for s in states]
    names, name_table = _interned(list(itertools.chain.from_iterable(likelihoods)))
    values = list(itertools.chain.from_iterable(map(dict.values, likelihoods)))
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
            binary.floats(values),
        ],
        "hash": binary.digests([s.hash for s in states]),
        "superseded": [
            [k, s.superseded_by] for k, s in enumerate(states) if s.superseded_by is not None
        ],
    }
    for key in _OPTIONAL:
        columns[key] = {"none": len(states)} if plain else binary.values(field(key))
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


def _stubs(
    records: dict[int, dict[str, Any]],
    hashes: dict[int, str],
    keys: tuple[str, ...],
    varying: tuple[str, ...],
    binary: _Binary,
) -> dict[str, Any]:
    """Stubs as a table of distinct shapes (the keys that repeat) plus per-record columns.

    A key whose value is null is left out, as the catalogue leaves out absent fields. Shapes
    are matched by comparing value tuples within a bucket of the same probe (a case runs a few
    probes many times), which is cheaper than hashing nested values on a long case. Python
    calls 1, 1.0 and true equal, so they would share a shape; validated payloads never mix
    them in one field.
    """
    shape_keys = tuple(k for k in keys if k not in varying)
    probe_at = shape_keys.index("probe")
    seen: list[tuple[Any, ...]] = []
    buckets: dict[Any, list[int]] = {}
    shape_column: list[int] = []
    last: tuple[Any, ...] | None = None
    last_index = -1
    for values in [tuple(map(record.get, shape_keys)) for record in records.values()]:
        if values == last:  # runs of the same probe come in bursts
            shape_column.append(last_index)
            continue
        probe = values[probe_at]
        bucket = buckets.setdefault(probe if probe.__class__ is str else repr(probe), [])
        for index in bucket:
            if seen[index] == values:
                break
        else:
            index = len(seen)
            seen.append(values)
            bucket.append(index)
        shape_column.append(index)
        last, last_index = values, index
    shapes = [
        {k: v for k, v in zip(shape_keys, values, strict=True) if v is not None} for values in seen
    ]
    out: dict[str, Any] = {
        "seq": binary.ints(list(records)),
        "hash": binary.digests([hashes.get(seq) for seq in records]),
        "shape": binary.ints(shape_column, below=len(seen)),
        "shapes": shapes,
    }
    for key in varying:
        column = [record.get(key) for record in records.values()]
        out[key] = binary.digests(column) if key.endswith("_artifact") else binary.values(column)
    return out


# --- restore ----------------------------------------------------------------------------------


def restore_fold(data: bytes | bytearray | memoryview) -> Projection:
    """The projection a :func:`dump_fold` described, ready to continue folding.

    Raises :class:`FoldUnreadable` for anything that is not an intact fold of this
    :data:`ENGINE_VERSION`.
    """
    text, section = _unwrap(data)
    with collector_paused():
        try:
            state = json.loads(text)
            _check(state.__class__ is dict, "not a JSON object")
            _check(state["binary"] == len(section), "binary section of the wrong size")
            return _projection(state, _Section(section))
        except FoldUnreadable:
            raise
        except Exception as error:  # anything malformed inside an intact envelope
            raise FoldUnreadable(f"saved fold does not hold a valid state: {error!r}") from None


def _unwrap(data: object) -> tuple[bytes, bytes]:
    """The JSON text and the binary section, once the header and digest check out."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise FoldUnreadable(f"saved fold must be bytes, not {type(data).__name__}")
    raw = bytes(data)
    header, newline, rest = raw.partition(b"\n")
    parts = header.split(b" ")
    if not newline or len(parts) != 3 or parts[0] != _MAGIC:
        raise FoldUnreadable("not a saved fold (no casefile-fold header)")
    version = parts[1].decode("ascii", "replace")
    if version != ENGINE_VERSION:
        raise FoldUnreadable(f"saved fold is of engine {version!r}; this is {ENGINE_VERSION!r}")
    if hashlib.sha256(rest).hexdigest().encode("ascii") != parts[2]:
        raise FoldUnreadable("saved fold is damaged (its digest does not match)")
    try:
        inflater = zlib.decompressobj()
        text = inflater.decompress(rest, MAX_BODY_BYTES)
    except zlib.error as error:
        raise FoldUnreadable(f"saved fold does not inflate: {error}") from None
    if inflater.unconsumed_tail or not inflater.eof:
        raise FoldUnreadable("saved fold is truncated or larger than allowed")
    return text, inflater.unused_data


def _is_rule(rule: Any) -> bool:
    """A rule reference as evidence and set-asides carry it: ``{"id": str, "version": int}``."""
    return (
        rule.__class__ is dict
        and rule.get("id").__class__ is str
        and rule.get("version").__class__ is int
    )


def _projection(state: dict[str, Any], section: _Section) -> Projection:
    case_id, title, symptom, base_seq, base_hash = state["case"]
    _check(base_seq.__class__ is int and base_seq >= 0, "case seq")
    _check(case_id.__class__ is str and base_hash.__class__ is str, "case id or hash")
    _check(title.__class__ is str and symptom.__class__ in (str, _NONE), "case title")
    concluded = state["concluded"]
    _check(
        concluded is None
        or (concluded.__class__ is dict and concluded.get("seq").__class__ is int),
        "concluded",
    )
    p = Projection(
        case_id=case_id,
        title=title,
        symptom=symptom,
        concluded=concluded,
        base_seq=base_seq,
        base_hash=base_hash,
    )
    for entry in state["questions"]:
        question = _restore_question(entry)
        _check(question.id not in p.questions, f"question {question.id!r} twice")
        p.questions[question.id] = question
        p.snapshots[question.id] = question.snapshot()
    nodes = sorted(
        (node for q in p.questions.values() for node in q.nodes.values()),
        key=lambda node: node.proposed_seq,
    )
    for node in nodes:
        _check(node.id not in p.hypothesis_question, f"hypothesis {node.id!r} twice")
        p.hypothesis_question[node.id] = node.question_id
    _restore_evidence(p, state["evidence"], section)
    p.probe_runs, p.probe_run_hashes = _restore_stubs(state["probe_runs"], _RUN_VARYING, section)
    p.observations, p.observation_hashes = _restore_stubs(
        state["observations"], _OBSERVATION_VARYING, section
    )
    set_asides = _all(state["set_asides"], (dict,), "set-aside records")
    for record in set_asides:
        _check(record.get("seq").__class__ is int, "set-aside seq")
        _check(record.get("observation_seq").__class__ is int, "set-aside reading")
        _check(record.get("reason").__class__ is str, "set-aside reason")
        _check(_is_rule(record.get("rule")), "set-aside rule")
    p.set_asides = set_asides
    for record in _all(state["experiments"], (dict,), "experiment records"):
        _check(record.get("seq").__class__ is int, "experiment seq")
        _check(record.get("experiment_id").__class__ is str, "experiment id")
        _check(record.get("hash").__class__ is str, "experiment hash")
        for key in ("baseline_seq", "variant_seq"):
            _check(record.get(key).__class__ in (int, _NONE), f"experiment {key}")
        _check(record.get("speedup").__class__ in _NUMBER, "experiment speedup")
        _check(record["experiment_id"] not in p.experiments, "experiment twice")
        p.experiments[record["experiment_id"]] = record
    environment = state["environment"]
    _check(
        environment.__class__ is dict
        and all(k.__class__ is str and v.__class__ is str for k, v in environment.items()),
        "environment",
    )
    p.environment = environment
    p.warnings = _restore_warnings(state["warnings"], p)
    _restore_decisive(p, state["decisive"], section)
    return p


def _restore_question(entry: dict[str, Any]) -> QuestionState:
    qid = entry["id"]
    _check(qid.__class__ is str and entry["text"].__class__ is str, "question id or text")
    nodes = []
    for hid, parent, text, prior, meaning, retired, reason, seq in entry["nodes"]:
        _check(hid.__class__ is str and parent.__class__ in (str, _NONE), f"node of {qid!r}")
        _check(text.__class__ is str and meaning.__class__ in (str, _NONE), f"node {hid!r}")
        _check(prior.__class__ in _NUMBER and 0.0 < prior <= 1.0, f"prior of {hid!r}")
        _check(retired.__class__ is bool and seq.__class__ is int, f"node {hid!r}")
        _check(reason.__class__ in (str, _NONE), f"retirement of {hid!r}")
        nodes.append(
            HypothesisNode(
                id=hid,
                question_id=qid,
                parent_id=parent,
                text=text,
                prior=prior,
                meaning=meaning,
                retired=retired,
                retired_reason=reason,
                proposed_seq=seq,
            )
        )
    ids = {n.id for n in nodes}
    support: dict[str, dict[str, int]] = {}
    for top, kinds in entry["support"]:
        _check(top in ids, f"support for {top!r}")
        support[top] = {kind: count for kind, count in kinds}
        _all(list(support[top]), (str,), "support kinds")
        _all(list(support[top].values()), (int,), "support counts")
    catch_all = entry["catch_all"]
    _check(catch_all.__class__ in _NUMBER, "catch-all reserve")
    evidence_count, proposed = entry["evidence"], entry["seq"]
    _check(evidence_count.__class__ is int and proposed.__class__ is int, "question counts")
    _check(entry["playbook"].__class__ in (str, _NONE), "playbook")
    return QuestionState.restored(
        id=qid,
        text=entry["text"],
        catch_all_reserve=catch_all,
        playbook=entry["playbook"],
        proposed_seq=proposed,
        nodes=nodes,
        sums=_all(entry["sums"], (int,), f"sums of {qid!r}"),
        evidence_count=evidence_count,
        support=support,
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
        names: list[str],
        values: list[float],
        core: dict[str, list[Any]],
        optional: dict[str, list[Any]],
        other: dict[int, dict[str, Any]],
    ) -> None:
        self.ids = ids
        self.questions = questions
        self.starts = starts
        self.names = names
        self.values = values
        self.core = core  # otherwise, kind, reliability, rationale
        self.optional = optional
        self.other = other

    def likelihoods(self, position: int) -> dict[str, float]:
        start, end = self.starts[position], self.starts[position + 1]
        return dict(zip(self.names[start:end], self.values[start:end], strict=True))

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
    return _picks(section.ints(indices, what), _all(table, types, what), what)


def _restore_evidence(p: Projection, columns: dict[str, Any], section: _Section) -> None:
    ids = _all(columns["id"], (str,), "evidence ids")
    count = len(ids)
    seqs = section.ints(columns["seq"], "evidence seqs")
    questions = _picks(
        section.ints(columns["question"], "evidence questions"),
        list(p.questions),
        "evidence questions",
    )
    otherwise = _interned_column(columns["otherwise"], section, _NUMBER, "otherwise")
    _check(all(0.0 < o <= 1.0 for o in columns["otherwise"][1]), "otherwise values")
    reliability = _interned_column(columns["reliability"], section, _NUMBER, "reliability")
    _check(all(0.0 <= r <= 1.0 for r in columns["reliability"][1]), "reliabilities")
    kinds = _interned_column(columns["kind"], section, (str,), "kinds")
    rationales = _interned_column(columns["rationale"], section, (str,), "rationales")
    support_sets = [frozenset(_all(tops, (str,), "supports")) for tops in columns["supports"][1]]
    supports = _picks(section.ints(columns["supports"][0], "supports"), support_sets, "supports")
    counts, name_index, name_table, value_column = columns["likelihoods"]
    counts = section.ints(counts, "likelihood counts")
    starts = [0, *itertools.accumulate(counts)]
    _check(min(counts, default=1) >= 1, "likelihood counts")
    _all(name_table, (str,), "likelihood names")
    _check(all(h in p.hypothesis_question for h in name_table), "likelihood names")
    names = _picks(section.ints(name_index, "likelihood names"), name_table, "likelihoods")
    values = section.floats(value_column, len(names), "likelihood values")
    _all(values, _NUMBER, "likelihood values")
    _check(not values or (min(values) > 0.0 and max(values) <= 1.0), "likelihood values")
    _check(starts[-1] == len(names), "likelihood columns")
    hashes = section.digests(columns["hash"], count, "evidence hashes")
    _check(None not in hashes, "evidence hashes")
    optional = {key: section.values(columns[key], count, key) for key in _OPTIONAL}
    _check(_only(optional["probe_run_seq"], int, _NONE), "run seqs")
    _check(_only(optional["observation_seq"], int, _NONE), "obs seqs")
    _check(all(rule is None or _is_rule(rule) for rule in optional["rule"]), "rules")
    _check(_only(optional["statistic"], float, int, str, _NONE), "statistics")
    _check(_only(optional["outcome"], str, _NONE), "outcomes")
    _check(_only(optional["supersedes"], str, _NONE), "supersedes")
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
    saved = _SavedColumns(ids, questions, starts, names, values, core, optional, other)
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


def _restore_stubs(
    columns: dict[str, Any], varying: tuple[str, ...], section: _Section
) -> tuple[dict[int, dict[str, Any]], dict[int, str]]:
    seqs = section.ints(columns["seq"], "stub seqs")
    shapes = _all(columns["shapes"], (dict,), "stub shapes")
    for shape in shapes:  # what graph building and views read
        _check(shape.get("probe").__class__ is str, "stub probe")
        _check(shape.get("conditions", {}).__class__ is dict, "stub conditions")
        if "probe_run_seq" in varying:
            problems = shape.get("problems", [])
            _check(problems.__class__ is list and _only(problems, str), "stub problems")
            _check(shape.get("parsed", True).__class__ is bool, "stub parsed")
        else:
            _check(shape.get("host").__class__ is str, "stub host")
    shape_of = _picks(section.ints(columns["shape"], "stub shapes"), shapes, "stub shapes")
    _check(len(shape_of) == len(seqs), "stub shapes")
    hashes = section.digests(columns["hash"], len(seqs), "stub hashes")
    records = {seq: dict(shape) for seq, shape in zip(seqs, shape_of, strict=True)}
    _check(len(records) == len(seqs), "stub seqs given twice")
    for key in varying:
        column = (
            section.digests(columns[key], len(seqs), key)
            if key.endswith("_artifact")
            else section.values(columns[key], len(seqs), key)
        )
        _check(_only(column, str, int, _NONE), key)
        if key == "probe_run_seq":
            _check(_only(column, int), key)  # every observation names its run
        for seq, value in zip(seqs, column, strict=True):
            if value is not None:
                records[seq][key] = value
    return records, {seq: h for seq, h in zip(seqs, hashes, strict=True) if h is not None}


def _restore_warnings(saved: dict[str, Any], p: Projection) -> WarningTracker:
    active = []
    for code, message, seq, question, subject in saved["active"]:
        _check(code.__class__ is str and message.__class__ is str, "warning")
        _check(seq.__class__ is int and question in (None, *p.questions), "warning")
        _check(subject.__class__ in (str, _NONE), "warning subject")
        active.append(CaseWarning(code, message, seq, question, subject))
    leaders: dict[str, tuple[str, bool]] = {}
    for qid, leader, unmeasured in saved["leaders"]:
        _check(qid in p.questions and unmeasured.__class__ is bool, "leader state")
        _check(leader.__class__ is str, "leader state")
        leaders[qid] = (leader, unmeasured)
    catch_all: dict[str, bool] = {}
    for qid, rising in saved["catch_all"]:
        _check(qid in p.questions and rising.__class__ is bool, "catch-all state")
        catch_all[qid] = rising
    tracker = WarningTracker.restored(active, leaders, catch_all)
    _check(len(tracker.active) == len(active), "a warning given twice")
    return tracker
