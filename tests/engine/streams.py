"""Random whole-case event streams for property tests, built through the domain commands.

Beyond the trees and assessments of ``test_properties``, a stream holds what a real case
holds: two questions, probe runs and their observations (some unparsed), readings set aside,
evidence that names the reading it came from and the rule that read it, re-assessments,
retirements and reinstatements, hypotheses proposed late, refinements, notes, and sometimes a
conclusion. Every stream folds; the events are sealed with real hashes.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from casefile.domain import commands
from casefile.domain.events import Event, NewEvent
from casefile.domain.rule_loading import rule_from_dict
from casefile.domain.rules import Rule

from .reasoning_helpers import QID, IncrementalCase
from .test_properties import assessments, trees

OTHER = "r"  # the second question's id
PROBES = ("smi", "dmon")


def rule_for(question: str, ids: list[str], seed: int) -> Rule:
    """A small rule over ``ids`` whose table depends on ``seed`` (for ranking checks)."""
    table: dict[str, dict[str, float]] = {}
    for i, hid in enumerate(ids):
        low = ((seed * 7 + i * 13) % 17 + 1) / 20
        table[hid] = {"lo": low, "hi": round(1.0 - low, 6)}
    table["otherwise"] = {"lo": 0.4, "hi": 0.6}
    return rule_from_dict(
        {
            "id": f"rule-{question}-{seed}",
            "version": 1,
            "probes": [PROBES[seed % 2]],
            "rationale": "random",
            "conditions": {"load": "under-load" if seed % 3 == 0 else "any"},
            "statistic": {"aggregate": "max", "fact": "x"},
            "outcomes": [{"name": "lo", "below": 1.0}, {"name": "hi"}],
            "likelihoods": table,
            "reliability": 0.8,
        },
        question,
    )


def _probe_run(load: str, probe: str, with_stderr: bool) -> NewEvent:
    payload: dict[str, Any] = {
        "probe": probe,
        "argv": [probe, "-q"],
        "host": "gpu-host",
        "source": "local",
        "exit_status": 0,
        "stdout_artifact": "ab" * 32,
        "conditions": {"load": load},
        "started_at": "2026-01-01T00:00:00.000000Z",
    }
    if with_stderr:
        payload["stderr_artifact"] = "cd" * 32
        payload["exit_status"] = 1
    return NewEvent("probe.ran", payload)


def _observation(run: Event, parsed: bool) -> NewEvent:
    payload: dict[str, Any] = {
        "probe_run_seq": run.seq,
        "probe": run.payload["probe"],
        "facts": [{"name": "x", "value": 1.5, "unit": "%", "subject": "gpu0"}],
        "conditions": dict(run.payload["conditions"]),
    }
    if not parsed:
        payload.update(parsed=False, problems=["no header line"], facts=[])
    return NewEvent("observation.recorded", payload)


@st.composite
def streams(draw: st.DrawFn, max_steps: int = 20) -> list[Event]:
    """One random case, as its sealed events."""
    b = IncrementalCase()
    questions = [QID] + ([OTHER] if draw(st.booleans(), label="second question") else [])
    for qid in questions:
        b.add(commands.propose_question(b.projection, f"question {qid}?", question_id=qid))
        for node in draw(trees(), label=f"tree {qid}"):
            hid = node.id if qid == QID else f"{qid}-{node.id}"
            under = (
                qid if node.under == QID else (node.under if qid == QID else f"{qid}-{node.under}")
            )
            b.add(commands.propose_hypothesis(b.projection, f"hyp {hid}", under, node.prior, hid))
    runs: list[Event] = []
    observations: list[Event] = []
    late = 0
    for _ in range(draw(st.integers(1, max_steps), label="steps")):
        p = b.projection
        qid = draw(st.sampled_from(questions), label="question")
        question = p.questions[qid]
        active = [h for h in question.nodes if question.is_active(h)]
        retired = [h for h in question.nodes if question.nodes[h].retired]
        live = [e.id for e in p.evidence.values() if e.active and e.question_id == qid]
        options = ["evidence", "evidence", "run", "run", "note", "refine", "late"]
        if runs:
            options.append("observe")
        if observations:
            options += ["aside", "reading", "reading"]
        if live:
            options.append("supersede")
        if len(active) > 1:
            options.append("retire")
        if retired:
            options.append("reinstate")
        op = draw(st.sampled_from(options), label="op")
        if op in ("evidence", "supersede", "reading") and active:
            a = draw(assessments(active), label="assessment")
            extra: dict[str, Any] = {}
            if op == "supersede":
                extra["supersedes"] = draw(st.sampled_from(live), label="supersedes")
            if op == "reading":
                reading = draw(st.sampled_from(observations), label="reading")
                extra.update(
                    observation_seq=reading.seq,
                    probe_run_seq=reading.payload["probe_run_seq"],
                    rule={"id": "rule-x", "version": 2},
                    outcome="hi",
                    statistic=draw(st.sampled_from([0.25, 3, "busy"])),
                )
            b.add(
                commands.assess_evidence(
                    p,
                    a.likelihoods,
                    rationale=draw(st.sampled_from(["because", "the reading says so"])),
                    otherwise=a.otherwise,
                    kind=a.kind,
                    reliability=a.reliability,
                    **extra,
                )
            )
        elif op == "run":
            load = draw(st.sampled_from(["idle", "under-load"]), label="load")
            probe = draw(st.sampled_from(PROBES), label="probe")
            runs.append(b.add(_probe_run(load, probe, draw(st.booleans(), label="stderr"))))
            if draw(st.integers(0, 3), label="read it") > 0:
                parsed = draw(st.integers(0, 3), label="parsed") > 0
                observations.append(b.add(_observation(runs[-1], parsed)))
        elif op == "observe":
            run = draw(st.sampled_from(runs), label="run")
            parsed = draw(st.integers(0, 3), label="parsed") > 0
            observations.append(b.add(_observation(run, parsed)))
        elif op == "aside":
            reading = draw(st.sampled_from(observations), label="set aside")
            b.add(
                NewEvent(
                    "reading.set_aside",
                    {
                        "observation_seq": reading.seq,
                        "rule": {"id": f"rule-{draw(st.integers(0, 2))}", "version": 1},
                        "reason": "taken at idle; the rule needs load",
                    },
                )
            )
        elif op == "note":
            b.add(NewEvent("note.added", {"text": "a note"}))
        elif op == "refine" and active:
            target = draw(st.sampled_from(active), label="refine")
            b.add(commands.refine_hypothesis(p, target, f"refined {target}"))
        elif op == "retire":
            b.add(commands.retire_hypothesis(p, draw(st.sampled_from(active)), "ruled out"))
        elif op == "reinstate":
            b.add(commands.reinstate_hypothesis(p, draw(st.sampled_from(retired))))
        elif op == "late" and active:
            late += 1
            hid = f"late{late}-{qid}"
            if draw(st.booleans(), label="top") and question.catch_all_prior() > 2e-6:
                share = question.catch_all_prior() * draw(st.floats(0.05, 0.5))
                if question.evidence_count == 0:
                    share = min(share, question.catch_all_prior() - question.catch_all_reserve)
                if share > 1e-6:
                    b.add(commands.propose_hypothesis(p, f"late {hid}", qid, share, hid))
            else:
                parent = draw(st.sampled_from(active), label="parent")
                left = 1.0 - question.children_share(parent)
                if left > 1e-6:
                    share = left * draw(st.floats(0.05, 1.0))
                    b.add(commands.propose_hypothesis(p, f"late {hid}", parent, share, hid))
    if draw(st.booleans(), label="concluded"):
        b.add(NewEvent("case.concluded", {"summary": "done", "root_cause": "H0"}))
    return b.events


def candidates_for(events: list[Event]) -> list[Any]:
    """Rules over every hypothesis the stream ever names, for both probes."""
    from casefile.domain.beliefs import project
    from casefile.domain.beliefs.ranking import Candidate

    p = project(events)
    out: list[Candidate] = []
    for qid, question in p.questions.items():
        ids = list(question.nodes)
        for seed in range(3):
            rule = rule_for(qid, ids[seed::2] or ids, seed)
            out.extend(
                Candidate(probe, rule, "cheap" if seed else "moderate") for probe in rule.probes
            )
    return out
