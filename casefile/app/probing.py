"""Where a probe runs, from a typed request: locally, over SSH, from pasted output, or sampled.

A front end turns what the user asked for into a :class:`ProbeRequest` (the CLI from its
options, the TUI from its probe dialog) and the service collects with :func:`collect`, which
chooses and drives the runners. Results are yielded as each host's lands, so a slow host never
holds back the others' records and a UI can show one progress line per host.

The probe's own declarations are honoured here: ``timeout_s`` is the default command timeout
(nccl-tests declares 600 s; a CLI default must not cut it to 60), and ``where`` says which
runners may carry it (a sampler-only probe cannot be sent over SSH).

A :class:`CancelToken` given to :func:`collect` stops it (a front end cancels it on Ctrl-C): the
hosts that finished have been yielded already, each one still running is yielded within about
a second as a cancelled result (``error_kind="cancelled"``), and the caller records those as
failed runs like any other.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from casefile.domain.events import utc_now
from casefile.errors import Remedy, RunnerError
from casefile.probes.runners.cancel import CancelToken
from casefile.probes.runners.result import RunResult, Truncation

__all__ = [
    "ADVICE",
    "LOADS",
    "CancelToken",
    "Here",
    "Local",
    "Pasted",
    "ProbeRequest",
    "Sample",
    "Ssh",
    "Stated",
    "Truncation",
    "Where",
    "collect",
    "failure_reason",
    "parse_output",
    "remedy_for",
    "settled_where",
    "ssh_hosts",
]

if TYPE_CHECKING:
    from casefile.domain.facts import ParseResult
    from casefile.plugins import Registry
    from casefile.probes.api import Probe
    from casefile.probes.patterns import FactPattern

LOADS = ("idle", "under-load", "unknown")


@dataclass(frozen=True)
class Here:
    """This machine, by the probe's own means: its sampler (for ``window_s`` seconds) when it
    has one and no command was given, else the command. What a front end asks for when the
    user names no host and pastes nothing; :func:`settled_where` decides, in one place."""

    window_s: float = 2.0


@dataclass(frozen=True)
class Local:
    """Run on this machine."""


@dataclass(frozen=True)
class SshOptions:
    """How a front end's SSH probes connect: the config file's ``ssh_config``, ``known_hosts``
    and connect timeout (the CLI's ``--ssh-config``, ``--known-hosts``, ``--connect-timeout``)."""

    ssh_config: Path | None = None
    known_hosts: Path | None = None
    connect_timeout_s: float = 10.0


@dataclass(frozen=True)
class Ssh:
    """Run on each host over SSH, at once (bounded concurrency, per-host timeouts)."""

    hosts: tuple[str, ...]
    trust_host: bool = False
    known_hosts: Path | None = None
    ssh_config: Path | None = None
    connect_timeout_s: float = 10.0


@dataclass(frozen=True)
class Pasted:
    """Output captured elsewhere: ``text`` as given, or read from ``path``."""

    text: str | bytes | None = None
    path: Path | None = None
    host: str = "unknown"
    #: when the output was taken (ISO 8601 UTC, stored form); None: now
    taken_at: str | None = None


@dataclass(frozen=True)
class Stated:
    """Readings a person states, nothing run: ``facts`` as ``(NAME[SUBJECT], VALUE)`` pairs,
    read by the rules as reported evidence (see :mod:`casefile.domain.stated`)."""

    facts: tuple[tuple[str, str], ...]
    host: str = "unknown"
    #: when the reading was taken (ISO 8601 UTC, stored form); None: now
    taken_at: str | None = None


@dataclass(frozen=True)
class Sample:
    """Collect in-process for ``window_s`` seconds with the probe's sampler (NVML)."""

    window_s: float = 2.0


Where = Here | Local | Ssh | Pasted | Stated | Sample


@dataclass(frozen=True)
class ProbeRequest:
    """One probe to run somewhere and record, as a dialog or the command line states it."""

    probe: str
    where: Where = field(default_factory=Here)
    #: the command to run (or that produced pasted output); empty: the probe's own argv
    argv: tuple[str, ...] = ()
    load: str = "unknown"
    #: None: the probe's declared timeout
    timeout_s: float | None = None
    reconstructed: bool = False
    note: str | None = None
    #: facts to pull out of the output besides the probe's own (``--fact NAME=REGEX``)
    facts: tuple[FactPattern, ...] = ()
    #: another setup than the one under investigation (``--setup``): recorded, not read by rules
    setup: str | None = None
    #: False: keep the secrets in the command, output and note (the run records it)
    scrub: bool = True

    def __post_init__(self) -> None:
        if self.load not in LOADS:
            raise RunnerError(f"load {self.load!r}: use one of {', '.join(LOADS)}")
        if self.setup is not None:
            check_setup(self.setup)


#: A setup's label is a short phrase ("NCCL 2.22", "with NCCL_P2P_DISABLE=1"), one line.
MAX_SETUP = 200


def check_setup(setup: str, what: str = "--setup") -> None:
    """Refuse a setup label the run's conditions could not hold, before anything runs; the
    message names the label as the front end calls it (``what``)."""
    if not setup.strip():
        raise RunnerError(f"{what} needs a few words naming the other setup (e.g. 'NCCL 2.22')")
    if len(setup) > MAX_SETUP:
        raise RunnerError(f"{what} is {len(setup)} characters: name the setup in {MAX_SETUP}")
    if not setup.isprintable():
        raise RunnerError(f"{what} is one line of printable text")


def settled_where(probe: Probe, where: Where, argv: tuple[str, ...]) -> Where:
    """Where a probe runs: as asked, and for :class:`Here` its sampler if it has one and no
    command was given, else this machine."""
    if not isinstance(where, Here):
        return where
    return Sample(where.window_s) if probe.sampler is not None and not argv else Local()


#: What to do about a failure, by the runner's ``error_kind``, in the domain's words: the
#: stored reason says it without any front end's control; a remedy naming an option
#: (``trust_host``) is shown by each front end as its own (the CLI's flag, the TUI's field).
ADVICE = {
    "host_key_unknown": Remedy(
        "check the fingerprint with the host's owner, then trust the key to accept it and save it",
        "trust_host",
    ),
    "host_key_revoked": Remedy(
        "known_hosts lists this key as @revoked: do not trust it (trusting will not accept it "
        "either); check with the host's owner, who must give the host a new key"
    ),
    "closed": Remedy(
        "check that the port is the host's SSH server, that sshd lets you in (AllowUsers, "
        "DenyUsers, ListenAddress) and, when many hosts are probed at once, sshd's MaxStartups; "
        "then rerun"
    ),
    "jump": Remedy(
        "check that the jump host can reach the target at that address and port, and that "
        "its sshd allows forwarding (AllowTcpForwarding); see ProxyJump in the SSH config"
    ),
}


def remedy_for(result: RunResult) -> Remedy | None:
    """The remedy a failed run's kind of failure has, if any (for a front end to word)."""
    return ADVICE.get(result.error_kind or "")


def failure_reason(result: RunResult) -> str | None:
    """Why a run failed, as one line; None when the command ran and exited 0 (or was pasted)."""
    if result.error:
        reason = result.error
        advice = ADVICE.get(result.error_kind or "")
        if advice is not None:
            reason += "; " + advice.does
    elif result.timed_out:
        reason = f"timed out after {result.duration_s:.1f}s"
    elif result.exit_status not in (0, None):  # None: pasted output, whose status is unknown
        program = result.argv[0] if result.argv else "the command"
        reason = f"{program} exited with status {result.exit_status} (the run is recorded)"
    else:
        return None
    return " ".join(reason.split())


def _check_where(probe: Probe, where: Where) -> None:
    if isinstance(where, Stated):
        from casefile.domain.stated import check_statement
        from casefile.errors import DomainError

        try:  # any probe's reading can be told, but only as facts it could have given
            check_statement(
                probe.name, probe.statable, where.facts, probe.fractions, probe.percentages
            )
        except DomainError as error:
            raise RunnerError(str(error)) from None
        return
    allowed = probe.where
    needs = {Local: "local", Ssh: "ssh", Pasted: "pasted", Sample: "sampler"}[type(where)]
    if needs == "sampler":
        if probe.sampler is None:
            raise RunnerError(f"probe {probe.name} has no sampler: run a command instead")
        return
    if needs == "pasted" and "sampler" in allowed:
        return  # a sampler's output captured elsewhere reads like any other
    if needs not in allowed:
        ways = ", ".join(sorted(allowed))
        raise RunnerError(f"probe {probe.name} cannot run {needs} (it runs: {ways})")


def collect(
    probe: Probe, request: ProbeRequest, cancel: CancelToken | None = None
) -> Iterator[RunResult]:
    """Run the request's probe where it says, yielding each host's result as it lands.

    Raises :class:`RunnerError` before running anything when the request cannot be carried
    out (no command to run, a place the probe cannot run, unreadable pasted output); once
    running, every failure is a result, and so is a run that ``cancel`` stopped.
    """
    where = settled_where(probe, request.where, request.argv)
    _check_where(probe, where)
    argv = request.argv or probe.argv
    timeout = request.timeout_s if request.timeout_s is not None else probe.timeout_s
    if isinstance(where, Sample):
        from casefile.probes.runners.sampler import sample

        yield sample(probe, where.window_s)
        return
    if isinstance(where, Pasted):
        yield _pasted(probe, argv, where)
        return
    if isinstance(where, Stated):
        yield _stated(where)
        return
    if not argv:
        raise RunnerError(f"probe {probe.name} has no default command: give one after --")
    if isinstance(where, Ssh):
        yield from _over_ssh(argv, where, timeout, cancel)
        return
    from casefile.probes.runners.local import LocalRunner

    yield LocalRunner(cancel=cancel).run(argv, timeout_s=timeout)


def _pasted(probe: Probe, argv: tuple[str, ...], where: Pasted) -> RunResult:
    from casefile.probes.runners import pasted

    if not argv:
        raise RunnerError(f"probe {probe.name}: say which command produced the output (-- ARGV)")
    taken = where.taken_at or utc_now()
    if where.text is not None:
        return pasted.from_text(argv, where.text, host=where.host, taken_at=taken)
    if where.path is None:
        raise RunnerError("pasted output: give the text or a file to read it from")
    return pasted.from_file(argv, where.path, host=where.host, taken_at=taken)


def _stated(where: Stated) -> RunResult:
    """A stated reading as a run nobody ran: no command, no exit status, no duration; its
    output is the statement itself, so the record shows exactly what was told."""
    from casefile.domain import stated
    from casefile.probes.runners.pasted import capture_time

    if not where.host.strip():
        raise RunnerError("stated reading: say which host it was taken on")
    when = capture_time(where.taken_at or utc_now())
    return RunResult(
        argv=(),
        host=where.host,
        exit_status=None,
        stdout=stated.statement(where.facts),
        stderr="",
        started_at=when,
        finished_at=when,
        duration_s=0.0,
        source=stated.SOURCE,
    )


def _over_ssh(
    argv: tuple[str, ...], where: Ssh, timeout: float, cancel: CancelToken | None
) -> Iterator[RunResult]:
    from casefile.probes.runners.fanout import fan_out_as_completed
    from casefile.probes.runners.ssh import SshRunner

    ssh = SshRunner(
        trust_unknown_host=where.trust_host,
        known_hosts_path=where.known_hosts,
        ssh_config_path=where.ssh_config,
        connect_timeout_s=where.connect_timeout_s,
        cancel=cancel,
    )
    try:
        runners = [ssh.target(host) for host in where.hosts]
        for _index, result in fan_out_as_completed(runners, argv, timeout_s=timeout, cancel=cancel):
            yield result
    finally:
        stopped_early = sys.exc_info()[0] is not None  # Ctrl-C, or the caller stopped reading
        if stopped_early or (cancel is not None and cancel.cancelled):
            # A worker still dialling holds its connection's pool entry until its connect
            # timeout; closing waits for that, so it happens behind the caller's back.
            threading.Thread(target=ssh.close, name="casefile-ssh-close", daemon=True).start()
        else:
            ssh.close()


def parse_output(
    registry: Registry, probe_name: str, text: str
) -> tuple[ParseResult, tuple[str, ...], tuple[str, ...]]:
    """Parse text with a probe's parser, no case involved (``casefile parse``); with the names
    of the other probes that read it, and of those that recognised it. As a paste recorded
    under that probe would be: text given to ``command``, or that the probe could not read, is
    offered to every probe that recognises it (:func:`casefile.app.recording.read_by_others`),
    so that trying a paste here shows what recording it would keep."""
    from casefile.app.recording import Readers, read_by_others
    from casefile.probes.api import RunOutput

    probe = registry.probe(probe_name)
    output = RunOutput((), text, source="pasted")
    parsed = probe.safe_parse(text, output)
    readers = Readers.of(registry, with_rules=False)
    combined, read = read_by_others(readers, probe, parsed, text, output)
    offered = probe.name == "command" or not parsed.parsed
    tried = readers.recognising(probe.name, text) if offered else []
    return combined, tuple(other.name for other in read), tuple(other.name for other in tried)


def ssh_hosts(config: Path | None = None) -> list[str]:
    """The hosts the user's ssh config names (for a host picker; includes followed)."""
    from casefile.probes.runners.ssh_config import host_aliases

    return host_aliases(config)
