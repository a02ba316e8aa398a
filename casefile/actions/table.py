"""The action table: every user action, once, with what each front end needs to offer it.

The CLI builds its write commands' parsers from these rows and parses into the actions; the
TUI builds its dialogs, key bindings, palette entries and read-only gate from them; the
command line a TUI action echoes is :func:`~casefile.actions.spec.command_line` of the row.
"""

from __future__ import annotations

from casefile.actions.case_actions import (
    Act,
    Conclude,
    Export,
    ImportCase,
    NewCase,
    Note,
    OpenPlaybook,
)
from casefile.actions.hypothesis_actions import (
    AssessEvidence,
    ProposeHypothesis,
    ProposeQuestion,
    Refine,
    Reinstate,
    Retire,
    SetPrior,
)
from casefile.actions.output_actions import REPORT_FORMATS, WriteReport
from casefile.actions.spec import ActionSpec, Option
from casefile.actions.triage_actions import AnswerIntake, RecordExperiment
from casefile.domain.kinds import KINDS

_HYPOTHESIS = Option(
    "hypothesis_id", "Hypothesis id", noun="hypothesis id", required=True, metavar="hypothesis"
)
_BECAUSE = Option("because", "Because (optional)", flag="--because", noun="reason")

NEW = ActionSpec(
    "new",
    "New case",
    NewCase,
    (
        Option("title", "Title", required=True),
        Option(
            "symptom", "Symptom, with numbers", flag="--symptom", help="the symptom, with numbers"
        ),
        Option(
            "environment",
            "Environment, KEY=VALUE per line",
            "pairs",
            flag="--env",
            metavar="KEY=VALUE",
            default={},
        ),
        Option(
            "case_id", "Id", flag="--id", help="choose the case id (default: random)", form=False
        ),
        Option(
            "playbook",
            "Playbook (optional)",
            flag="--playbook",
            example="gpu-throughput",
            help="open a playbook's question and hypotheses in the case",
        ),
    ),
    ("new",),
    "open a new case; prints its id",
    ("New case", "Open a new case"),
    on_case=False,
    heading="New case",
)
NOTE = ActionSpec(
    "note",
    "Note",
    Note,
    (
        Option(
            "text",
            "Note (several lines allowed)",
            "note",
            required=True,
            noun="note",
            help="the note, or - to read it from stdin",
        ),
    ),
    ("note",),
    "add a note; prints its seq",
    ("Note", "Add a note to the case"),
    key="n",
    footer=True,
    heading="Add a note",
    short="note",
)
ACT = ActionSpec(
    "action",
    "Action",
    Act,
    (
        Option("text", "What was done", required=True, noun="action"),
        Option("outcome", "Outcome (optional)", flag="--outcome"),
    ),
    ("act",),
    "record an action taken",
    ("Action", "Record an action taken"),
    key="a",
    heading="Record an action",
    short="action",
)
QUESTION = ActionSpec(
    "question",
    "Question",
    ProposeQuestion,
    (
        Option("text", "Question", required=True, noun="question"),
        Option("question_id", "Id (optional)", flag="--id", example="e.g. throughput"),
        Option(
            "catch_all",
            "Catch-all prior",
            "prior",
            flag="--catch-all",
            default=0.1,
            example="0.1",
            noun="catch-all prior",
            help="catch-all prior (0.1)",
        ),
    ),
    ("question", "add"),
    "propose a question; prints its id",
    ("Question", "Ask a new question"),
    key="A",
    heading="Ask a question",
    short="ask a question",
)
HYPOTHESIS = ActionSpec(
    "hypothesis",
    "Hypothesis",
    ProposeHypothesis,
    (
        Option("text", "Hypothesis", required=True, noun="hypothesis"),
        Option(
            "under",
            "Under (question or parent hypothesis id)",
            flag="--under",
            required=True,
            noun="'under' (a question or parent hypothesis id)",
            help="question id, or parent hypothesis id",
        ),
        Option(
            "prior",
            "Prior (absolute, or share of the parent)",
            "prior",
            flag="--prior",
            required=True,
            example="0.2",
            help="absolute, or parent share",
        ),
        Option("hypothesis_id", "Id (optional)", flag="--id"),
        Option(
            "meaning",
            "Meaning (optional): what would be true if this is the answer",
            flag="--meaning",
            help="one line: what would be true if this is the answer",
        ),
        Option(
            "rebalance",
            "Rebalance (yes/no): if the prior does not fit, scale the others down",
            "switch",
            flag="--rebalance",
            default=False,
            help="if the prior does not fit, scale the other hypotheses down in proportion",
        ),
        Option(
            "force",
            "Even after evidence (yes/no, with rebalance)",
            "switch",
            flag="--force",
            default=False,
            help="with --rebalance: even after evidence arrived",
        ),
    ),
    ("hypothesis", "add"),
    "propose a hypothesis; prints its id",
    ("Hypothesis: add", "Propose a hypothesis"),
    key="plus",
    heading="Propose a hypothesis",
    short="add hypothesis",
)
PRIOR = ActionSpec(
    "prior",
    "Prior",
    SetPrior,
    (
        _HYPOTHESIS,
        Option(
            "prior",
            "Prior (absolute, or share of the parent)",
            "prior",
            required=True,
            help="absolute, or its share of its parent's",
        ),
        Option("because", "Because (optional)", flag="--because", help="why the prior changes"),
        Option(
            "force",
            "Even after evidence (yes/no)",
            "switch",
            flag="--force",
            default=False,
            help="even after evidence arrived",
        ),
    ),
    ("hypothesis", "prior"),
    "set a hypothesis's prior (siblings make room in proportion); prints its seq",
    ("Hypothesis: prior", "Set the selected hypothesis's prior; its siblings make room"),
    heading="Set a hypothesis's prior",
)
REFINE = ActionSpec(
    "refine",
    "Refine hypothesis",
    Refine,
    (_HYPOTHESIS, Option("text", "New wording", required=True, noun="new wording"), _BECAUSE),
    ("hypothesis", "refine"),
    "reword a hypothesis",
    ("Hypothesis: refine", "Reword the selected hypothesis"),
    key="f",
    heading="Reword a hypothesis",
    short="refine hypothesis",
)
RETIRE = ActionSpec(
    "retire",
    "Retire hypothesis",
    Retire,
    (_HYPOTHESIS, Option("because", "Because", flag="--because", required=True, noun="reason")),
    ("hypothesis", "retire"),
    "retire a hypothesis (with reason)",
    ("Hypothesis: retire", "Retire the selected hypothesis"),
    key="minus",
    heading="Retire a hypothesis",
    short="retire hypothesis",
)
REINSTATE = ActionSpec(
    "reinstate",
    "Reinstate hypothesis",
    Reinstate,
    (_HYPOTHESIS, _BECAUSE),
    ("hypothesis", "reinstate"),
    "reinstate a retired hypothesis",
    ("Hypothesis: reinstate", "Reinstate a retired hypothesis"),
    key="i",
    heading="Reinstate a hypothesis",
    short="reinstate hypothesis",
)
EVIDENCE = ActionSpec(
    "evidence",
    "Evidence",
    AssessEvidence,
    (
        Option(
            "likelihoods",
            "Likelihoods, one HYPOTHESIS=P per line (P(E | h))",
            "table",
            flag="--likelihood",
            required=True,
            metavar="HYP=P",
            noun="likelihood (HYPOTHESIS=P)",
            help="P(evidence | hypothesis), repeatable",
        ),
        Option(
            "otherwise",
            "P(E) for every other hypothesis",
            "likelihood",
            flag="--otherwise",
            default=0.5,
            example="0.5",
            noun="P(E) for the others",
            help="P(evidence) for hypotheses not listed (0.5)",
        ),
        Option(
            "kind",
            f"Kind ({', '.join(KINDS)})",
            "choice",
            flag="--kind",
            default="measured",
            example="measured",
            choices=KINDS,
        ),
        Option(
            "reliability",
            "Reliability (optional; default by kind)",
            "reliability",
            flag="--reliability",
            help="0..1 (default by kind)",
        ),
        Option("because", "Rationale", flag="--because", required=True, noun="rationale"),
        Option(
            "probe_run_seq",
            "Rests on probe run (seq, optional)",
            "seq",
            flag="--probe-run",
            example="e.g. 33",
            metavar="SEQ",
            noun="the probe run",
            help="the probe run it rests on",
        ),
        Option(
            "observation_seq",
            "Rests on observation (seq, optional)",
            "seq",
            flag="--observation",
            example="e.g. 34",
            metavar="SEQ",
            noun="the observation",
            help="the observation it rests on",
        ),
        Option(
            "supersedes",
            "Re-assesses evidence (id, optional)",
            "id",
            flag="--supersedes",
            noun="evidence id to supersede",
            example="e.g. e3",
            metavar="EID",
            help="the evidence this re-assesses (it stops counting)",
        ),
        Option("evidence_id", "Id", flag="--id", form=False),
    ),
    ("evidence", "add"),
    "record evidence; prints its id",
    ("Evidence", "Assess evidence with a likelihood table"),
    key="e",
    heading="Assess evidence",
    short="evidence",
)
CONCLUDE = ActionSpec(
    "conclude",
    "Conclusion",
    Conclude,
    (
        Option("summary", "Summary", required=True, noun="summary"),
        Option(
            "root_cause",
            "Root cause (hypothesis id, optional)",
            flag="--root-cause",
            help="the hypothesis id found to be the cause",
        ),
        Option(
            "recommendations",
            "Recommendations, one per line",
            "lines",
            flag="--recommend",
            default=(),
            help="a recommendation (repeatable)",
        ),
        Option(
            "lessons",
            "Lessons, one per line",
            "lines",
            flag="--lesson",
            default=(),
            help="a lesson (repeatable)",
        ),
    ),
    ("conclude",),
    "record the conclusion",
    ("Conclude", "Record the conclusion"),
    key="c",
    heading="Conclude the case",
    short="conclude",
)
PLAYBOOK = ActionSpec(
    "playbook",
    "Playbook",
    OpenPlaybook,
    (
        Option(
            "playbook", "Playbook id", required=True, example="gpu-throughput", noun="playbook id"
        ),
    ),
    ("playbook", "open"),
    "open a playbook in a case",
    ("Playbook", "Open a playbook's question and hypotheses"),
    key="o",
    heading="Open a playbook",
    short="open playbook",
)
EXPORT = ActionSpec(
    "export",
    "Export",
    Export,
    (Option("directory", "Directory to write", required=True, noun="directory"),),
    ("export",),
    "write the case as a case directory",
    ("Export case", "Write the case as a directory"),
    key="x",
    writes=False,
    stamped=False,
    heading="Export the case",
    short="export case",
)
REPORT = ActionSpec(
    "report",
    "Report",
    WriteReport,
    (
        Option(
            "path",
            "File to write (.md, .html or .json)",
            flag="-o",
            required=True,
            example="postmortem.html",
            noun="file to write",
        ),
        Option(
            "fmt",
            "Format (md, html, json; empty: from the file name)",
            "choice",
            flag="--format",
            choices=REPORT_FORMATS,
            noun="format",
        ),
        Option(
            "redact",
            "Redact host names, addresses, users, UUIDs? (yes/no)",
            "switch",
            flag="--redact",
            default=False,
            example="no",
        ),
    ),
    ("report",),
    "a postmortem of a case",
    ("Export report", "Write the postmortem report: Markdown, HTML or JSON"),
    key="r",
    writes=False,
    stamped=False,
    heading="Export the postmortem report",
    short="report",
    own_parser=True,
)
INTAKE = ActionSpec(
    "intake",
    "Intake",
    AnswerIntake,
    (
        Option(
            "answers",
            "Answers, QUESTION=ANSWER per line",
            "pairs",
            flag="--answer",
            metavar="QUESTION=ANSWER",
            default={},
        ),
    ),
    ("intake",),
    "answer the playbook's questions about the symptom",
    ("Intake", "Answer the playbook's questions about the symptom"),
    key="I",
    heading="Intake: the symptom's shape (no probabilities to type)",
    short="intake questions",
    own_parser=True,
)
EXPERIMENT = ActionSpec(
    "experiment",
    "Experiment",
    RecordExperiment,
    (
        Option(
            "change",
            "Change (the one difference)",
            flag="--change",
            required=True,
            example="NCCL_P2P_DISABLE=1",
            missing="state the one change between the two runs",
        ),
        Option(
            "baseline",
            "Baseline run (seq)",
            "seq",
            flag="--baseline",
            required=True,
            example="the run without the change",
            noun="baseline",
            missing="the baseline run's seq is required",
        ),
        Option(
            "variant",
            "Variant run (seq)",
            "seq",
            flag="--variant",
            required=True,
            example="the run with the change",
            noun="variant",
            missing="the variant run's seq is required",
        ),
        Option(
            "metric",
            "Metric (optional)",
            "lines",
            flag="--metric",
            default=(),
            multiline=False,
            example="default: the rule's (nccl.busbw.large …)",
        ),
    ),
    ("experiment",),
    "record an A/B: two runs of one benchmark that differ in one stated change",
    ("Experiment", "Record an A/B of two runs that differ in one change"),
    key="X",
    heading="Experiment: an A/B of one benchmark",
    short="A/B experiment",
    own_parser=True,
)
IMPORT = ActionSpec(
    "import",
    "Import",
    ImportCase,
    (
        Option(
            "directory",
            "Directory",
            required=True,
            example="casefile/reference/glm5-pcie-pivot",
            noun="directory",
        ),
    ),
    ("import",),
    "import a case directory (verified)",
    ("Import case", "Import a case directory"),
    on_case=False,
    stamped=False,
    heading="Import a case directory",
    own_parser=True,
)

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
    EXPORT,
    REPORT,
    INTAKE,
    EXPERIMENT,
    NEW,
    IMPORT,
)
BY_NAME = {spec.name: spec for spec in ACTIONS}
BY_TYPE = {spec.action: spec for spec in ACTIONS}
