"""The names of the facts each observation holds, without its facts.

A fold restored from a snapshot keeps no observation's facts (they can be megabytes on a long
case); it keeps their names instead, so a reader looking for a fact (intake's answers the case
already holds) reads from the store only the observations that hold one of that name. The
names are saved with the fold (``fold_codec``: sorted, one tuple per observation) and restored
into the fold's indexes; a fold of the events reads them from the payloads it holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from casefile.domain.beliefs.projection import Projection

#: the key of the restored names (observation seq → sorted names) in ``Projection.indexes``
INDEX = "fact-names"


def fact_names(projection: Projection, seq: int) -> tuple[str, ...] | None:
    """The sorted distinct names of the facts observation ``seq`` holds; ``None`` when the
    fold does not know them (read the observation's facts from the store)."""
    payload = projection.observations.get(seq)
    if payload is None:
        return None
    facts = payload.get("facts")
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
