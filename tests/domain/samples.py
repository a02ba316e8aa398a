"""One or more payloads of every event type, in normal form (as the store writes them), with
the shapes their summaries and report lines tell apart: an intake answer, a rule's verdict,
an experiment read by a rule and a person's own evidence; figures, reported figures and an
outcome in words."""

from __future__ import annotations

from typing import Any

_CONDITIONS = {"load": "under-load", "host": "gpu-node-7"}
_RULE = {"id": "pcie-link-gen", "version": 2}

SAMPLES: dict[str, list[dict[str, Any]]] = {
    "case.opened": [
        {"title": "slow decode", "symptom": "11 tok/s", "environment": {"gpus": "2x A6000"}},
        {"title": "bare", "environment": {}},
    ],
    "note.added": [{"text": "the batch is 1"}],
    "question.proposed": [
        {"question_id": "q1", "text": "why is it slow?", "catch_all": 0.1, "playbook": "gpu@3"}
    ],
    "hypothesis.proposed": [
        {"hypothesis_id": "pcie", "question_id": "q1", "text": "PCIe-bound", "prior": 0.2},
        {
            "hypothesis_id": "gen",
            "question_id": "q1",
            "parent_id": "pcie",
            "text": "link at gen 1",
            "prior": 0.5,
            "meaning": "the link trained down",
            "requires": [{"intake": "nodes", "answers": ["single"]}],
        },
    ],
    "hypothesis.refined": [{"hypothesis_id": "pcie", "text": "PCIe x4", "reason": "lspci"}],
    "hypothesis.retired": [{"hypothesis_id": "pcie", "reason": "link is gen 4"}],
    "hypothesis.reinstated": [{"hypothesis_id": "pcie", "reason": "read again"}],
    "priors.rebalanced": [
        {"question_id": "q1", "priors": {"pcie": 0.3, "gen": 0.2}, "forced": True, "reason": "r"},
        {"question_id": "q1", "priors": {"pcie": 0.3}, "forced": False},
    ],
    "probe.ran": [
        {
            "probe": "lspci",
            "argv": ["lspci", "-vv"],
            "host": "gpu-node-7",
            "source": "ssh",
            "exit_status": 0,
            "timed_out": False,
            "stdout_artifact": "a" * 64,
            "conditions": _CONDITIONS,
            "reconstructed": False,
            "note": "after the reboot",
        },
        {
            "probe": "command",
            "argv": ["nvidia-smi"],
            "host": "unknown",
            "source": "pasted",
            "timed_out": False,
            "error": "not found",
            "conditions": {"load": "unknown", "setup": "the old driver"},
            "reconstructed": True,
        },
    ],
    "observation.recorded": [
        {
            "probe_run_seq": 4,
            "probe": "lspci",
            "facts": [
                {"name": "pcie.gen", "value": 1, "subject": "0000:01:00.0"},
                {"name": "pcie.width", "value": 16, "unit": "lanes", "subject": "host"},
            ],
            "parsed": True,
            "problems": [],
            "conditions": _CONDITIONS,
        },
        {
            "probe_run_seq": 6,
            "probe": "lspci",
            "facts": [],
            "parsed": False,
            "problems": ["no devices"],
            "conditions": {"load": "unknown"},
        },
    ],
    "evidence.assessed": [
        {
            "evidence_id": "e1",
            "question_id": "q1",
            "likelihoods": {"pcie": 0.8},
            "otherwise": 0.5,
            "kind": "measured",
            "reliability": 0.9,
            "rationale": "the link is gen 1",
            "probe_run_seq": 4,
            "observation_seq": 5,
            "rule": _RULE,
            "outcome": "degraded",
            "statistic": 1.0,
        },
        {
            "evidence_id": "e2",
            "question_id": "q1",
            "likelihoods": {"pcie": 0.4},
            "otherwise": 0.5,
            "kind": "reported",
            "reliability": 0.6,
            "rationale": "Intake: how many nodes? 'single' (answered).",
            "rule": {"id": "intake-nodes", "version": 1},
            "outcome": "single",
            "statistic": "single",
            "intake": {"id": "nodes", "answer": "single", "source": "environment", "basis": "env"},
        },
        {
            "evidence_id": "e3",
            "question_id": "q1",
            "likelihoods": {"pcie": 0.3},
            "otherwise": 0.5,
            "kind": "measured",
            "reliability": 0.8,
            "rationale": "batch A/B",
            "rule": {"id": "batch-ab", "version": 1},
            "outcome": "faster",
            "statistic": 20.45,
            "experiment_id": "x1",
        },
        {
            "evidence_id": "e4",
            "question_id": "q1",
            "likelihoods": {"pcie": 0.7, "gen": 0.9},
            "otherwise": 0.4,
            "kind": "assumed",
            "reliability": 0.3,
            "rationale": "a hunch",
            "supersedes": "e1",
        },
    ],
    "reading.set_aside": [
        {"observation_seq": 5, "rule": _RULE, "reason": "taken at idle; the rule needs load"}
    ],
    "action.taken": [{"text": "reseated the card", "outcome": "gen 4 now"}, {"text": "waited"}],
    "case.concluded": [
        {
            "summary": "the card was loose",
            "root_cause": "gen",
            "recommendations": ["check the link first"],
            "lessons": [],
        }
    ],
    "postmortem.section": [{"section": "impact", "text": "decode at 11 tok/s for a day"}],
    "postmortem.item": [
        {
            "item": "a1",
            "text": "alert on tok/s",
            "owner": "ana",
            "priority": "P1",
            "status": "open",
        },
        {"item": "a1", "status": "done", "ticket": "OPS-12"},
    ],
    "postmortem.about": [{"title": "Slow decode", "authors": ["ana"], "review_date": "2026-03-09"}],
    "experiment.recorded": [
        {
            "experiment_id": "x1",
            "change": "batch 1 -> 32",
            "baseline_seq": 4,
            "variant_seq": 6,
            "probe": "bench",
            "metric": "tok/s",
            "baseline_value": 11.0,
            "variant_value": 225.0,
            "speedup": 20.45,
            "higher_is_better": True,
            "unit": "tok/s",
            "tests": ["pcie"],
        },
        {
            "experiment_id": "x2",
            "change": "ACS off",
            "probe": "p2p",
            "metric": "bandwidth",
            "baseline_value": 27.0,
            "variant_value": 48.0,
            "reported": True,
            "note": "from the forum post",
        },
        {
            "experiment_id": "x3",
            "change": "NCCL_P2P_DISABLE=1",
            "reported": True,
            "stated": "fixed",
        },
    ],
}
