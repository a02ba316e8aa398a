"""The action table: every user action, once, with what each front end needs to offer it.

Each row (an :class:`~casefile.actions.spec.ActionSpec`) sits beside its action in the
family's module (``case_actions``, ``hypothesis_actions``, ``triage_actions``,
``output_actions``, ``postmortem_actions``); this module puts them in the order a palette
lists them. The CLI builds its write commands' parsers from these rows and parses into the
actions; the TUI builds its dialogs, key bindings, palette entries and read-only gate from
them; the command line a TUI action echoes is :func:`~casefile.actions.spec.command_line` of
the row.
"""

from __future__ import annotations

from casefile.actions.case_actions import ACT, CONCLUDE, EXPORT, IMPORT, NEW, NOTE, PLAYBOOK
from casefile.actions.hypothesis_actions import (
    EVIDENCE,
    HYPOTHESIS,
    PRIOR,
    QUESTION,
    REFINE,
    REINSTATE,
    RETIRE,
)
from casefile.actions.ingest_actions import INGEST
from casefile.actions.output_actions import REPORT
from casefile.actions.postmortem_actions import ABOUT, ITEM, SECTION
from casefile.actions.probe_actions import PROBE
from casefile.actions.spec import ActionSpec
from casefile.actions.triage_actions import EXPERIMENT, INTAKE

__all__ = [
    "ABOUT",
    "ACT",
    "ACTIONS",
    "BY_NAME",
    "BY_TYPE",
    "CONCLUDE",
    "EVIDENCE",
    "EXPERIMENT",
    "EXPORT",
    "HYPOTHESIS",
    "IMPORT",
    "INGEST",
    "INTAKE",
    "ITEM",
    "NEW",
    "NOTE",
    "PLAYBOOK",
    "PRIOR",
    "PROBE",
    "QUESTION",
    "REFINE",
    "REINSTATE",
    "REPORT",
    "RETIRE",
    "SECTION",
]

#: every action, in the order a palette lists them
ACTIONS: tuple[ActionSpec, ...] = (
    NOTE,
    EVIDENCE,
    ACT,
    QUESTION,
    HYPOTHESIS,
    REFINE,
    RETIRE,
    REINSTATE,
    PRIOR,
    PLAYBOOK,
    CONCLUDE,
    SECTION,
    ITEM,
    ABOUT,
    EXPORT,
    REPORT,
    INTAKE,
    EXPERIMENT,
    PROBE,
    INGEST,
    NEW,
    IMPORT,
)
BY_NAME = {spec.name: spec for spec in ACTIONS}
BY_TYPE = {spec.action: spec for spec in ACTIONS}
