"""The names of the facts each observation holds, without its facts.

A fold restored from a snapshot keeps no observation's facts (they can be megabytes on a long
case); it keeps their names instead, so a reader looking for a fact (intake's answers the case
already holds) reads from the store only the observations that hold one of that name. The
names are saved with the fold (``fold_codec``: sorted, one tuple per observation) and restored
into the fold's indexes; a fold of the events reads them from the payloads it holds.
"""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING, Any

from casefile.domain.event_types.stored import StoredObservation

if TYPE_CHECKING:
    from casefile.domain.beliefs.projection import Projection

#: the key of the restored names (observation seq → sorted names) in ``Projection.indexes``
INDEX = "fact-names"
#: the key of the restored observations grouped by their names (built when first asked)
GROUPS = "fact-names-groups"


def fact_names(projection: Projection, seq: int) -> tuple[str, ...] | None:
    """The sorted distinct names of the facts observation ``seq`` holds; ``None`` when the
    fold does not know them (read the observation's facts from the store)."""
    payload = projection.observations.get(seq)
    if payload is None:
        return None
    facts = StoredObservation(payload).held_facts
    if facts is not None:
        return names_of(facts)
    restored: dict[int, tuple[str, ...]] = projection.indexes.get(INDEX, {})
    return restored.get(seq)


def names_of(facts: Any) -> tuple[str, ...]:
    """The sorted distinct names of an observation payload's facts."""
    if not isinstance(facts, list):
        return ()
    return tuple(
        sorted({f["name"] for f in facts if isinstance(f, dict) and isinstance(f.get("name"), str)})
    )


def restored_holding(projection: Projection, wanted: frozenset[str]) -> tuple[int, list[int]]:
    """The seq the fold was restored at, and the restored observations (ascending) whose saved
    names include one of ``wanted``: the only ones before that seq that can hold such a fact.
    ``(0, [])`` for a fold of the events (it holds every observation's facts)."""
    restored: dict[int, tuple[str, ...]] | None = projection.indexes.get(INDEX)
    if restored is None:
        return 0, []
    groups: list[tuple[tuple[str, ...], list[int]]] | None = projection.indexes.get(GROUPS)
    if groups is None:
        # the saved names are one tuple per distinct set (interned): grouped by identity
        seqs, names = list(restored), list(restored.values())
        ids = list(map(id, names))
        order = sorted(range(len(seqs)), key=ids.__getitem__)  # stable: seqs stay ascending
        groups = [
            (names[members[0]], list(map(seqs.__getitem__, members)))
            for members in (list(run) for _, run in groupby(order, key=ids.__getitem__))
        ]
        projection.indexes[GROUPS] = groups
    holding = [seq for names, seqs in groups if not wanted.isdisjoint(names) for seq in seqs]
    return projection.base_seq, sorted(holding)
