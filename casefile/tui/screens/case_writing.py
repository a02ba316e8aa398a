"""Recording from the case screen: the action dialogs, probes, and what each appended.

Every action goes through a typed request (``casefile.tui.requests``) run on the case thread,
and its ``casefile …`` command line goes to the Commands tab. Probes run on a thread of their
own (see ``casefile/tui/backend.py``), one at a time, cancelled by Esc.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import RichLog

from casefile.app.who import Who
from casefile.errors import CasefileError
from casefile.text_safety import line
from casefile.tui.dialogs.actions import dialog
from casefile.tui.requests import Request, command_line
from casefile.tui.widgets.hypotheses import HypothesisTree
from casefile.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    pass
from casefile.tui.screens.case_base import CaseScreenBase

#: The actions a read-only view refuses.
WRITES = {
    "note",
    "action",
    "question",
    "hypothesis",
    "refine",
    "retire",
    "reinstate",
    "evidence",
    "conclude",
    "playbook",
    "probe",
}


class CaseWriting(CaseScreenBase):
    """The actions that append events."""

    async def _write(self, request: Request) -> None:
        backend = self.casefile.backend
        who = Who(self.casefile.actor)
        try:
            said = await backend.call(lambda: request.run(backend.service, self.case_id, who))
        except CasefileError as error:
            # nothing half-written: the service appends a verb's events in one transaction
            self.notify(
                line(str(error)),
                title=f"{request.title} not recorded",
                severity="error",
                markup=False,
            )
            return
        command = command_line(request, self.case_id, self.casefile.actor)
        self.commands.append(command)
        self.query_one("#commands", RichLog).write(f"$ {command}")
        self.notify(f"{said}\n$ {command}", title=request.title, markup=False)
        await self._refresh()

    def _preset(self, kind: str) -> dict[str, str]:
        tree = self.query_one(HypothesisTree)
        hid = tree.chosen_id()
        preset: dict[str, str] = {}
        if kind in ("refine", "retire", "reinstate") and hid:
            preset["hypothesis"] = hid
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
        if self.read_only and kind in WRITES:
            self.notify(
                "this case is open read-only",
                title="Not recorded",
                severity="warning",
                markup=False,
            )
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

        def confirmed(request: Request | None) -> None:
            if request is not None:
                self._spawn(self._write, request, name=f"write-{kind}", group="write")

        self.app.push_screen(form, confirmed)

    async def _evidence_preview(self, request: object) -> str:
        from casefile.tui.dialogs.actions import preview_text
        from casefile.tui.requests import EvidenceRequest

        assert isinstance(request, EvidenceRequest)
        backend = self.casefile.backend
        preview = await backend.call(
            lambda: backend.board(self.case_id).preview_evidence(
                dict(request.likelihoods), request.otherwise, request.kind, request.reliability
            )
        )
        return preview_text(preview)

    def action_probe(self, probe: str | None = None, load: str | None = None) -> None:
        from casefile.tui.dialogs.probe import ProbeDialog, ProbeOutcome

        if self.read_only:
            self.notify(
                "this case is open read-only",
                title="Not recorded",
                severity="warning",
                markup=False,
            )
            return
        if self.probe_cancel is not None:  # one at a time: Esc must reach the running one
            self.notify(
                "a probe is running: wait for it, or Esc to cancel it",
                title="Probe",
                markup=False,
            )
            return
        names = self.casefile.probe_names()
        dialog_screen = ProbeDialog(
            names,
            probe=probe,
            load=load or "unknown",
            case_id=self.case_id,
            actor=self.casefile.actor,
            hosts=self.casefile.ssh_hosts(),
            ssh=self.casefile.ssh,
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
            lines = await backend.probe_call(
                lambda service: run_probe_request(
                    service, self.case_id, outcome.request, who, progress, cancel, outcome.window_s
                )
            )
        except CasefileError as error:
            self.notify(
                line(str(error)), title="Probe not recorded", severity="error", markup=False
            )
            return
        finally:
            self.probe_cancel = None
            bar.change(notice="")
        self.commands.append(outcome.command)
        failed = any("failed run" in text for text in lines)
        if cancel.cancelled:
            title = "Probe cancelled"
        else:
            title = "Probe recorded as a failed run" if failed else "Probe recorded"
        self.notify("\n".join(lines[-3:]) + f"\n$ {outcome.command}", title=title, markup=False)
        await self._refresh()
