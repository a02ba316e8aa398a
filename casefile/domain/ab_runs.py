"""The two runs of an A/B: what each measured, whether they are one benchmark's, and the
figure they are compared by. An A/B compares one benchmark before and after one change, so
two runs of different probes or GPU models are refused before anything is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casefile.domain.beliefs.projection import Projection
from casefile.domain.experiments import measure
from casefile.domain.facts import Fact
from casefile.domain.units import normal_unit
from casefile.errors import DomainError, Remedy

__all__ = ["GPU_MODEL_FACTS", "NAME_THE_METRIC", "Measured", "check_pair", "choose_metric"]

#: facts that name the GPU a run measured: two runs on different GPU models are no A/B
GPU_MODEL_FACTS = ("nccl.device", "name", "gpu.name")
#: the remedy of an experiment whose runs share no figure, as each front end's control
NAME_THE_METRIC = Remedy("names the fact to compare", "metric")


@dataclass(frozen=True)
class Measured:
    """What one run of an experiment measured: the metric and its value."""

    seq: int
    probe: str
    host: str
    facts: Sequence[Fact]


def _models(facts: Sequence[Fact]) -> set[str]:
    return {str(f.value) for f in facts if f.name in GPU_MODEL_FACTS}


def check_pair(projection: Projection, baseline: Measured, variant: Measured) -> None:
    """Refuse two runs that are not an A/B of one benchmark."""
    if baseline.seq == variant.seq:
        raise DomainError("the baseline and the variant are the same run")
    for run in (baseline, variant):
        if run.seq not in projection.probe_runs:
            raise DomainError(f"seq {run.seq} is not a probe run of this case")
    if baseline.probe != variant.probe:
        raise DomainError(
            f"the baseline (seq {baseline.seq}) ran {baseline.probe} and the variant "
            f"(seq {variant.seq}) {variant.probe}: an experiment compares one benchmark"
        )
    old, new = _models(baseline.facts), _models(variant.facts)
    if old and new and not old & new:
        raise DomainError(
            f"the baseline ran on {', '.join(sorted(old))} and the variant on "
            f"{', '.join(sorted(new))}: not the same kind of GPU, so not one change"
        )


def choose_metric(
    names: Sequence[str], baseline: Measured, variant: Measured
) -> tuple[str, float, float]:
    """The first of ``names`` both runs measured: (name, baseline value, variant value).
    Where none is in both, the refusal says which figures both runs do hold, so the one
    meant can be named."""
    try:
        return _first_measured(names, baseline, variant)
    except DomainError as refused:
        held = _held(baseline.facts) & _held(variant.facts)
        if not held:
            raise
        raise DomainError(
            f"{refused}; both runs hold {', '.join(sorted(held))}", remedy=NAME_THE_METRIC
        ) from refused


def _held(facts: Sequence[Fact]) -> set[str]:
    """The names of a run's facts an A/B can compare: positive numbers."""
    return {
        fact.name
        for fact in facts
        if isinstance(fact.value, int | float)
        and not isinstance(fact.value, bool)
        and fact.value > 0
    }


def _first_measured(
    names: Sequence[str], baseline: Measured, variant: Measured
) -> tuple[str, float, float]:
    if not names:
        raise DomainError(
            "name the fact to compare, or state a change a rule reads", remedy=NAME_THE_METRIC
        )
    old, new = measure(names, baseline.facts), measure(names, variant.facts)
    apart: list[str] = []
    for name in names:
        if name in old and name in new:
            units = (_unit_of(name, baseline.facts), _unit_of(name, variant.facts))
            if None not in units and normal_unit(units[0]) != normal_unit(units[1]):
                # one fact name, two units (a log whose rate is tokens/s in one paste and
                # it/s in the other): two figures that cannot be divided
                apart.append(
                    f"{name} is {units[0]} in seq {baseline.seq}, {units[1]} in seq {variant.seq}"
                )
                continue
            return name, old[name], new[name]
    if apart:
        raise DomainError(
            f"no {' / '.join(names)} measured in one unit in both runs ({'; '.join(apart)})",
            remedy=NAME_THE_METRIC,
        )
    missing = [f"seq {r.seq}" for r, got in ((baseline, old), (variant, new)) if not got]
    raise DomainError(
        f"no {' / '.join(names)} measured in both runs"
        + (f" (none in {', '.join(missing)})" if missing else "")
    )


def _unit_of(name: str, facts: Sequence[Fact]) -> str | None:
    """The unit a run's facts of one name carry (the first that says one)."""
    return next((f.unit for f in facts if f.name == name and f.unit), None)
