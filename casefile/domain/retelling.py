"""An A/B told again: which earlier experiment it restates, and which evidence it replaces.

A finding told three times (the thread's figures, then a summary, then "fixed by that") is
one finding: a retelling supersedes the evidence of the telling it restates, so it counts once,
as its latest telling, except where the retelling knows less than a measurement the case holds.
"""

from __future__ import annotations

from typing import Any

from casefile.domain.beliefs.projection import Projection
from casefile.errors import DomainError

__all__ = ["measured_telling_stands", "restated", "superseded_by_retelling"]


def restated(projection: Projection, experiment_id: str | None) -> str | None:
    """The earlier experiment an experiment tells again, checked to be one of this case's."""
    if experiment_id is None or experiment_id in projection.experiments:
        return experiment_id
    known = ", ".join(projection.experiments) or "none yet"
    raise DomainError(f"no experiment {experiment_id!r} to restate (experiments: {known})")


def superseded_by_retelling(projection: Projection, experiment: dict[str, Any]) -> str | None:
    """The evidence a retelling replaces: the active evidence of the experiment it restates,
    found by following that evidence's supersessions (a finding told three times counts
    once, as its latest telling), and through a retelling read by nothing back to the one it
    retold; ``None`` when no telling in the chain was ever read."""
    restated = experiment.get("restates")
    seen: set[str] = set()
    # a retelling that was read by nothing (one of a measured A/B) retells what it restates:
    # follow the chain back to the telling that has evidence
    while restated is not None and restated not in seen:
        seen.add(restated)
        first = next(
            (eid for eid, e in projection.evidence.items() if e.experiment_id == restated), None
        )
        if first is not None:
            while not projection.evidence[first].active:
                following = projection.evidence[first].superseded_by
                if following is None:
                    break
                first = following
            return first
        restated = projection.experiments.get(restated, {}).get("restates")
    return None


def measured_telling_stands(projection: Projection, experiment: dict[str, Any]) -> str | None:
    """The measured evidence a person's retelling leaves standing, or None.

    A retelling counts once, as its latest telling, but not when it knows less: "fixed by
    -t 7" retelling an A/B whose two runs the case holds is a person's account of figures
    already read, and superseding them would swap a measurement for its paraphrase (a 2.4x
    speedup read again as a stated "better", with a stated word's lower reliability). So a
    reported retelling of measured evidence is recorded and read by nothing; the
    measurement stands."""
    if not experiment.get("reported"):
        return None
    standing = superseded_by_retelling(projection, experiment)
    if standing is None or projection.evidence[standing].kind != "measured":
        return None
    return standing
