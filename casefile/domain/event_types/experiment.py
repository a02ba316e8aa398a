"""A/B experiments: two runs (or stated figures, or an outcome in words) around one change."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from casefile.domain.event_types.base import EventType, Fields, NarrativeLine, Payload

#: An experiment's outcome stated in words, with no figures.
StatedOutcome = Literal["fixed", "better", "same", "worse"]


class ExperimentRecorded(Payload):
    """Two runs of one benchmark that differ in one stated change, and what each measured; or
    (``stated``) the outcome a person gives in words, with no figures at all.

    ``speedup`` is how much better the variant did (above 1 is better, whichever way the
    metric runs), stored so that replay never recomputes it. It is absent, with
    ``higher_is_better``, when nothing said which way is better (a unit that is neither a
    duration nor a rate): the figures are kept and no rule reads them."""

    experiment_id: str = Field(min_length=1)
    change: str = Field(min_length=1)
    #: the two probe runs compared; absent on a reported experiment (figures a person gives)
    baseline_seq: int | None = Field(default=None, ge=1)
    variant_seq: int | None = Field(default=None, ge=1)
    #: the benchmark; required with figures, optional with a stated outcome
    probe: str | None = Field(default=None, min_length=1)
    metric: str | None = Field(default=None, min_length=1)
    baseline_value: float | None = Field(default=None, gt=0.0)
    variant_value: float | None = Field(default=None, gt=0.0)
    speedup: float | None = Field(default=None, gt=0.0)
    #: every experiment written before directions could stay unsaid states it
    higher_is_better: bool | None = None
    unit: str | None = None
    note: str | None = None
    #: true for figures stated rather than measured here ("27 GB/s before, 48 after")
    reported: bool | None = None
    #: the outcome in words ("fixed by that setting", "no slowdown since"), with no figures
    stated: StatedOutcome | None = None
    #: the hypotheses the person named it a test of (``--tests``): read by the generic table
    tests: list[Annotated[str, Field(min_length=1)]] | None = Field(default=None, min_length=1)
    #: an earlier experiment this one tells again (a thread's closing "fixed by -t 7" retelling
    #: the A/B it ran hours before): its evidence supersedes that one's, so the one finding
    #: counts once, in its latest telling
    restates: str | None = Field(default=None, min_length=1)
    #: the experiment rule a person named to read it (``--rule``): kept, so that an answer
    #: given later never hands it to the rule the playbook would choose
    #: (:mod:`casefile.app.experiment_rereading`); absent where the playbook chose
    named_rule: str | None = Field(default=None, min_length=1)
    #: true where the playbook chose the rule that reads it (no rule or hypotheses named): an
    #: answer given later reads it again as the answers then choose; absent where a person
    #: chose, and on A/Bs recorded before casefile read them again (left as they were read)
    chosen: bool | None = None
    #: true where reported figures were taken as measured by the probe the reading rule
    #: measures such a unit with (no probe named): read again, they are taken as the new
    #: rule's (its noise margin is the probe's)
    probe_inferred: bool | None = None

    @model_validator(mode="after")
    def _runs_or_reported(self) -> ExperimentRecorded:
        if (self.speedup is None) != (self.higher_is_better is None):
            raise ValueError("a speedup needs the direction it was taken in, and only then")
        figures = (self.metric, self.baseline_value, self.variant_value, self.speedup)
        if self.stated is not None:
            if not self.reported or any(f is not None for f in figures):
                raise ValueError("an outcome stated in words is reported, with no figures")
        elif self.probe is None or any(f is None for f in figures[:3]):
            raise ValueError("an experiment needs its probe, metric and both figures")
        if self.reported:
            if self.baseline_seq is not None or self.variant_seq is not None:
                raise ValueError("a reported experiment names no runs")
        elif self.baseline_seq is None or self.variant_seq is None:
            raise ValueError("an experiment needs its baseline_seq and variant_seq")
        return self


def experiment_text(p: Fields) -> str:
    """An experiment in one line: its id, the change, the runs (or "reported figures"), the
    metric before and after, and the speedup (the log and the report's timeline show this)."""
    if p.get("stated"):
        seen = f" on {p['probe']}" if p.get("probe") else ""
        return f"{p['experiment_id']}: {p['change']} — stated{seen}: {p['stated']} (no figures)"
    unit = f" {p['unit']}" if p.get("unit") else ""
    runs = (
        f"{p['probe']}, reported figures"
        if p.get("reported")
        else f"{p['probe']} seq {p['baseline_seq']} vs seq {p['variant_seq']}"
    )
    ratio = (
        f" ({p['speedup']:.2f}×)"
        if p.get("speedup") is not None
        else " (which way is better unsaid: not read)"
    )
    return (
        f"{p['experiment_id']}: {p['change']} — {runs}: {p['metric']} "
        f"{p['baseline_value']:g} → {p['variant_value']:g}{unit}{ratio}"
    )


def _recorded(p: Fields) -> str:
    tests = f" [named a test of {', '.join(p['tests'])}]" if p.get("tests") else ""
    again = f" [restates {p['restates']}]" if p.get("restates") else ""
    named = f" [rule {p['named_rule']} named to read it]" if p.get("named_rule") else ""
    return "experiment " + experiment_text(p) + tests + again + named


EXPERIMENT_RECORDED = EventType(
    "experiment.recorded",
    1,
    ExperimentRecorded,
    label="experiment",
    summary=_recorded,
    narrative=lambda p, ctx: NarrativeLine(experiment_text(p)),
    folded=True,
    artifact_fields=(),
    redact_fields={"change": "text", "note": "text"},
    detail=lambda p: str(p["note"]) if p.get("note") else None,
)

#: The types of this family, as :data:`~casefile.domain.event_types.EVENT_TYPES` lists them.
TYPES = (EXPERIMENT_RECORDED,)
