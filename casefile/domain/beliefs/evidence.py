"""One piece of evidence as folded: the numbers it applied, where it came from, its hash.

Kept apart from the fold (:mod:`casefile.domain.beliefs.projection`) because a restored fold
(:mod:`casefile.domain.beliefs.fold_codec`) builds tens of thousands of these without their
payload dicts, reading fields from saved columns only when asked.
"""

from __future__ import annotations

from typing import Any, Protocol

from casefile.domain.beliefs.question import EvidenceEffect, Surprise


class SavedEvidence(Protocol):
    """Where restored evidence reads what it was not given up front (see ``fold_codec``)."""

    def likelihoods(self, position: int) -> dict[str, float]: ...

    def field(self, position: int, key: str) -> Any: ...

    def payload(self, position: int, likelihoods: dict[str, float]) -> dict[str, Any]: ...

    def hash(self, position: int) -> str: ...

    def beyond(self, position: int, known: frozenset[str]) -> dict[str, Any]: ...


class EvidenceState:
    """One piece of evidence as folded: the numbers it applied and where it came from.

    The fields a fold needs are set directly; the rest are read from the stored payload on
    demand (a long case folds tens of thousands of these). ``hash`` is the hash of its
    ``evidence.assessed`` event, for views that link to it.

    ``effect`` (on the tree of its day) and ``surprise`` (under the belief just before it)
    describe the moment it was folded; evidence restored from a saved fold (``fold_codec``)
    has neither, like the trajectory it belongs to, and they are then ``None``. Restored
    evidence also reads its likelihoods, payload fields and hash from the saved columns when
    first asked (building ten thousand dicts nobody reads would be most of a restore's time).
    """

    __slots__ = (
        "_hash",
        "_likelihoods",
        "_payload",
        "_position",
        "_saved",
        "effect",
        "id",
        "kind",
        "otherwise",
        "question_id",
        "reliability",
        "seq",
        "superseded_by",
        "supports",
        "surprise",
    )

    def __init__(
        self,
        id: str,
        seq: int,
        question_id: str,
        likelihoods: dict[str, float] | None,
        otherwise: float,
        kind: str,
        reliability: float,
        payload: dict[str, Any] | None,
        effect: EvidenceEffect | None,
        surprise: Surprise | None,
        supports: frozenset[str],
        hash: str | None,
        saved: SavedEvidence | None = None,
        position: int = 0,
    ) -> None:
        self.id = id
        self.seq = seq
        self.question_id = question_id
        self._likelihoods = likelihoods
        self.otherwise = otherwise
        self.kind = kind
        self.reliability = reliability
        self._payload = payload
        self.effect = effect
        self.surprise = surprise
        self.supports = supports
        self._hash = hash
        self.superseded_by: str | None = None
        self._saved = saved
        self._position = position

    @property
    def hash(self) -> str:
        """The hash of the ``evidence.assessed`` event (read from the saved columns when
        first asked, if restored without it)."""
        found = self._hash
        if found is None:
            assert self._saved is not None, "evidence without a hash or saved columns"
            found = self._hash = self._saved.hash(self._position)
        return found

    @hash.setter
    def hash(self, value: str) -> None:
        self._hash = value

    @property
    def likelihoods(self) -> dict[str, float]:
        """P(E | h) for each hypothesis the evidence names, as stored."""
        found = self._likelihoods
        if found is None:
            assert self._saved is not None, "evidence without likelihoods or saved columns"
            found = self._likelihoods = self._saved.likelihoods(self._position)
        return found

    @property
    def payload(self) -> dict[str, Any]:
        """The ``evidence.assessed`` payload (rebuilt from the saved columns if restored)."""
        found = self._payload
        if found is None:
            assert self._saved is not None, "evidence without a payload or saved columns"
            found = self._payload = self._saved.payload(self._position, self.likelihoods)
        return found

    @property
    def held_payload(self) -> dict[str, Any] | None:
        """The payload dict if this state holds one (restored evidence may not yet)."""
        return self._payload

    def fields_beyond(self, known: frozenset[str]) -> dict[str, Any]:
        """The payload's fields not in ``known``, without building a restored payload."""
        payload = self._payload
        if payload is None:
            assert self._saved is not None, "evidence without a payload or saved columns"
            return self._saved.beyond(self._position, known)
        if known.issuperset(payload):
            return {}
        return {key: value for key, value in payload.items() if key not in known}

    def payload_field(self, key: str) -> Any:
        """One field of the payload, ``None`` if absent (restored evidence builds no dict)."""
        payload = self._payload
        if payload is not None:
            return payload.get(key)
        assert self._saved is not None, "evidence without a payload or saved columns"
        return self._saved.field(self._position, key)

    @property
    def surprise_bits(self) -> float | None:
        """−log₂ P(E) under the belief just before; ``None`` when restored from a saved fold."""
        return None if self.surprise is None else self.surprise.bits

    @property
    def rationale(self) -> str:
        value = self.payload_field("rationale")
        return "" if value is None else str(value)

    @property
    def rule(self) -> dict[str, Any] | None:
        rule: dict[str, Any] | None = self.payload_field("rule")
        return rule

    @property
    def outcome(self) -> str | None:
        outcome: str | None = self.payload_field("outcome")
        return outcome

    @property
    def statistic(self) -> float | str | None:
        statistic: float | str | None = self.payload_field("statistic")
        return statistic

    @property
    def observation_seq(self) -> int | None:
        seq: int | None = self.payload_field("observation_seq")
        return seq

    @property
    def probe_run_seq(self) -> int | None:
        seq: int | None = self.payload_field("probe_run_seq")
        return seq

    @property
    def supersedes(self) -> str | None:
        old: str | None = self.payload_field("supersedes")
        return old

    @property
    def experiment_id(self) -> str | None:
        """The experiment this evidence reads, if it reads one."""
        experiment: str | None = self.payload_field("experiment_id")
        return experiment

    @property
    def active(self) -> bool:
        return self.superseded_by is None
