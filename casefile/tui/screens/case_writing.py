"""Recording from the case screen: the action dialogs, probes, and what each appended.

Every action is a row of the action table (:mod:`casefile.actions.table`): its dialog returns
the typed action, which runs on the case thread, and its ``casefile …`` command line goes to
the Commands tab. Probes run on a thread of their
own (see ``casefile/tui/backend.py``), one at a time, cancelled by Esc. An ingest reads and
proposes on a thread worker, opens the review on what it proposes, and appends what the review
kept as any other request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType
from textual.widgets import RichLog
from textual.worker import get_current_worker

from casefile.actions.hypothesis_actions import AssessEvidence
from casefile.actions.ingest_actions import IngestTranscript
from casefile.actions.spec import Action, command_line
from casefile.actions.table import ACTIONS, BY_NAME
from casefile.app.who import Who
from casefile.errors import CasefileError
from casefile.text_safety import line
from casefile.tui.dialogs.actions import dialog
from casefile.tui.dialogs.ingest import IngestSelection
from casefile.tui.errors import error_text
from casefile.tui.screens.case_base import CaseScreenBase
from casefile.tui.widgets.hypotheses import HypothesisTree
from casefile.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from casefile.transcripts.proposal import Proposal

#: The case screen's actions that append events: a read-only view does not offer them
WRITES = frozenset(spec.name for spec in ACTIONS if spec.writes and spec.on_case)


def writes(action: str, parameters: tuple[object, ...] = ()) -> bool:
    """Whether a screen action (``write('note')``, ``probe``) appends events."""
    if action == "write":
        return bool(parameters) and parameters[0] in WRITES
    return action in WRITES


def action_bindings() -> list[BindingType]:
    """The case screen's keys for the table's actions (each opens its row's dialog)."""
    return [
        Binding(spec.key, f"write('{spec.name}')", spec.short or spec.name, show=spec.footer)
        for spec in ACTIONS
        if spec.key is not None and spec.on_case
    ]


#: how often, and how long apart, a proposal read while the ingest dialog that asked for it is
#: still closing waits for it to go (5 s in all: a dialog closes within a frame or two)
CLOSING_TRIES = 100
CLOSING_WAIT_S = 0.05


class CaseWriting(CaseScreenBase):
    """The actions that append events."""

    def _record(self, kind: str, action: Action) -> None:
        """Run a table action on the case thread; its command line is the row's."""
        spec = BY_NAME[kind]
        command = command_line(spec, action, self.case_id, self.casefile.actor)
        self._spawn(self._write, spec.title, action, command, name=f"write-{kind}", group="write")

    async def _write(self, title: str, action: Action | IngestSelection, command: str) -> None:
        backend = self.casefile.backend
        who = Who(self.casefile.actor)
        try:
            outcome = await backend.call(lambda: action.run(backend.service, self.case_id, who))
        except CasefileError as error:
            # nothing half-written: the service appends a verb's events in one transaction
            self.notify(
                line(error_text(error)),
                title=error.title or f"{title} not recorded",
                severity="error",
                markup=False,
            )
            return
        self.commands.append(command)
        self.query_one("#commands", RichLog).write(f"$ {command}")
        self.notify(f"{outcome.said}\n$ {command}", title=title, markup=False)
        await self._refresh()

    def _preset(self, kind: str) -> dict[str, str]:
        tree = self.query_one(HypothesisTree)
        hid = tree.chosen_id()
        preset: dict[str, str] = {}
        if kind in ("refine", "retire", "reinstate", "prior") and hid:
            preset["hypothesis_id"] = hid
            if kind == "refine" and self.frame is not None:
                text = next((r.text for r in self.frame.tree if r.id == hid), "")
                preset["text"] = text
        if kind == "hypothesis":
            # a new hypothesis goes under the question unless a parent is chosen on purpose
            # (`+` on a hypothesis row would nest it, the catch-all cannot hold one)
            preset["under"] = tree.chosen_question() or ""
        head = self.state.frame if self.state is not None else None
        if kind == "conclude" and head is not None and head.questions:
            # the leader now, not at the step a replay shows
            preset["root_cause"] = head.questions[0].leader or ""
        return preset

    def action_write(self, kind: str) -> None:
        """Open the dialog of one row of the action table (intake, the experiment, the probe and
        ingest have dialogs of their own, built from what the case holds and what is installed,
        and ingest a review)."""
        if kind == "intake":
            return self.action_intake()
        if kind == "experiment":
            return self.action_experiment()
        if kind == "probe":
            return self.action_probe()
        if kind == "ingest":
            return self.action_ingest()
        if kind in WRITES and self._refuse_when_read_only():
            return
        if self.focus_seq is not None and kind in WRITES:
            self.notify(
                "you are replaying an earlier step; new events go at the head (Esc returns live)",
                title="Recording at the head",
                markup=False,
            )
        preview = self._evidence_preview if kind == "evidence" else None
        form = dialog(
            kind,
            case_id=self.case_id,
            actor=self.casefile.actor,
            preset=self._preset(kind),
            preview=preview,
        )

        def confirmed(action: Action | None) -> None:
            if action is not None:
                self._record(kind, action)

        self.app.push_screen(form, confirmed)

    async def _evidence_preview(self, request: object) -> str:
        from casefile.tui.dialogs.actions import preview_text

        assert isinstance(request, AssessEvidence)
        backend = self.casefile.backend
        case_id = self.case_id

        def preview() -> object:
            return backend.board(case_id).preview_evidence(
                dict(request.likelihoods),
                request.otherwise,
                request.kind,
                request.reliability,
                probe_run_seq=request.probe_run_seq,
                observation_seq=request.observation_seq,
                supersedes=request.supersedes,
            )

        return preview_text(await backend.call(preview))

    def action_probe(self, probe: str | None = None, load: str | None = None) -> None:
        from casefile.tui.dialogs.probe import ProbeDialog, ProbeOutcome

        if self._refuse_when_read_only():
            return
        if self.probe_cancel is not None:  # one at a time: Esc must reach the running one
            self.notify(
                "a probe is running: wait for it, or Esc to cancel it",
                title="Probe",
                markup=False,
            )
            return
        catalog = self.casefile.probe_catalog()
        dialog_screen = ProbeDialog(
            [entry.name for entry in catalog],
            probe=probe,
            load=load or "unknown",
            case_id=self.case_id,
            actor=self.casefile.actor,
            hosts=self.casefile.ssh_hosts(),
            ssh=self.casefile.ssh,
            catalog=catalog,
        )

        def confirmed(outcome: ProbeOutcome | None) -> None:
            if outcome is not None:
                self._spawn(self._run_probe, outcome, name="probe", group="probe")

        self.app.push_screen(dialog_screen, confirmed)

    async def _run_probe(self, outcome: object) -> None:
        from casefile.app.probing import CancelToken
        from casefile.tui.dialogs.probe import ProbeOutcome, run_probe_request

        assert isinstance(outcome, ProbeOutcome)
        backend = self.casefile.backend
        who = Who(self.casefile.actor)
        name = outcome.request.probe
        cancel = self.probe_cancel = CancelToken()
        log = self.query_one("#commands", RichLog)
        log.write(f"$ {outcome.command}")
        bar = self.query_one(StatusBar)
        bar.change(notice=f"probe {name} running… (Esc cancels)")

        def progress(text: str) -> None:
            # from the probe thread: one line per host as each lands
            self.app.call_from_thread(log.write, f"  {text}")
            self.app.call_from_thread(bar.change, notice=f"probe {name}: {text}")

        try:
            ran = await backend.probe_call(
                lambda service: run_probe_request(
                    service, self.case_id, outcome, who, progress, cancel
                )
            )
        except CasefileError as error:
            self.notify(
                line(error_text(error)), title="Probe not recorded", severity="error", markup=False
            )
            return
        finally:
            self.probe_cancel = None
            bar.change(notice="")
        self.commands.append(outcome.command)
        if cancel.cancelled:
            title = "Probe cancelled"
        else:
            title = "Probe recorded as a failed run" if ran.failed else "Probe recorded"
        lines = ran.said.splitlines()
        self.notify("\n".join(lines[-3:]) + f"\n$ {outcome.command}", title=title, markup=False)
        await self._refresh()

    # --- intake and experiments ---------------------------------------------------------------

    def _refuse_when_read_only(self) -> bool:
        """Say so and refuse when the case is open read-only (every write action asks)."""
        if self.read_only:
            self.notify(
                "this case is open read-only",
                title="Not recorded",
                severity="warning",
                markup=False,
            )
            return True
        return False

    def action_intake(self) -> None:
        """The playbook's intake questions, fetched on the case thread, in one form."""
        if not self._refuse_when_read_only():
            self._spawn(self._open_intake, name="intake-questions", group="write")

    async def _open_intake(self) -> None:
        from casefile.tui.dialogs.triage import intake_dialog

        backend = self.casefile.backend
        case_id = self.case_id
        try:
            items = await backend.call(lambda: backend.service.reader.intake(case_id))
        except CasefileError as error:
            self.notify(line(str(error)), title="No intake", severity="error", markup=False)
            return
        if not items:
            self.notify(
                "the case's playbook asks no intake questions (open gpu-throughput with o)",
                title="No intake",
                markup=False,
            )
            return
        form = intake_dialog(items, case_id=case_id, actor=self.casefile.actor)

        def confirmed(action: Action | None) -> None:
            if action is not None:
                self._record("intake", action)

        self.app.push_screen(form, confirmed)

    def action_experiment(self, rule_id: str | None = None) -> None:
        """An A/B of two recorded runs; from next steps, with the rule's suggestion shown."""
        if not self._refuse_when_read_only():
            self._spawn(self._open_experiment, rule_id, name="experiment-form", group="write")

    async def _open_experiment(self, rule_id: str | None) -> None:
        from casefile.tui.dialogs.triage import experiment_dialog

        hint = ""
        if rule_id is not None:
            backend = self.casefile.backend
            case_id = self.case_id
            rules = await backend.call(lambda: backend.service.reader.experiment_rules(case_id))
            hint = next((r.suggest for r in rules if r.id == rule_id), "")
        form = experiment_dialog(case_id=self.case_id, actor=self.casefile.actor, hint=hint)

        def confirmed(action: Action | None) -> None:
            if action is not None:
                self._record("experiment", action)

        self.app.push_screen(form, confirmed)

    # --- ingest ----------------------------------------------------------------------------

    def action_ingest(self) -> None:
        from casefile.tui.dialogs.ingest import IngestDialog

        if self._refuse_when_read_only():
            return
        if self.focus_seq is not None:
            self.notify(
                "you are replaying an earlier step; new events go at the head (Esc returns live)",
                title="Recording at the head",
                markup=False,
            )

        def confirmed(request: IngestTranscript | None) -> None:
            if request is not None:
                self._propose(request)

        self.app.push_screen(
            IngestDialog(case_id=self.case_id, actor=self.casefile.actor), confirmed
        )

    def _propose(self, request: IngestTranscript) -> None:
        """Read the transcript and build its proposal on a thread worker (a big session takes
        seconds to parse); a newer ingest replaces it, and a replaced one's result is dropped."""
        service = self.casefile.backend.proposer()
        bar = self.query_one(StatusBar)
        bar.change(notice=f"reading {line(request.path)}…")

        def work() -> None:
            worker = get_current_worker()
            try:
                proposal = request.propose(service)
            except CasefileError as error:
                if not worker.is_cancelled:
                    self.app.call_from_thread(self._not_proposed, request, str(error))
                return
            except Exception as error:  # a bug: say so, keep the screen
                if not worker.is_cancelled:
                    text = f"{type(error).__name__}: {error}"
                    self.app.call_from_thread(self._not_proposed, request, text, True)
                return
            if not worker.is_cancelled:
                self.app.call_from_thread(self._review, request, proposal)

        self.run_worker(
            work,
            name="ingest-propose",
            group="ingest",
            exclusive=True,
            thread=True,
            exit_on_error=False,  # (the app outlives a worker that failed to report back)
        )

    def _not_proposed(self, request: IngestTranscript, text: str, bug: bool = False) -> None:
        self.query_one(StatusBar).change(notice="")
        self.notify(
            line(text),
            title="Internal error (please report it)" if bug else "Ingest: nothing appended",
            severity="error",
            markup=False,
        )

    def _review(self, request: IngestTranscript, proposal: Proposal, tries: int = 0) -> None:
        from casefile.tui.dialogs.ingest import IngestDialog
        from casefile.tui.screens.ingest_review import IngestReviewScreen

        if not self.is_attached:
            return  # the case screen was left meanwhile
        if isinstance(self.app.screen, IngestDialog) and tries < CLOSING_TRIES:
            # the dialog that asked for this may still be closing when a small transcript is
            # read: wait for it to go, rather than take it for another screen opened meanwhile
            self.set_timer(CLOSING_WAIT_S, lambda: self._review(request, proposal, tries + 1))
            return
        self.query_one(StatusBar).change(notice="")
        if self.app.screen is not self:
            self.notify(
                f"{line(request.path)} was read while another screen was open: t again",
                title="Ingest: nothing appended",
                markup=False,
            )
            return
        review = IngestReviewScreen(
            request, proposal, case_id=self.case_id, actor=self.casefile.actor
        )

        def reviewed(selection: IngestSelection | None) -> None:
            if selection is not None:
                command = selection.command_line(self.case_id, self.casefile.actor)
                self._spawn(
                    self._write, "Ingest", selection, command, name="write-ingest", group="write"
                )

        self.app.push_screen(review, reviewed)
