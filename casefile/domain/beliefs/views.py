"""Derived views over a projection, under their old address.

Ranking next steps and probes lives in :mod:`casefile.domain.beliefs.ranking` (it is triage
arithmetic, not a view); decisive evidence and per-hypothesis contributions live in
:mod:`casefile.domain.beliefs.scoring`. This module re-exports both, since other code imports
them from here.
"""

from __future__ import annotations

from casefile.domain.beliefs.ranking import (
    COST_ORDER,
    MAX_JOINT_OUTCOMES,
    Belief,
    Candidate,
    NextStep,
    ProbeStep,
    beliefs_at,
    outcome_table,
    question_entropy,
    rank_next_steps,
    rank_probes,
)
from casefile.domain.beliefs.scoring import (
    Contribution,
    Decisive,
    contributions,
    decisive_at,
    decisive_evidence,
    prior_log_odds_bits,
)

__all__ = [
    "COST_ORDER",
    "MAX_JOINT_OUTCOMES",
    "Belief",
    "Candidate",
    "Contribution",
    "Decisive",
    "NextStep",
    "ProbeStep",
    "beliefs_at",
    "contributions",
    "decisive_at",
    "decisive_evidence",
    "outcome_table",
    "prior_log_odds_bits",
    "question_entropy",
    "rank_next_steps",
    "rank_probes",
]
