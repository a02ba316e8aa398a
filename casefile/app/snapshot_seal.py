"""Sealing a snapshot to the chain it was folded from, with a key the database does not hold.

A snapshot is a cache of a fold, stored beside the events. Its codec's SHA-256 catches damage,
not forgery: anyone who can write the database can rewrite the fold and recompute that digest,
and a command that decides a write on a forged fold seals events computed from forged state,
which can never be taken back. So every snapshot casefile writes carries an HMAC-SHA256 over
the case id, the seq and hash of the event it was folded up to, the engine that folded it and
the codec's bytes, keyed by a secret that lives outside the database:

- ``CASEFILE_SNAPSHOT_KEY`` when set (at least 16 characters): a team that shares a database
  and wants to share its snapshots shares this key, as it shares the database URL;
- otherwise ``snapshot.key`` in the user's data directory, 32 random bytes made on first use
  (mode 0600, never followed through a symlink).

A snapshot whose seal does not verify under the key at hand (forged, damaged, or written by
someone with another key) is not used: the fold is built from the events, which are the truth,
and results are the same, only slower. Without any usable key, snapshots are neither used nor
written. ``verify`` compares a stored snapshot with a fresh fold of the events it claims.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from casefile.errors import CasefileError

__all__ = ["KEY_ENV", "KEY_FILE", "key_path", "seal", "snapshot_key", "unseal"]

KEY_ENV = "CASEFILE_SNAPSHOT_KEY"
KEY_FILE = "snapshot.key"
_MIN_KEY_CHARS = 16
_MAGIC = b"casefile-seal"
_VERSION = b"1"


def key_path() -> Path:
    """Where the user's own snapshot key is kept: beside the default database."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("casefile")) / KEY_FILE


def snapshot_key(environ: Mapping[str, str] | None = None) -> bytes | None:
    """The key snapshots are sealed with, or ``None`` when none can be had (then snapshots are
    neither trusted nor written). Raises :class:`CasefileError` for a key that is too short."""
    env = os.environ if environ is None else environ
    given = env.get(KEY_ENV)
    if given:
        if len(given) < _MIN_KEY_CHARS:
            raise CasefileError(
                f"{KEY_ENV} is too short ({len(given)} characters; at least {_MIN_KEY_CHARS})"
            )
        return given.encode("utf-8")
    return _key_file(key_path())


def _key_file(path: Path) -> bytes | None:
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        try:
            return _read_key(path)
        except OSError:
            return None
    except OSError:
        return None
    try:
        os.write(fd, os.urandom(32).hex().encode("ascii") + b"\n")
    finally:
        os.close(fd)
    try:
        return _read_key(path)
    except OSError:
        return None


def _read_key(path: Path) -> bytes | None:
    """The key in ``path``: a regular file of the user's, not a link; ``None`` if unusable."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 4096:
            return None
        data = os.read(fd, 4096).strip()
    finally:
        os.close(fd)
    return data if len(data) >= _MIN_KEY_CHARS else None


def _mac(key: bytes, case_id: str, seq: int, head_hash: str, engine: str, body: bytes) -> bytes:
    bound = json.dumps([case_id, seq, head_hash, engine], ensure_ascii=True).encode("ascii")
    message = bound + b"\n" + hashlib.sha256(body).digest()
    return hmac.new(key, message, hashlib.sha256).hexdigest().encode("ascii")


def seal(key: bytes, case_id: str, seq: int, head_hash: str, engine: str, body: bytes) -> bytes:
    """``body`` (a saved fold) with a first line binding it to the case's chain."""
    mac = _mac(key, case_id, seq, head_hash, engine, body)
    return b" ".join((_MAGIC, _VERSION, mac)) + b"\n" + body


def unseal(
    key: bytes, case_id: str, seq: int, head_hash: str, engine: str, sealed: bytes
) -> bytes | None:
    """The saved fold inside ``sealed`` if its seal verifies for this chain position, else
    ``None`` (unsealed, forged, damaged, another key, another case or position)."""
    header, newline, body = sealed.partition(b"\n")
    parts = header.split(b" ")
    if not newline or len(parts) != 3 or parts[:2] != [_MAGIC, _VERSION]:
        return None
    expected = _mac(key, case_id, seq, head_hash, engine, body)
    return body if hmac.compare_digest(expected, parts[2]) else None


def opened(sealed: bytes) -> bytes | None:
    """The saved fold inside ``sealed`` without checking the seal (for ``verify``, which
    compares it with a fresh fold instead), or ``None`` when it carries no seal line."""
    header, newline, body = sealed.partition(b"\n")
    return body if newline and header.startswith(_MAGIC + b" ") else None
