"""Host key verification: known_hosts files, fingerprints, the refusal errors and trust_host.

Host keys are verified against the known_hosts files the target's SSH config names, as ``ssh``
reads them (:class:`KnownHostsFiles`): ``UserKnownHostsFile`` (default ``~/.ssh/known_hosts``
and ``~/.ssh/known_hosts2``; a key accepted is recorded in the first) and ``GlobalKnownHostsFile``
(``/etc/ssh/ssh_known_hosts``…, read only), or the one file the caller names instead. Keys are
looked up and recorded under ``HostKeyAlias`` when the config sets one, else ``[host]:port``.

An unknown key is refused (the message names the host, key type and SHA256 fingerprint, and how
to trust it), unless the caller trusts it (``trust_unknown_host``, the CLI's ``--trust-host``) or
the config says ``StrictHostKeyChecking accept-new``; ``no``/``off`` is taken as ``accept-new``,
because casefile always verifies host keys. A *changed* key is refused louder and is never
accepted automatically, whatever is trusted or configured, because that is exactly what a man in
the middle looks like. A key marked ``@revoked`` is refused for every host it is revoked for,
whatever else known_hosts says and whatever the caller trusts. New entries are hashed when the
target's config says ``HashKnownHosts yes``, as ``ssh`` would write them.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

import paramiko

from casefile.errors import RunnerError
from casefile.probes.runners.ssh_known_hosts import KnownHosts, known_hosts_line, load_known_hosts
from casefile.probes.runners.ssh_targets import (
    DEFAULT_CONNECT_TIMEOUT_S,
    SshTarget,
    resolve_target,
)


@dataclass(frozen=True, slots=True)
class KnownHostsFiles:
    """Where one target's host keys are looked up, and where a key accepted for it is recorded."""

    read: tuple[Path, ...]
    #: None for ``UserKnownHostsFile none``: an accepted key is used, and recorded nowhere
    write: Path | None

    @classmethod
    def for_target(cls, target: SshTarget, explicit: Path | None = None) -> KnownHostsFiles:
        """``explicit`` alone (the caller's ``known_hosts_path``, the CLI's ``--known-hosts``,
        which replaces the config's files as ``ssh -o UserKnownHostsFile=…`` would, and the
        global files too); else the target's ``UserKnownHostsFile`` and ``GlobalKnownHostsFile``,
        the first user file written to, as ``ssh`` writes it."""
        if explicit is not None:
            return cls((explicit,), explicit)
        user = target.user_known_hosts
        return cls((*user, *target.global_known_hosts), user[0] if user else None)

    def describe(self) -> str:
        """The files, for a message: the one written to (else the first read), and how many
        others were read."""
        main = self.write or (self.read[0] if self.read else None)
        if main is None:
            return "no known_hosts file (UserKnownHostsFile and GlobalKnownHostsFile are none)"
        others = len(self.read) - (main in self.read)
        if not others:
            return str(main)
        return f"{main} (nor in the {others} other known_hosts file{'s' * (others > 1)} read)"


def fingerprint(key: paramiko.PKey) -> str:
    """The key's fingerprint as OpenSSH prints it: ``SHA256:`` + unpadded base64."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


class HostKeyUnknown(RunnerError):
    """The server's key is not in known_hosts and trusting it was not asked for."""

    def __init__(
        self, target: str, name: str, key: paramiko.PKey, known_hosts: Path | str, note: str = ""
    ) -> None:
        self.known_hosts_name = name
        self.key_type = key.get_name()
        self.fingerprint = fingerprint(key)
        super().__init__(
            f"host key for {target} ({name}) is not trusted: {self.key_type} {self.fingerprint} "
            f"is not in {known_hosts}{note}"
        )


class HostKeyRevoked(RunnerError):
    """known_hosts marks the server's key ``@revoked``: never accepted, not even when trusting."""

    def __init__(self, target: str, name: str, key: paramiko.PKey, known_hosts: Path) -> None:
        self.known_hosts_name = name
        self.key_type = key.get_name()
        self.fingerprint = fingerprint(key)
        super().__init__(
            f"host key for {target} ({name}) is REVOKED, refusing to connect: the server sent "
            f"{self.key_type} {self.fingerprint}, which {known_hosts} marks @revoked"
        )


class HostKeyChanged(RunnerError):
    """known_hosts has a different key for this host: possibly a man in the middle."""

    def __init__(
        self,
        target: str,
        name: str,
        got: paramiko.PKey,
        expected: paramiko.PKey,
        known_hosts: Path,
    ) -> None:
        self.known_hosts_name = name
        self.key_type = got.get_name()
        self.fingerprint = fingerprint(got)
        self.expected_fingerprint = fingerprint(expected)
        super().__init__(
            f"host key CHANGED for {target} ({name}) - POSSIBLE MAN-IN-THE-MIDDLE ATTACK, refusing "
            f"to connect: server sent {self.key_type} {self.fingerprint}, {known_hosts} has "
            f"{expected.get_name()} {self.expected_fingerprint}; if the host was reinstalled, "
            f"remove the old key (ssh-keygen -R '{name}' -f {known_hosts}) and trust it again"
        )


_known_hosts_lock = threading.Lock()


def _append_known_host(path: Path, name: str, key: paramiko.PKey, *, hashed: bool) -> None:
    """Append one entry, leaving the rest of the file (comments, hashed names) as it was."""
    line = known_hosts_line(name, key, hashed=hashed)
    with _known_hosts_lock:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        needs_newline = path.exists() and path.stat().st_size > 0 and not _ends_with_newline(path)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="ascii") as f:
            f.write(("\n" if needs_newline else "") + line)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


class HostKeyPolicy(paramiko.MissingHostKeyPolicy):
    """Refuse unknown keys, or accept and record them when the caller trusts them or the config
    says ``StrictHostKeyChecking accept-new`` (``accept``).

    A revoked key is refused first, accepted or not (paramiko calls this policy for it because
    :meth:`KnownHosts.for_host` leaves revoked keys out of what paramiko checks against). The
    key is checked and recorded under ``name``, the target's known_hosts name, not the
    ``[host]:port`` paramiko passes: they differ when the config sets ``HostKeyAlias``.
    """

    def __init__(
        self,
        target: str,
        name: str,
        files: KnownHostsFiles,
        accept: bool,
        *,
        known: KnownHosts | None = None,
        hash_names: bool = False,
    ) -> None:
        self._target = target
        self._name = name
        self._files = files
        self._accept = accept
        self._known = known or KnownHosts()
        self._hash_names = hash_names

    def missing_host_key(
        self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey
    ) -> None:
        revoked = self._known.revoked_by(self._name, key)
        if revoked is not None:
            raise HostKeyRevoked(self._target, self._name, key, revoked.source)
        if not self._accept:
            note = self._known.unknown_note()
            raise HostKeyUnknown(self._target, self._name, key, self._files.describe(), note)
        client.get_host_keys().add(hostname, key.get_name(), key)
        if self._files.write is not None:
            _append_known_host(self._files.write, self._name, key, hashed=self._hash_names)


@dataclass(frozen=True, slots=True)
class HostKeyInfo:
    """What :func:`trust_host` found: the key and whether it was newly added."""

    known_hosts_name: str
    key_type: str
    fingerprint: str
    added: bool


def trust_host(
    target: str,
    *,
    known_hosts_path: Path | None = None,
    ssh_config_path: Path | None = None,
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
) -> HostKeyInfo:
    """Fetch ``target``'s host key and append it to known_hosts unless it is already there.

    This is the explicit "I have checked the fingerprint" step. The files are those
    :meth:`KnownHostsFiles.for_target` names: ``known_hosts_path`` alone, else the ones the SSH
    config names (the key recorded in the first ``UserKnownHostsFile``, under ``HostKeyAlias`` if
    set). A host whose known key differs raises :class:`HostKeyChanged`, a revoked key
    :class:`HostKeyRevoked`; nothing is replaced. The name is hashed when the config says
    ``HashKnownHosts yes``. Other failures (``UserKnownHostsFile none`` among them: nowhere to
    record) raise ``RunnerError``. The key is fetched directly: a target behind ProxyJump is
    refused here (``SshRunner(trust_unknown_host=True)`` goes through the jump).
    """
    resolved = resolve_target(target, config_path=ssh_config_path)
    files = KnownHostsFiles.for_target(resolved, known_hosts_path)
    if resolved.proxy_jump:
        raise RunnerError(
            f"cannot fetch the host key of {target} directly: it is reached through ProxyJump "
            f"{','.join(resolved.proxy_jump)}; trust it with SshRunner(trust_unknown_host=True)"
        )
    try:
        sock = socket.create_connection((resolved.hostname, resolved.port), connect_timeout_s)
    except OSError as e:
        raise RunnerError(f"cannot fetch the host key of {target}: {e}") from e
    transport = paramiko.Transport(sock)
    try:
        transport.banner_timeout = connect_timeout_s
        transport.start_client(timeout=connect_timeout_s)
        key = transport.get_remote_server_key()
    except (paramiko.SSHException, OSError, EOFError) as e:
        raise RunnerError(f"cannot fetch the host key of {target}: {e}") from e
    finally:
        transport.close()
    loaded = load_known_hosts(files.read)
    name = resolved.known_hosts_name
    revoked = loaded.revoked_by(name, key)
    if revoked is not None:
        raise HostKeyRevoked(target, name, key, revoked.source)
    known = loaded.for_host(name).lookup(name)
    info = HostKeyInfo(name, key.get_name(), fingerprint(key), added=known is None)
    if known is None:
        if files.write is None:
            raise RunnerError(
                f"cannot trust the host key of {target}: the SSH config says UserKnownHostsFile "
                "none, so there is no file to record it in"
            )
        _append_known_host(files.write, name, key, hashed=resolved.hash_known_hosts)
    elif known.get(key.get_name()) != key:
        expected = known.get(key.get_name()) or next(iter(known.values()))
        raise HostKeyChanged(
            target, name, key, expected, loaded.source_of(name, expected) or files.read[0]
        )
    return info
