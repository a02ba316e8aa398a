"""A reading or an A/B told twice is one finding, not two.

Evidence multiplies: the same pasted output, the same stated reading or the same reported A/B
recorded a second time (a paste sent twice, a thread quoting its own figures, a handover that
retells yesterday's result) would count its likelihood ratio twice and move the beliefs as if
two measurements agreed. A measured A/B of the same two runs is already refused
(:func:`casefile.domain.triage.record_experiment`); this module is the same guard for what a
person tells, where no run seq tells the copies apart.

What makes two records the same is everything they say except when they were recorded: the
probe, where and under what conditions, the output's digest, the change and its figures or
word, and the note. So a second run that really printed the same says so in its note ("the
second run"), and a finding told again on purpose names the record it retells
(``--restates``), so it counts once, as its latest telling.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from casefile.errors import DomainError, Remedy

#: what lets a reading that printed the same again through: a note saying which run it was
SAY_WHICH_RUN = Remedy("says which run this was, so the two are told apart", "note")
#: what lets an A/B told again through: it names the one it retells, and replaces its evidence
TELL_IT_AGAIN = Remedy("names the A/B it tells again, which then counts once", "restates")

#: the sources whose output a person brings: pasted output and stated readings
TOLD = frozenset({"pasted", "stated"})
# what says what a run recorded (not when it was taken, nor how its record was kept)
_RUN_SAYS = (
    "probe", "source", "argv", "host", "stdout_artifact", "stderr_artifact", "conditions",
    "note", "exit_status", "reconstructed",
)  # fmt: skip
# what says what an A/B found (not its id, seq or hash, nor the record it retells)
_EXPERIMENT_SAYS = (
    "probe", "metric", "baseline_value", "variant_value", "unit", "higher_is_better",
    "stated", "note", "tests", "baseline_seq", "variant_seq",
)  # fmt: skip


def refuse_repeated_reading(runs: Mapping[int, Mapping[str, Any]], run: Mapping[str, Any]) -> None:
    """Refuse a pasted output or stated reading that an earlier run of the case already
    recorded, word for word, under the same probe, host, conditions and note."""
    if run.get("source") not in TOLD or run.get("stdout_artifact") is None:
        return
    same = _identity(run, _RUN_SAYS)
    for seq, earlier in runs.items():
        if earlier.get("stdout_artifact") == run["stdout_artifact"] and (
            _identity(earlier, _RUN_SAYS) == same
        ):
            told = "stated reading" if run["source"] == "stated" else "pasted output"
            raise DomainError(
                f"seq {seq} already records this {told} of {run.get('probe')} on "
                f"{run.get('host')} (same text, conditions and note): recorded again it would "
                "count twice",
                remedy=SAY_WHICH_RUN,
            )


def refuse_repeated_experiment(
    experiments: Mapping[str, Mapping[str, Any]], record: Mapping[str, Any]
) -> None:
    """Refuse a reported or stated A/B that an earlier one of the case already records with
    the same change, figures (or word), probe and note, unless it names one it retells."""
    if record.get("restates") is not None or not record.get("reported"):
        return
    same = (_words(record.get("change")), _identity(record, _EXPERIMENT_SAYS))
    for experiment_id, earlier in experiments.items():
        if not earlier.get("reported"):
            continue
        if (_words(earlier.get("change")), _identity(earlier, _EXPERIMENT_SAYS)) == same:
            raise DomainError(
                f"experiment {experiment_id} already records this A/B (same change, outcome "
                "and note; a second run with the same result says which in its note): "
                "recorded again it would count twice",
                remedy=TELL_IT_AGAIN,
            )


def _identity(record: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[Any, ...]:
    """What a record says under ``keys``, an unset field and its empty default alike (a
    record kept as stored may omit what a new one spells out)."""
    return tuple(None if record.get(k) in _UNSET else _canonical(record.get(k)) for k in keys)


def _canonical(value: Any) -> Any:
    """A value as a comparable, order-free form where order says nothing (a table's keys)."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _canonical(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_canonical(v) for v in value)
    return value


_UNSET: tuple[Any, ...] = (None, False, "", (), [], {})


def _words(text: Any) -> str:
    """A change as words: case and runs of spaces aside ("NCCL_P2P_DISABLE=1" is one change
    however it is spaced)."""
    return " ".join(str(text or "").casefold().split())
