"""The probe dialog: which probe, where (this machine, SSH hosts, or pasted output) and under
what load; it returns a :class:`ProbeOutcome` holding the service's own
:class:`~casefile.app.probing.ProbeRequest` and the equivalent command line."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.widgets import Input, OptionList

from casefile.actions.spec import Outcome
from casefile.app.probing import (
    LOADS,
    CancelToken,
    Here,
    Pasted,
    ProbeRequest,
    Ssh,
    check_setup,
    remedy_for,
)
from casefile.app.views.probe_catalog import ProbeEntry
from casefile.errors import RunnerError
from casefile.tui.dialogs.form import Field, FormDialog, optional, required
from casefile.tui.errors import control_hint
from casefile.tui.widgets.probe_picker import ProbePicker

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who

#: The field that accepts and saves an SSH host's unknown key (the remedy of that refusal)
TRUST_FIELD = "trust"
TRUST_LABEL = "Trust a new host key (yes/no: check its fingerprint with the host's owner first)"

PROBE_LABEL = "Probe: pick one (↑ ↓, Enter), or type its name in the field below the list"

#: Hosts one dialog may fan out to (the CLI takes more; a dialog line is for a handful).
MAX_HOSTS = 64


@dataclass(frozen=True)
class SshOptions:
    """How the TUI's SSH probes connect: the CLI's ``--ssh-config``, ``--known-hosts`` and
    ``--connect-timeout``, from the config file (or a test)."""

    ssh_config: Path | None = None
    known_hosts: Path | None = None
    connect_timeout_s: float = 10.0


@dataclass(frozen=True)
class ProbeOutcome:
    request: ProbeRequest
    command: str
    title: str = "Probe"


def build_probe(
    values: Mapping[str, str],
    probes: Sequence[str],
    case_id: str,
    ssh: SshOptions | None = None,
) -> ProbeOutcome:
    name = required(values, "probe", "the probe")
    if name not in probes:
        raise ValueError(f"no probe {name!r} (installed: {', '.join(probes)})")
    load = values.get("load", "").strip() or "unknown"
    if load not in LOADS:
        raise ValueError(f"load must be one of {', '.join(LOADS)}")
    hosts = [h for h in values.get("hosts", "").replace(",", " ").split() if h]
    pasted = values.get("paste", "")
    if hosts and pasted.strip():
        raise ValueError("give SSH hosts or pasted output, not both")
    if len(hosts) > MAX_HOSTS:
        raise ValueError(f"at most {MAX_HOSTS} hosts from the dialog")
    for host in hosts:
        if host.startswith("-"):
            raise ValueError(f"{host!r} is not a host")
    trust = values.get("trust", "").strip().lower()
    if trust not in ("", "yes", "y", "no", "n"):
        raise ValueError("trust a new host key: yes or no")
    trusting = trust in ("yes", "y")
    if trusting and not hosts:
        raise ValueError("trusting a new host key goes with SSH hosts")
    argv_text = values.get("argv", "").strip()
    try:
        argv = tuple(shlex.split(argv_text)) if argv_text else ()
    except ValueError as error:
        raise ValueError(f"the command line does not split: {error}") from None
    note = optional(values, "note")
    setup = optional(values, "setup")
    window_text = values.get("window", "").strip()
    try:
        window = float(window_text) if window_text else 2.0
    except ValueError:
        raise ValueError(f"the sampling window {window_text!r} is not a number") from None
    if window != window or not 0 < window <= 3600:
        raise ValueError("the sampling window must be more than 0 and at most 3600 seconds")
    words = ["casefile", "probe", case_id, name, "--load", load]
    if pasted.strip():
        pasted_host = optional(values, "paste_host") or "unknown"
        where: Here | Ssh | Pasted = Pasted(text=pasted, host=pasted_host)
        words += ["--paste", "-"]
        if pasted_host != "unknown":
            words += ["--host", pasted_host]
    elif hosts:
        options = ssh or SshOptions()
        where = Ssh(
            tuple(hosts),
            known_hosts=options.known_hosts,
            ssh_config=options.ssh_config,
            connect_timeout_s=options.connect_timeout_s,
            trust_host=trusting,
        )
        for host in hosts:
            words += ["--host", host]
        if trusting:
            words.append("--trust-host")
    else:
        where = Here(window)
    if note:
        words += ["--note", note]
    if setup:
        words += ["--setup", setup]
    if argv:
        words += ["--", *argv]
    if window != 2.0:
        words += ["--window", f"{window:g}"]
    if setup is not None:
        try:
            check_setup(setup, "the other setup")
        except RunnerError as error:
            raise ValueError(str(error)) from None
    request = ProbeRequest(name, where, argv=argv, load=load, note=note, setup=setup)
    return ProbeOutcome(request, shlex.join(words))


class ProbeDialog(FormDialog[ProbeOutcome]):
    def __init__(
        self,
        probes: Sequence[str],
        *,
        probe: str | None,
        load: str,
        case_id: str,
        actor: str,
        hosts: Sequence[str] = (),
        ssh: SshOptions | None = None,
        catalog: Sequence[ProbeEntry] = (),
    ) -> None:
        self.catalog = list(catalog)
        self.chosen_probe = probe
        known = f" — from ~/.ssh/config: {' '.join(hosts[:12])}" if hosts else ""
        fields = [
            Field("probe", PROBE_LABEL, "e.g. nvidia-smi-q", probe or ""),
            Field("load", "Load (idle, under-load, unknown)", "", load),
            Field(
                "hosts",
                f"SSH hosts, space-separated (empty: this machine){known}",
                f"e.g. {hosts[0] if hosts else 'gpu-node-1'}",
            ),
            Field(TRUST_FIELD, TRUST_LABEL, "", "no"),
            Field("argv", "Command line (empty: the probe's own)"),
            Field("paste", "…or paste output taken elsewhere", multiline=True),
            Field("paste_host", "Host the pasted output came from", "", "unknown"),
            Field("window", "Sampling window, seconds (samplers such as nvml-sampler)", "", "2"),
            Field("note", "Note (optional)"),
            Field(
                "setup",
                "Taken on another setup? Name it (kept to compare; the rules skip it)",
                "e.g. NCCL 2.22, after the fix",
            ),
        ]
        super().__init__(
            "Run a probe",
            fields,
            lambda values: build_probe(values, probes, case_id, ssh),
            echo=lambda outcome: outcome.command,
            confirm_label="Run",
        )

    def on_mount(self) -> None:
        """The picker goes above the probe's name field and takes the focus (the form's own
        mount handler, which runs next, focuses the first field: the picker is not one)."""
        if not self.catalog:
            return
        picker = ProbePicker(self.catalog, self.chosen_probe)
        self.query_one("#form-fields").mount(picker, before="#field-probe")
        self.call_after_refresh(picker.focus)

    @on(OptionList.OptionSelected, "#probe-picker")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        """Enter on a probe: its name goes in the field, and the focus to the next one."""
        event.stop()
        name = event.option.id
        if name is not None:
            self.query_one("#field-probe", Input).value = name
            self.query_one("#field-load", Input).focus()


def run_probe_request(
    service: CaseService,
    case_id: str,
    request: ProbeRequest,
    who: Who,
    progress: Callable[[str], None] | None = None,
    cancel: CancelToken | None = None,
) -> Outcome:
    """Run and record (on the probe thread); one line per host as each lands, and whether any
    host's run was recorded as a failed run."""
    lines: list[str] = []
    seqs: list[int] = []
    failed = False
    for record in service.probing.run_probe(case_id, request, who, cancel=cancel):
        seqs.append(record.probe_run_seq)
        failed = failed or bool(record.failure)
        host = record.result.host or "local"
        if record.failure:
            hint = control_hint(remedy_for(record.result))
            text = f"{host}: recorded as failed run #{record.probe_run_seq}: {record.failure}{hint}"
        else:
            facts = len(record.parse.facts)
            text = (
                f"{host}: run #{record.probe_run_seq}, {facts} facts, "
                f"{len(record.evidence_ids)} evidence, {len(record.set_aside)} set aside"
            )
        lines.append(text)
        if progress is not None:
            progress(text)
    return Outcome("\n".join(lines), seqs=tuple(seqs), failed=failed)
