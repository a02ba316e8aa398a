"""The rest of a saved fold: questions, run and observation stubs, decisive ranking, warnings.

Each is written as plain data (integer columns and digests into the binary section) and
checked entry by entry when restored.

The container (header, digest, compression) is :mod:`~casefile.domain.beliefs.fold_codec` and
the evidence columns :mod:`~casefile.domain.beliefs.fold_evidence`, so each reads on its own;
the layout of every entry is described in ``fold_codec``, whose
:data:`~casefile.domain.beliefs.fold_codec.ENGINE_VERSION` versions it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from itertools import repeat
from operator import attrgetter, setitem
from typing import Any

from casefile.domain.beliefs.fold_columns import Binary as _Binary
from casefile.domain.beliefs.fold_columns import Section as _Section
from casefile.domain.beliefs.fold_columns import all_of as _all
from casefile.domain.beliefs.fold_columns import check as _check
from casefile.domain.beliefs.fold_columns import only as _only
from casefile.domain.beliefs.fold_set_asides import restore_active
from casefile.domain.beliefs.nodes import HypothesisNode, Requirement
from casefile.domain.beliefs.projection import Projection
from casefile.domain.beliefs.question import QuestionState
from casefile.domain.beliefs.warnings import WarningTracker

_NUMBER = (float, int)
_NONE = type(None)
#: a probe run's optional texts a restored stub may keep
_RUN_TEXTS = ("error", "error_kind")
_SUPERSEDED_BY = attrgetter("superseded_by")
_ZERO = 0.0  # ``_ZERO.__le__(b)``: b >= 0.0, false for NaN


def dump_decisive(p: Projection, binary: _Binary) -> list[Any]:
    from casefile.domain.beliefs.scoring import decisive_ranking

    position = {eid: k for k, eid in enumerate(p.evidence)}
    ranked = decisive_ranking(p)
    return [
        binary.ints([position[state.id] for _, state in ranked], below=len(position)),
        binary.floats([bits for bits, _ in ranked]),
    ]


def restore_decisive(p: Projection, saved: Any, section: _Section) -> None:
    from casefile.domain.beliefs.scoring import keep_ranking

    _check(saved.__class__ is list and len(saved) == 2, "decisive ranking")
    positions = section.ints(saved[0], "decisive ranking")
    bits = section.floats(saved[1], len(positions), "decisive bits")
    states = list(p.evidence.values())
    _check(not positions or (min(positions) >= 0 and max(positions) < len(states)), "decisive")
    _check(len(set(positions)) == len(positions), "decisive ranking")
    _check(_only(bits, float) and sum(map(_ZERO.__le__, bits)) == len(bits), "decisive bits")
    ranked = list(zip(bits, map(states.__getitem__, positions), strict=True))
    # every active evidence ranked, and nothing else
    active = list(map(_SUPERSEDED_BY, states)).count(None)
    ranked_active = list(map(_SUPERSEDED_BY, map(states.__getitem__, positions))).count(None)
    _check(ranked_active == len(ranked) == active, "decisive ranking")
    keep_ranking(p, ranked)


def dump_question(q: QuestionState) -> dict[str, Any]:
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
                [[need.intake, list(need.answers)] for need in n.requires],
                n.inapplicable,
            ]
            for n in q.nodes.values()
        ],
        "answers": [[intake, answer, seq] for intake, (answer, seq) in q.answers.items()],
        "withdrawn": [[intake, eid] for intake, eid in q.withdrawn.items()],
    }


def dump_stubs(
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


def restore_question(entry: dict[str, Any]) -> QuestionState:
    qid = entry["id"]
    _check(qid.__class__ is str and entry["text"].__class__ is str, "question id or text")
    nodes = []
    for row in entry["nodes"]:
        _check(row.__class__ is list and len(row) == 10, f"node of {qid!r}")
        hid, parent, text, prior, meaning, retired, reason, seq, needs, inapplicable = row
        _check(hid.__class__ is str and parent.__class__ in (str, _NONE), f"node of {qid!r}")
        _check(inapplicable.__class__ in (str, _NONE), f"applicability of {hid!r}")
        _check(
            needs.__class__ is list
            and all(
                n.__class__ is list
                and len(n) == 2
                and n[0].__class__ is str
                and n[1].__class__ is list
                and _only(n[1], str)
                for n in needs
            ),
            f"requirements of {hid!r}",
        )
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
                requires=tuple(Requirement(n[0], tuple(n[1])) for n in needs),
                inapplicable=inapplicable,
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
    answers = {}
    for item in entry["answers"]:
        _check(item.__class__ is list and len(item) == 3, f"answers of {qid!r}")
        intake, answer, at = item
        _check(intake.__class__ is str and answer.__class__ is str, f"answers of {qid!r}")
        _check(at.__class__ is int, f"answers of {qid!r}")
        answers[intake] = (answer, at)
    withdrawn = {}
    for item in entry["withdrawn"]:
        _check(item.__class__ is list and len(item) == 2, f"withdrawn answers of {qid!r}")
        _all(item, (str,), f"withdrawn answers of {qid!r}")
        withdrawn[item[0]] = item[1]
    for node in nodes:
        _check(all(need.answers for need in node.requires), f"requirements of {node.id!r}")
    restored = QuestionState.restored(
        id=qid,
        text=entry["text"],
        catch_all_reserve=catch_all,
        playbook=entry["playbook"],
        proposed_seq=proposed,
        nodes=nodes,
        sums=_all(entry["sums"], (int,), f"sums of {qid!r}"),
        evidence_count=evidence_count,
        support=support,
        answers=answers,
        withdrawn=withdrawn,
    )
    # what applies follows from the requirements and the answers, never from the saved marks
    saved = {n.id: n.inapplicable for n in restored.nodes.values()}
    restored.settle_requirements()
    _check(
        all(restored.nodes[h].inapplicable == why for h, why in saved.items()),
        f"applicability of {qid!r}",
    )
    return restored


Stubs = dict[int, dict[str, Any]]
Hashes = dict[int, str]


def restore_stubs(
    columns: dict[str, Any], varying: tuple[str, ...], section: _Section
) -> tuple[Callable[[], Stubs], Callable[[], Hashes]]:
    """What builds the stubs and what builds their hashes (seq → hash), once every column is
    checked: building cannot fail, and a caller that never reads them never builds them (a
    long case has tens of thousands; their hashes are read as hex only then)."""
    seqs = section.ints(columns["seq"], "stub seqs")
    _check(len(set(seqs)) == len(seqs), "stub seqs given twice")
    shapes = _all(columns["shapes"], (dict,), "stub shapes")
    for shape in shapes:  # what graph building and views read
        _check(shape.get("probe").__class__ is str, "stub probe")
        _check(shape.get("conditions", {}).__class__ is dict, "stub conditions")
        if "probe_run_seq" in varying:
            problems = shape.get("problems", [])
            _check(problems.__class__ is list and _only(problems, str), "stub problems")
            _check(shape.get("parsed", True).__class__ is bool, "stub parsed")
        else:  # and what a run's detail reads (StoredRun)
            _check(shape.get("host").__class__ is str, "stub host")
            _check(shape.get("source").__class__ is str, "stub source")
            argv = shape.get("argv")
            _check(argv.__class__ is list and _only(argv, str), "stub argv")
            _check(shape.get("exit_status").__class__ in (int, _NONE), "stub exit status")
            _check(_only([shape.get(k) for k in _RUN_TEXTS], str, _NONE), "stub run texts")
            _check(shape.get("reconstructed", False).__class__ is bool, "stub reconstructed")
    shape_of = section.picks(columns["shape"], shapes, "stub shapes")
    _check(len(shape_of) == len(seqs), "stub shapes")
    hashes = _digests(columns["hash"], len(seqs), "stub hashes", section)
    values: dict[str, bytes | list[Any]] = {}
    for key in varying:
        if key.endswith("_artifact"):
            values[key] = _digests(columns[key], len(seqs), key, section)
            continue
        column = section.values(columns[key], len(seqs), key)
        _check(_only(column, str, int, _NONE), key)
        if key == "probe_run_seq":
            _check(_only(column, int), key)  # every observation names its run
        values[key] = column

    def records() -> Stubs:
        built = dict(zip(seqs, map(dict, shape_of), strict=True))  # each its own copy
        for key, held in values.items():
            column = _hexes(held)
            if None not in column:
                deque(map(setitem, built.values(), repeat(key), column), maxlen=0)  # C speed
                continue
            for seq, value in zip(seqs, column, strict=True):
                if value is not None:
                    built[seq][key] = value
        return built

    def seq_hashes() -> Hashes:
        column = _hexes(hashes)
        if None not in column:
            return dict(zip(seqs, column, strict=True))
        return {seq: h for seq, h in zip(seqs, column, strict=True) if h is not None}

    return records, seq_hashes


def _digests(column: Any, count: int, what: str, section: _Section) -> bytes | list[Any]:
    """A hash column, checked: its raw digests when it has no gap, else its hex list."""
    packed = section.packed_digests(column, count, what)
    if packed is not None:
        return packed
    found = section.digests(column, count, what)
    _check(_only(found, str, _NONE), what)
    return found


def _hexes(held: bytes | list[Any]) -> list[Any]:
    """A column as :func:`_digests` holds it, as hex (a list is as it was read)."""
    if isinstance(held, bytes):
        return held.hex(" ", 32).split(" ") if held else []
    return held


def restore_warnings(saved: dict[str, Any], p: Projection) -> WarningTracker:
    active, written = restore_active(saved["active"], p)
    leaders: dict[str, tuple[str, bool]] = {}
    for qid, leader, unmeasured in saved["leaders"]:
        _check(qid in p.questions and unmeasured.__class__ is bool, "leader state")
        _check(leader.__class__ is str, "leader state")
        leaders[qid] = (leader, unmeasured)
    catch_all: dict[str, bool] = {}
    for qid, rising in saved["catch_all"]:
        _check(qid in p.questions and rising.__class__ is bool, "catch-all state")
        catch_all[qid] = rising
    return WarningTracker.restored_lazily(active, p.set_asides, leaders, catch_all, written)
