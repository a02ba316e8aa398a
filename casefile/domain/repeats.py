"""A reading or an A/B told twice is one finding, not two.

Evidence multiplies: the same pasted output, the same stated reading or the same reported A/B
recorded a second time (a paste sent twice, a thread quoting its own figures, a handover that
retells yesterday's result) would count its likelihood ratio twice and move the beliefs as if
two measurements agreed. A measured A/B of two runs an earlier one already read is refused
unless it reads them another way (another metric or direction: a re-reading, which replaces
the first) or names the one it restates (:func:`reread_pair`); the rest of this module is the
same guard for what a person tells, where no run seq tells the copies apart.

What makes two readings the same is their facts, taken on the same host under the same
conditions with the same note (not when they were told, nor the probe or text they came in);
two A/Bs are the same where their change (in any spelling rules read), figures or word, probe
and note agree. So a second run that really printed the same says so in its note ("the second
run"), and a finding told again on purpose names the record it retells (``--restates``), so it
counts once, as its latest telling.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from casefile.domain.change_forms import normalise_change
from casefile.domain.units import normal_unit
from casefile.errors import DomainError, Remedy

if TYPE_CHECKING:
    from casefile.domain.beliefs.projection import Projection
    from casefile.domain.facts import Fact

#: what lets a reading that printed the same again through: a note saying which run it was
SAY_WHICH_RUN = Remedy("says which run this was, so the two are told apart", "note")
#: what lets an A/B told again through: it names the one it retells, and replaces its evidence
TELL_IT_AGAIN = Remedy("names the A/B it tells again, which then counts once", "restates")

#: what lets two runs already read be compared again: which way is better, said
SAY_WHICH_WAY = Remedy("says which way is better (higher or lower)", "direction")

#: the sources whose output a person brings: pasted output and stated readings
TOLD = frozenset({"pasted", "stated"})
# what says where and how a told reading was taken: the host, the conditions and the note (not
# when, nor which probe read it, nor the command it is filed under, which is the probe's own
# where none was given: the facts are the reading; nor the output's digest, which a line end
# changes)
_RUN_SAYS = ("host", "conditions", "note", "reconstructed")
# what says what an A/B found (not its id, seq or hash, nor the record it retells)
_EXPERIMENT_SAYS = (
    "probe", "metric", "baseline_value", "variant_value", "unit", "higher_is_better",
    "stated", "note", "tests", "baseline_seq", "variant_seq",
)  # fmt: skip


def refuse_repeated_reading(
    projection: Projection, run: Mapping[str, Any], facts: Sequence[Fact]
) -> None:
    """Refuse a pasted output or stated reading whose facts an earlier told run of the case
    already recorded, on the same host, under the same conditions and note.

    The facts, not the text, are the reading: a statement in another order or spelling
    ("250 W", "250W"), a paste with other line ends, or the same paste under another probe
    that reads it (``-q`` and ``-q-perf``) is the same reading. Output that gave no facts is
    never refused: it counts for nothing, so a paste under the wrong probe can be given again
    under the right one."""
    if run.get("source") not in TOLD or not facts:
        return
    same = (_identity(run, _RUN_SAYS), _facts(fact.to_dict() for fact in facts))
    for observation in projection.observations.values():
        seq = observation.get("probe_run_seq")
        earlier = projection.probe_runs.get(seq) if isinstance(seq, int) else None
        if earlier is None or earlier.get("source") not in TOLD:
            continue
        if (_identity(earlier, _RUN_SAYS), _facts(observation.get("facts", ()))) == same:
            told = "stated reading" if run["source"] == "stated" else "pasted output"
            raise DomainError(
                f"seq {seq} already records this {told} on {run.get('host')} (the same "
                "facts, conditions and note): recorded again it would count twice",
                remedy=SAY_WHICH_RUN,
            )


def refuse_repeated_experiment(
    experiments: Mapping[str, Mapping[str, Any]], record: Mapping[str, Any]
) -> None:
    """Refuse a reported or stated A/B that an earlier one of the case already records with
    the same change, figures (or word), probe and note, unless it names one it retells."""
    if record.get("restates") is not None or not record.get("reported"):
        return
    change, same = _words(record.get("change")), _identity(record, _EXPERIMENT_SAYS)
    for experiment_id, earlier in experiments.items():
        if not earlier.get("reported"):
            continue
        if _identity(earlier, _EXPERIMENT_SAYS) == same and change & _words(earlier.get("change")):
            raise DomainError(
                f"experiment {experiment_id} already records this A/B (same change, outcome "
                "and note; a second run with the same result says which in its note): "
                "recorded again it would count twice",
                remedy=TELL_IT_AGAIN,
            )


#: what a reading of two runs says, beside the runs: read the same way again, it counts twice
#: (which run is the baseline too: the same runs swapped read the other way)
_READING_SAYS = ("baseline_seq", "metric", "higher_is_better", "unit", "tests", "named_rule")


def reread_pair(
    experiments: Mapping[str, Mapping[str, Any]], record: Mapping[str, Any]
) -> str | None:
    """The experiment a measured A/B of two runs restates: the one it names, else, where an
    earlier A/B already read the same two runs another way (its metric, direction, unit or
    reader differ: a wrong reading corrected), that one, whose evidence the new reading then
    replaces. An A/B of two runs no earlier one read restates what it names.

    Refused: the same reading of the same two runs again (it would count twice), one that
    reads nothing (no direction: it would restate the reading and replace nothing), and a
    restating of an A/B that is no telling of those runs' read one."""
    pair = {record.get("baseline_seq"), record.get("variant_seq")}
    read = [
        experiment_id
        for experiment_id, earlier in experiments.items()
        # one recorded with no direction was never read: comparing again may read it
        if earlier.get("speedup") is not None
        and {earlier.get("baseline_seq"), earlier.get("variant_seq")} == pair
    ]
    named = record.get("restates")
    if not read:
        return None if named is None else str(named)
    latest = read[-1]
    earliest = experiments[latest]
    said = f"experiment {latest} already compares seqs {earliest.get('baseline_seq')} and "
    said += f"{earliest.get('variant_seq')}"
    if named is not None:
        if named not in experiments or _retells(experiments, str(named), set(read)):
            return str(named)
        raise DomainError(
            f"{said}, and {named} is no telling of it: a reading of those runs restates "
            f"{latest}, so the finding counts once",
            remedy=TELL_IT_AGAIN,
        )
    if record.get("higher_is_better") is None:
        raise DomainError(
            f"{said}; compared again with nothing saying which way is better, they would be "
            "read by nothing",
            remedy=SAY_WHICH_WAY,
        )
    if _identity(experiments[latest], _READING_SAYS) == _identity(record, _READING_SAYS):
        way = "higher" if experiments[latest].get("higher_is_better") else "lower"
        raise DomainError(
            f"{said}, reading {experiments[latest].get('metric')} with {way} better: the "
            "same reading again would count twice (one by another metric or direction "
            "replaces it)",
            remedy=TELL_IT_AGAIN,
        )
    return latest


def _retells(
    experiments: Mapping[str, Mapping[str, Any]], experiment_id: str, read: set[str]
) -> bool:
    """Whether ``experiment_id`` is one of ``read`` or tells one of them again (by the
    experiments' ``restates``, followed back)."""
    seen: set[str] = set()
    current: Any = experiment_id
    while current is not None and current not in seen:
        if current in read:
            return True
        seen.add(current)
        current = experiments.get(current, {}).get("restates")
    return False


def earlier_telling(projection: Projection, record: Mapping[str, Any]) -> str | None:
    """The earlier A/B of the same change whose evidence counts, where ``record`` is a
    person's telling (reported figures or words) that does not say it retells one; else None.
    Figures and then words for one change ("27 -> 48 GB/s", later "fixed by it") pass the
    word-for-word guard yet may be one finding told twice: the person is told which A/B to
    name, and decides (a new run, or a retelling named as one). Two measured runs are two
    runs, and an A/B that counts for nothing is nothing to count twice."""
    if record.get("restates") is not None or not record.get("reported"):
        return None
    change = _words(record.get("change"))
    counting = {e.experiment_id for e in projection.evidence.values() if e.active}
    told = [
        experiment_id
        for experiment_id, earlier in projection.experiments.items()
        if experiment_id != record.get("experiment_id")
        and experiment_id in counting
        and change & _words(earlier.get("change"))
    ]
    return told[-1] if told else None


def _identity(record: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[Any, ...]:
    """What a record says under ``keys``, an unset field and its empty default alike (a
    record kept as stored may omit what a new one spells out; ``reconstructed`` is false
    unless said). False is a value, not unset: "lower is better" is no unknown direction."""
    return tuple(
        None
        if _unset(record.get(k)) or (k == "reconstructed" and record.get(k) is False)
        else _ORDER_FREE.get(k, _canonical)(record.get(k))
        for k in keys
    )


def _order_free(values: Any) -> Any:
    """The hypotheses an A/B names, in any order (``--tests a,b`` and ``--tests b,a``)."""
    return tuple(sorted(str(v) for v in values)) if isinstance(values, list | tuple) else values


#: the fields compared in a form of their own, the rest by :func:`_canonical`
_ORDER_FREE: dict[str, Callable[[Any], Any]] = {"unit": normal_unit, "tests": _order_free}


def _unset(value: Any) -> bool:
    return value is None or (not isinstance(value, bool | int | float) and not value)


def _canonical(value: Any) -> Any:
    """A value as a comparable, order-free form where order says nothing (a table's keys),
    a key set to nothing and a key left out alike."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _canonical(v)) for k, v in value.items() if v is not None))
    if isinstance(value, list | tuple):
        return tuple(_canonical(v) for v in value)
    return value


def _facts(facts: Iterable[Mapping[str, Any]]) -> tuple[Any, ...]:
    """A reading's facts as an order-free, comparable whole."""
    return tuple(sorted(repr(_canonical(dict(fact))) for fact in facts))


def _words(text: Any) -> frozenset[str]:
    """A change as words, as written and in the spelling rules read (``export X=1``, ``X: 1``
    and ``X = 1`` are ``X=1``), case and runs of spaces aside: two changes are one where any
    of their forms agree."""
    written = str(text or "")
    forms = (written, normalise_change(written))
    return frozenset(" ".join(re.sub(r"\s*=\s*", "=", f).casefold().split()) for f in forms)
