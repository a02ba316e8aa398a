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
count]}`` (float64) and ``{"digests": [offset, count], "absent": <ints>}``; a column of
non-negative integers and nulls is ``{"nullable": <ints>}`` (each value plus one, 0 for null);
a column that does not fit (a big or non-integer value, a hash that is not 64 lowercase hex
digits) stays a JSON list, and an all-null column is ``{"none": count}``.

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
    concluded_hash  the hash of its event, or null
    questions     [{id, text, catch_all, playbook, seq, evidence, sums, support, nodes,
                  answers}]
                  nodes: [id, parent, text, prior, meaning, retired, reason, seq, requires,
                  inapplicable] in proposal
                  order; sums: each node's integer evidence sum; support: [[top, [[kind,
                  count], …]], …]
    evidence      columns, one entry per evidence in fold order: id, seq, question (index),
                  otherwise, reliability, kind, rationale, supports (interned: [column,
                  table]), likelihoods ([counts, names, name table, values, value table],
                  flattened and interned),
                  hash, the optional payload fields (the run and observation seqs as
                  integer columns, rule, outcome, statistic and supersedes interned), other
                  ([[position, {field: value}], …] for anything else) and superseded
                  ([[position, id], …])
    probe_runs    {seq, hash, shape, shapes, stdout_artifact, stderr_artifact}
    observations  {seq, hash, shape, shapes, probe_run_seq}
                  a stub is its shape (the keys that repeat from run to run) plus columns
    fact_names    [column, table]: each observation's sorted distinct fact names, interned
                  (see :mod:`~casefile.domain.beliefs.fact_names`)
    set_asides    the folded set-aside records (payload, seq, hash): {columns: {shapes,
                  shape, seq, observation_seq, hash}} or {list: [record, …]} (see
                  :mod:`~casefile.domain.beliefs.fold_set_asides`)
    experiments   the folded experiment records (payload, seq, hash), in seq order
    environment   the case's environment (``--env`` when it was opened)
    decisive      the current decisive ranking: [positions in the evidence columns, bits]
                  (scored once, when the fold was saved: a warm status reads it back)
    warnings      {active: [[code, message, seq, question, subject] or the position of the
                   set-aside record that raised it, …] in raised order,
                   leaders: [[question, leader, unmeasured], …], catch_all: [[question,
                   rising], …]}
    binary        the size of the binary section

This module is the container (header, digest, compression, size limit) and the case-level
fields; the evidence columns are :mod:`~casefile.domain.beliefs.fold_evidence`, the
questions, stubs, decisive ranking and warnings :mod:`~casefile.domain.beliefs.fold_state`,
and the binary columns they all write :mod:`~casefile.domain.beliefs.fold_columns`.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any

from casefile.domain.beliefs.fact_names import INDEX as FACT_NAMES
from casefile.domain.beliefs.fact_names import fact_names
from casefile.domain.beliefs.fold_columns import Binary as _Binary
from casefile.domain.beliefs.fold_columns import FoldUnreadable as FoldUnreadable
from casefile.domain.beliefs.fold_columns import Section as _Section
from casefile.domain.beliefs.fold_columns import all_of as _all
from casefile.domain.beliefs.fold_columns import check as _check
from casefile.domain.beliefs.fold_evidence import dump_evidence as _evidence
from casefile.domain.beliefs.fold_evidence import restore_evidence as _restore_evidence
from casefile.domain.beliefs.fold_set_asides import dump_active as _active
from casefile.domain.beliefs.fold_set_asides import dump_set_asides as _set_asides
from casefile.domain.beliefs.fold_set_asides import restore_set_asides as _restore_set_asides
from casefile.domain.beliefs.fold_state import dump_decisive as _decisive
from casefile.domain.beliefs.fold_state import dump_question as _question
from casefile.domain.beliefs.fold_state import dump_stubs as _stubs
from casefile.domain.beliefs.fold_state import restore_decisive as _restore_decisive
from casefile.domain.beliefs.fold_state import restore_question as _restore_question
from casefile.domain.beliefs.fold_state import restore_stubs as _restore_stubs
from casefile.domain.beliefs.fold_state import restore_warnings as _restore_warnings
from casefile.domain.beliefs.projection import Projection
from casefile.domain.collector import collector_paused

ENGINE_VERSION = "fold-10"

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
    leaders, catch_all = p.warnings.decided_state()
    return {
        "case": [p.case_id, p.title, p.symptom, p.last_seq, p.last_hash],
        "concluded": p.concluded,
        "concluded_hash": p.concluded_hash,
        "questions": [_question(q) for q in p.questions.values()],
        "evidence": _evidence(p, binary),
        "probe_runs": _stubs(
            p.probe_runs, p.probe_run_hashes, PROBE_RUN_KEYS, _RUN_VARYING, binary
        ),
        "observations": _stubs(
            p.observations, p.observation_hashes, OBSERVATION_KEYS, _OBSERVATION_VARYING, binary
        ),
        "fact_names": _fact_names(p, binary),
        "set_asides": _set_asides(p.set_asides, binary),
        "experiments": list(p.experiments.values()),
        "environment": p.environment,
        "decisive": _decisive(p, binary),
        "warnings": {
            "active": _active(p.warnings, p.set_asides),
            "leaders": [[q, leader, unmeasured] for q, (leader, unmeasured) in leaders.items()],
            "catch_all": [[q, rising] for q, rising in catch_all.items()],
        },
    }


def _fact_names(p: Projection, binary: _Binary) -> list[Any]:
    column = [fact_names(p, seq) or () for seq in p.observations]
    table = list(dict.fromkeys(column))
    position = {names: k for k, names in enumerate(table)}
    return [binary.ints([position[n] for n in column], below=len(table)), [list(t) for t in table]]


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
    concluded_hash = state["concluded_hash"]
    _check(concluded_hash.__class__ is (_NONE if concluded is None else str), "concluded hash")
    p = Projection(
        case_id=case_id,
        title=title,
        symptom=symptom,
        concluded=concluded,
        concluded_hash=concluded_hash,
        base_seq=base_seq,
        base_hash=base_hash,
        beliefs_seq=base_seq,
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
    # checked now, built when first read (a status reads no probe run and no hash)
    runs, run_hashes = _restore_stubs(state["probe_runs"], _RUN_VARYING, section)
    p.restore_later("probe_runs", runs)
    p.restore_later("probe_run_hashes", run_hashes)
    observations, observation_hashes = _restore_stubs(
        state["observations"], _OBSERVATION_VARYING, section
    )
    p.observations = observations()
    p.restore_later("observation_hashes", observation_hashes)
    indices, table = state["fact_names"]
    names = [tuple(_all(t, (str,), "fact names")) for t in _all(table, (list,), "fact names")]
    column = section.picks(indices, names, "fact names")
    _check(len(column) == len(p.observations), "fact names")
    p.indexes[FACT_NAMES] = dict(zip(p.observations, column, strict=True))
    p.set_asides = _restore_set_asides(state["set_asides"], section)
    for record in _all(state["experiments"], (dict,), "experiment records"):
        _check(record.get("seq").__class__ is int, "experiment seq")
        _check(record.get("experiment_id").__class__ is str, "experiment id")
        _check(record.get("hash").__class__ is str, "experiment hash")
        for key in ("baseline_seq", "variant_seq"):
            _check(record.get(key).__class__ in (int, _NONE), f"experiment {key}")
        # an A/B stated in words, or with figures whose direction is unknown, has none
        _check(record.get("speedup").__class__ in (*_NUMBER, _NONE), "experiment speedup")
        _check(record["experiment_id"] not in p.experiments, "experiment twice")
        # an experiment restates one recorded before it, as the fold checked
        restated = record.get("restates")
        _check(
            restated is None or (restated.__class__ is str and restated in p.experiments),
            "experiment restates",
        )
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
