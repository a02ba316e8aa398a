"""The evidence each observation gave: observation seq → evidence ids, in fold order.

Intake asks it of a known answer (was the reading it rests on already counted by a probe's
rule?) on every ``status``; walking a long case's evidence for it grew with the case. It is
kept in the fold's indexes and updated as evidence is folded (only new evidence is read:
evidence is only ever added). A fold restored from a snapshot starts it from the saved
evidence columns (``fold_evidence``): scanned for the first few questions, indexed after.
Whether each evidence is still active is asked of the fold when read, so superseding needs no
update here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby, islice
from operator import itemgetter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from casefile.domain.beliefs.projection import Projection

#: the key of :class:`ByObservation` in ``Projection.indexes``
INDEX = "evidence-by-observation"

_SEQ = itemgetter(0)
_ID = itemgetter(1)


@dataclass
class ByObservation:
    """Observation seq → the ids of the evidence that names it, over the first ``count``
    pieces of evidence."""

    count: int = 0
    ids: dict[int, list[str]] = field(default_factory=dict)
    #: a restored fold's evidence columns (observation seqs, ids), not yet indexed: the
    #: first questions scan them (a status asks a few, or none), later ones index them
    pending: tuple[list[int | None], list[str]] | None = None
    scans: int = 0

    def add(self, observation_seq: int | None, evidence_id: str) -> None:
        if observation_seq is not None:
            self.ids.setdefault(observation_seq, []).append(evidence_id)

    def add_columns(self, observation_seqs: list[int | None], evidence_ids: list[str]) -> None:
        """:meth:`add` for each pair, a run of evidence naming one observation at a time (the
        evidence of one reading is folded together)."""
        ids = self.ids
        for seq, run in groupby(zip(observation_seqs, evidence_ids, strict=True), key=_SEQ):
            if seq is not None:
                found = ids.get(seq)
                if found is None:
                    ids[seq] = list(map(_ID, run))
                else:
                    found.extend(map(_ID, run))


def evidence_of(projection: Projection, observation_seq: int) -> list[str]:
    """The ids of the evidence (active or not) that names observation ``observation_seq``,
    in fold order."""
    index: ByObservation = projection.indexes.setdefault(INDEX, ByObservation())
    evidence = projection.evidence
    new = len(evidence) - index.count
    if new > 0:
        for state in reversed(list(islice(reversed(evidence.values()), new))):
            index.add(state.observation_seq, state.id)
        index.count = len(evidence)
    found = index.ids.get(observation_seq, [])
    if index.pending is None:
        return found
    if index.scans < SCANS:
        index.scans += 1
        return _scan(*index.pending, observation_seq) + found
    # asked often (a session): the restored evidence indexed once, before what came since
    since, index.ids = index.ids, {}
    index.add_columns(*index.pending)
    index.pending = None
    for seq, ids in since.items():
        index.ids.setdefault(seq, []).extend(ids)
    return index.ids.get(observation_seq, [])


#: how many questions scan a restored fold's columns before they are indexed
SCANS = 8


def _scan(observation_seqs: list[int | None], evidence_ids: list[str], seq: int) -> list[str]:
    """The ids whose observation is ``seq``, by a scan at C speed."""
    found = []
    at = -1
    try:
        while True:
            at = observation_seqs.index(seq, at + 1)
            found.append(evidence_ids[at])
    except ValueError:
        return found
