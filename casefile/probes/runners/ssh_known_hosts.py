"""Reading known_hosts files the way OpenSSH does, markers included.

paramiko's own loader takes every line for ``names keytype key``, so one ``@cert-authority`` or
``@revoked`` line (which OpenSSH reads fine) made it raise ``InvalidHostKey`` and every SSH probe
fail. Here each line is read on its own:

* ``@revoked PATTERNS KEYTYPE KEY``: the key is refused for matching hosts, even where another
  line lists it as the host's key, and even when unknown keys are being trusted.
* ``@cert-authority …``: skipped with a note. casefile verifies plain host keys only; a host that
  presents a certificate signed by that authority is then "unknown" (the message says why).
* A line that does not parse (too few fields, bad base64, a key type paramiko lacks) is skipped,
  as OpenSSH skips it, instead of failing the whole file.

Host patterns are matched as OpenSSH matches them (hashed ``|1|salt|hash`` names, ``*`` and ``?``
wildcards, ``!`` negation), and only the lines that match the host being dialled are turned into
keys: paramiko's loader re-checks every hashed name against every other on load (quadratic; 27 s
for a 2,000-entry file, see benchmarks/README.md), this reads such a file in milliseconds.

New entries are written by :func:`known_hosts_line`, hashed when asked, in the form both OpenSSH
and paramiko read back.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hmac
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import paramiko
from paramiko.pkey import UnknownKeyType

from casefile.errors import RunnerError

log = logging.getLogger(__name__)

CERT_AUTHORITY = "@cert-authority"
REVOKED = "@revoked"


@dataclass(frozen=True, slots=True)
class KnownLine:
    """One usable known_hosts line, its key still undecoded (most lines are for other hosts)."""

    patterns: tuple[str, ...]
    key_type: str
    key_base64: str
    #: the file it was read from, for messages (``ssh-keygen -R NAME -f FILE``)
    source: Path = Path("known_hosts")

    def matches(self, name: str) -> bool:
        return host_matches(name, self.patterns)

    def blob(self) -> bytes | None:
        try:
            return base64.b64decode(self.key_base64, validate=True)
        except (binascii.Error, ValueError):
            return None

    def key(self) -> paramiko.PKey | None:
        """The key, or None when the line is damaged or of a type paramiko cannot use."""
        blob = self.blob()
        if blob is None:
            return None
        try:
            return paramiko.PKey.from_type_string(self.key_type, blob)
        except (UnknownKeyType, ValueError, TypeError, paramiko.SSHException):
            return None


@dataclass
class KnownHosts:
    """The host-key lines of some known_hosts files, the revoked ones, and what was skipped."""

    lines: list[KnownLine] = field(default_factory=list)
    revoked: list[KnownLine] = field(default_factory=list)
    cert_authority_lines: int = 0
    notes: list[str] = field(default_factory=list)

    def is_revoked(self, name: str, key: paramiko.PKey) -> bool:
        """Whether ``key`` is marked ``@revoked`` for the known_hosts name ``name``."""
        return self.revoked_by(name, key) is not None

    def revoked_by(self, name: str, key: paramiko.PKey) -> KnownLine | None:
        """The ``@revoked`` line that revokes ``key`` for ``name``, if any."""
        blob = key.asbytes()
        return next((r for r in self.revoked if r.blob() == blob and r.matches(name)), None)

    def source_of(self, name: str, key: paramiko.PKey) -> Path | None:
        """The file that lists ``key`` for ``name`` (the first, if several do)."""
        blob = key.asbytes()
        return next((k.source for k in self.lines if k.blob() == blob and k.matches(name)), None)

    def for_host(
        self, name: str, into: paramiko.HostKeys | None = None, *, stored_as: str | None = None
    ) -> paramiko.HostKeys:
        """The keys known for ``name`` (added to ``into`` if given), less any revoked for it, so
        that paramiko, verifying a connection to ``name``, never accepts a revoked key.

        ``stored_as`` files them under another name: paramiko looks keys up by ``[host]:port``,
        while a ``HostKeyAlias`` names them in known_hosts by the alias.
        """
        kept = into if into is not None else paramiko.HostKeys()
        for line in self.lines:
            if line.matches(name):
                key = line.key()
                if key is not None and not self.is_revoked(name, key):
                    kept.add(stored_as or name, key.get_name(), key)
        return kept

    def unknown_note(self) -> str:
        """What to add to an "unknown host key" message when skipped lines may explain it."""
        if not self.cert_authority_lines:
            return ""
        lines = "line" if self.cert_authority_lines == 1 else "lines"
        return (
            f" ({self.cert_authority_lines} @cert-authority {lines} skipped: casefile checks "
            "plain host keys, not host certificates)"
        )


def load_known_hosts(paths: Iterable[Path]) -> KnownHosts:
    """Read each existing file in ``paths``; raises ``RunnerError`` only if one cannot be read."""
    known = KnownHosts()
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            continue
        except OSError as e:
            raise RunnerError(f"cannot read known_hosts {path}: {e.strerror or e}") from e
        _load_text(known, path, text)
    return known


def _load_text(known: KnownHosts, path: Path, text: str) -> None:
    skipped = 0
    cert_authority = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        marker = fields.pop(0) if fields[0].startswith("@") else ""
        if marker == CERT_AUTHORITY:
            cert_authority += 1
            continue
        if len(fields) < 3 or marker not in ("", REVOKED):
            skipped += 1
            continue
        entry = KnownLine(tuple(fields[0].split(",")), fields[1], fields[2], path)
        (known.revoked if marker == REVOKED else known.lines).append(entry)
    notes: list[str] = []
    if cert_authority:
        known.cert_authority_lines += cert_authority
        notes.append(
            f"{path}: skipped {cert_authority} @cert-authority line(s); host certificates are "
            "not verified by casefile"
        )
    if skipped:
        notes.append(f"{path}: skipped {skipped} line(s) that are not host keys casefile reads")
    for note in notes:
        log.info("%s", note)
    known.notes.extend(notes)


def host_matches(name: str, patterns: Iterable[str]) -> bool:
    """OpenSSH host-pattern matching: hashed names, ``*``/``?`` wildcards, ``!`` negation."""
    matched = False
    lowered = name.lower()
    for pattern in patterns:
        negated = pattern.startswith("!")
        body = pattern[1:] if negated else pattern
        if body.startswith("|1|"):
            hit = _hashed_matches(name, body)
        elif "*" in body or "?" in body:
            hit = _wildcard(body).fullmatch(lowered) is not None
        else:
            hit = body.lower() == lowered
        if hit and negated:
            return False
        matched = matched or hit
    return matched


@functools.lru_cache(maxsize=1024)
def _wildcard(pattern: str) -> re.Pattern[str]:
    """OpenSSH's patterns know only ``*`` and ``?`` (``[`` is literal: ``[host]:port`` names)."""
    parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern.lower())
    return re.compile("".join(parts), re.DOTALL)


def _hashed_matches(name: str, hashed: str) -> bool:
    try:
        expected = paramiko.HostKeys.hash_host(name, hashed)
    except (binascii.Error, ValueError, IndexError):
        return False
    return hmac.compare_digest(expected.encode(), hashed.encode())


def known_hosts_line(name: str, key: paramiko.PKey, *, hashed: bool) -> str:
    """One known_hosts line for ``name``; with ``hashed``, the name is ``|1|salt|hash``."""
    stored = paramiko.HostKeys.hash_host(name) if hashed else name
    line = paramiko.hostkeys.HostKeyEntry([stored], key).to_line()
    if line is None:
        raise RunnerError(f"cannot write a known_hosts entry for {name}")
    return line
