"""Typed reads of what the fold keeps as stored dicts: observations, and the likelihoods it
keeps with each evidence.

Every other payload a reader needs is validated into its model and read by attribute (1.4-4 us
an ``evidence.assessed``). These are kept as stored instead: an ``observation.recorded``
validates in 48-74 us with 83 facts (every fact a model) and a ``probe.ran`` in about 6 us; the
fold keeps both as written, and a fold restored from its saved state holds only stubs of them
(no facts, a few keys of a run), which would not validate. The functions here are the one
place those dicts are read by key: one field at a time, with the type the model gives it and,
where the field is absent, the model's own default.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from casefile.domain.event_types.base import Fields
from casefile.domain.event_types.probe import ObservationRecorded


def _default(model: type[BaseModel], name: str) -> Any:
    """The value ``model`` gives ``name`` when a payload leaves it out."""
    return model.model_fields[name].get_default(call_default_factory=True)


_PARSED: bool = _default(ObservationRecorded, "parsed")


def unparsed_run(fields: Fields) -> int | None:
    """The probe run an ``observation.recorded`` payload, as stored, says it could not parse;
    None when it parsed (all the fold reads of an observation)."""
    if fields.get("parsed", _PARSED):
        return None
    return int(fields["probe_run_seq"])


def kept_likelihoods(fields: Fields) -> dict[str, float]:
    """The likelihoods of an ``evidence.assessed`` payload as stored (its model validated
    them): the dict the fold applies and keeps with the evidence. The model's copy holds the
    same numbers, but keeping it would hold a second dict per evidence beside the stored
    payload, which the fold keeps too (5.2 MB more traced memory, +12 %, folding the
    100,000-event bench case of 28,198 evidence events)."""
    likelihoods: dict[str, float] = fields["likelihoods"]
    return likelihoods
