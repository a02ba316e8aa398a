"""A rule built from its playbook table, with every problem named (rule and field).

:mod:`casefile.domain.rules` says what a rule is and how it reads facts; this module is how a
playbook's ``[[rule]]`` table becomes one, so that a malformed table is refused when the
playbook loads, in one line, and never reaches a case.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from casefile.domain.rules import (
    AGGREGATES,
    DEFAULT_RULE_RELIABILITY,
    LOAD_STATES,
    RULE_LOADS,
    Outcome,
    Rule,
    Statistic,
)
from casefile.errors import RuleError


def rule_from_dict(data: Mapping[str, Any], question: str, where: str = "rule") -> Rule:
    """Build and check a rule; every problem is a :class:`RuleError` naming rule and field."""
    rid = data.get("id")
    if not isinstance(rid, str) or not rid:
        raise RuleError(f"{where}: 'id' must be a non-empty string")
    label = f"rule {rid}"
    version = data.get("version")
    if not isinstance(version, int) or version < 1:
        raise RuleError(f"{label}: 'version' must be a positive integer")
    rationale = data.get("rationale")
    if not isinstance(rationale, str) or not rationale.strip():
        raise RuleError(f"{label}: 'rationale' is required, so reviewers can check the rule")
    probes = data.get("probes", [])
    if not isinstance(probes, list) or not all(isinstance(p, str) for p in probes) or not probes:
        raise RuleError(f"{label}: 'probes' must list the probes whose facts it reads")
    statistic = _statistic(data.get("statistic"), label)
    outcomes = _outcomes(data.get("outcomes"), label)
    names = [o.name for o in outcomes]
    table = data.get("likelihoods")
    if not isinstance(table, Mapping) or "otherwise" not in table:
        raise RuleError(f"{label}: 'likelihoods' needs a row per hypothesis and an 'otherwise' row")
    rows = {str(h): _row(row, names, f"{label}: likelihoods[{h}]") for h, row in table.items()}
    otherwise = rows.pop("otherwise")
    conditions = data.get("conditions", {})
    load = conditions.get("load", "any") if isinstance(conditions, Mapping) else None
    if load not in RULE_LOADS:
        raise RuleError(f"{label}: conditions.load must be one of {', '.join(RULE_LOADS)}")
    reliability = data.get("reliability", DEFAULT_RULE_RELIABILITY)
    if not isinstance(reliability, int | float) or not 0.0 <= reliability <= 1.0:
        raise RuleError(f"{label}: 'reliability' must be within [0, 1]")
    return Rule(
        id=rid,
        version=version,
        question=str(data.get("question", question)),
        probes=tuple(probes),
        statistic=statistic,
        outcomes=tuple(outcomes),
        likelihoods=rows,
        otherwise=otherwise,
        rationale=rationale.strip(),
        load=str(load),
        reliability=float(reliability),
        title=str(data.get("title", rid)),
        requires=requirements_from(data.get("requires", []), label),
        witness=_witness(data.get("witness", []), label),
        exclusive=_exclusive(data.get("exclusive"), label),
        only_where_required=_only_where_required(data, label),
    )


def _only_where_required(data: Mapping[str, Any], label: str) -> bool:
    """``only_where_required = true``: the rule's reading means nothing where an answer
    contradicts its ``requires`` (see :attr:`Rule.only_where_required`)."""
    raw = data.get("only_where_required", False)
    if not isinstance(raw, bool):
        raise RuleError(f"{label}: 'only_where_required' must be true or false")
    if raw and not data.get("requires"):
        raise RuleError(f"{label}: 'only_where_required' needs 'requires' to say where")
    return raw


def intake_answers_of(entry: Any) -> tuple[str, tuple[str, ...]] | None:
    """An ``{ intake = "gpu-count", answers = ["several"] }`` table as (question, answers), or
    None where it is not one (each caller says which field it was, in its own words)."""
    answers = entry.get("answers") if isinstance(entry, Mapping) else None
    if (
        not isinstance(entry, Mapping)
        or not isinstance(entry.get("intake"), str)
        or not isinstance(answers, list)
        or not answers
        or not all(isinstance(a, str) for a in answers)
    ):
        return None
    return str(entry["intake"]), tuple(answers)


def requirements_from(raw: Any, label: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``requires = [{ intake = "gpu-count", answers = ["several"] }]`` as (question, answers)
    pairs; whether the questions and answers exist is the playbook's to check."""
    if not isinstance(raw, list):
        raise RuleError(f"{label}: 'requires' must be a list of {{ intake, answers }} tables")
    out = []
    for need in raw:
        found = intake_answers_of(need)
        if found is None:
            raise RuleError(
                f"{label}: each of 'requires' needs 'intake' (a question id) and 'answers' "
                "(a non-empty list)"
            )
        out.append(found)
    return tuple(out)


def _witness(raw: Any, label: str) -> tuple[str, ...]:
    """``witness = "gpu-heat"`` or a list of such names: the states the rule reads."""
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise RuleError(f"{label}: 'witness' must name the states it reads (a name or a list)")
    return tuple(dict.fromkeys(names))


def _exclusive(raw: Any, label: str) -> str | None:
    """``exclusive = "rdma-memory"``: the kind of run the rule shares with others that read
    another kind of the same probe's run (one run feeds one of them)."""
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw:
        raise RuleError(f"{label}: 'exclusive' must be a name (rules whose runs exclude others)")
    return raw


def _statistic(data: Any, label: str) -> Statistic:
    if not isinstance(data, Mapping):
        raise RuleError(f"{label}: 'statistic' must be a table with 'aggregate' and 'fact'")
    aggregate = data.get("aggregate")
    if aggregate not in AGGREGATES:
        raise RuleError(f"{label}: statistic.aggregate must be one of {', '.join(AGGREGATES)}")
    fact = data.get("fact")
    names = [fact] if isinstance(fact, str) else fact
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise RuleError(f"{label}: statistic.fact must name a fact (or list facts to pool)")
    per = data.get("per")
    subjects = data.get("subjects")
    return Statistic(
        str(aggregate), tuple(names), str(per) if per else None, str(subjects) if subjects else None
    )


def _outcomes(data: Any, label: str) -> list[Outcome]:
    if not isinstance(data, list) or len(data) < 2:
        raise RuleError(f"{label}: 'outcomes' must list at least two outcomes")
    out = []
    for item in data:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise RuleError(f"{label}: each outcome needs a 'name'")
        any_of = item.get("any_of", ())
        out.append(
            Outcome(
                name=item["name"],
                below=_number(item.get("below"), label),
                at_least=_number(item.get("at_least"), label),
                equals=item.get("equals"),
                any_of=tuple(str(v) for v in any_of),
                load=_load(item.get("load"), label),
                why=str(item["why"]) if item.get("why") else None,
            )
        )
    names = [o.name for o in out]
    if len(set(names)) != len(names):
        raise RuleError(f"{label}: outcome names must be unique")
    return out


def _load(value: Any, label: str) -> str | None:
    if value is None:
        return None
    if value not in LOAD_STATES:
        raise RuleError(f"{label}: outcome load must be one of {', '.join(LOAD_STATES)}")
    return str(value)


def _number(value: Any, label: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RuleError(f"{label}: outcome bounds must be numbers")
    return float(value)


def _row(row: Any, names: list[str], label: str) -> dict[str, float]:
    if not isinstance(row, Mapping):
        raise RuleError(f"{label}: must map each outcome to a probability")
    missing = [n for n in names if n not in row]
    extra = [k for k in row if k not in names]
    if missing or extra:
        raise RuleError(f"{label}: outcomes missing {missing} / unknown {extra}")
    values: dict[str, float] = {}
    for name in names:
        value = row[name]
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < value <= 1.0:
            raise RuleError(f"{label}: P({name}) = {value!r} is not within (0, 1]")
        values[name] = float(value)
    total = math.fsum(values.values())
    if abs(total - 1.0) > 1e-6:
        raise RuleError(f"{label}: probabilities sum to {total:.6g}, not 1")
    return values
