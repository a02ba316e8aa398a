"""Known secret shapes scrubbed from command lines and output before anything is sealed.

A sealed event cannot be edited, so this runs before the append. What is scrubbed is replaced
by ``[scrubbed]`` and named (by kind, never by value) so the run can say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MASK", "Scrubbed", "scrub"]

MASK = "[scrubbed]"

#: names that hold a secret in an environment assignment (``GITHUB_TOKEN=…``, ``export X=…``)
_SECRET_NAME = (
    # the name may be the word alone (PASSWORD=…, TOKEN=…) or end in it (DB_PASSWORD=…,
    # PGPASSWORD=…, SSHPASS=…); KEY only as its own word or after API/PRIVATE (SSH_KEY,
    # APIKEY), so NCCL_IB_PKEY (a partition key) and MONKEY are not secrets, nor is *BYPASS
    r"[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|(?<!BY)PASS|API_?KEY|PRIVATE_?KEY|"
    r"(?<![A-Za-z0-9])KEY|AUTH|CREDENTIALS?)"
)

_SECRET_NAME_ALONE = re.compile(rf"(?i){_SECRET_NAME}")
#: names that hold a secret in a ``name: value`` field (see the "password field" shape)
_FIELD_NAME = (
    r"(?:[\w-]*(?:password|passwd|passphrase|secret|api[-_]?key|access[-_]?key|private[-_]?key|"
    r"(?:access|auth|refresh)[-_]?token)|token)"
)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (``HF_TOKEN``)."""
    return _SECRET_NAME_ALONE.fullmatch(name) is not None


#: (kind, pattern, group holding the secret)
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "Authorization header",
        re.compile(
            r"(?i)(\b(?:proxy-)?authorization:\s*(?:(?:bearer|basic|token)\s+)?)([^\s'\"]+)"
        ),
    ),
    (
        "environment secret",
        # a quoted value is one secret, spaces and all (``KEY='abc def'``), and so is one whose
        # quote does not close on the line (the first line of a multi-line value)
        re.compile(rf"(?i)(\b{_SECRET_NAME}\s*=\s*)('[^'\n]*'?|\"[^\"\n]*\"?|[^\s'\"]+)"),
    ),
    (
        "password in URL",
        # (a scheme is short: unbounded, a long dotted word before ``://`` was quadratic)
        re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}://[^\s:/@'\"]+:)([^\s@/'\"]+)(?=@)"),
    ),
    (
        "password field",
        # ``password: x``, JSON's ``"password": "x"``, YAML's ``api-key: x``: a name that says
        # secret, then a colon; the value on the same line. Narrower than the ``=`` names:
        # ``pad_token: </s>`` and ``max_tokens: 512`` are settings, only ``token`` alone is
        # one. A name in quotes has both of them (``read -p 'Password: ' pw`` is a prompt)
        re.compile(
            rf"(?i)((?:(?<![\w'\"-]){_FIELD_NAME}|(?<![\w-])\"{_FIELD_NAME}\"|"
            rf"(?<![\w-])'{_FIELD_NAME}')[ \t]*:[ \t]*)('[^'\n]*'?|\"[^\"\n]*\"?|[^\s'\",}}]+)"
        ),
    ),
    ("bearer token", re.compile(r"(?i)(\bbearer[ \t]+)([A-Za-z0-9._~+/-]{16,}=*)")),
    (
        "private key",
        # the body of a PEM block (to its END line, or to the end of a text cut short), the
        # BEGIN and END lines kept so that a reader sees a key was there
        re.compile(
            r"(-----BEGIN(?: [A-Z0-9]+)* PRIVATE KEY(?: BLOCK)?-----[ \t]*\r?\n)"
            r"([\s\S]*?)(?=(?:\r?\n)?-----END(?: [A-Z0-9]+)* PRIVATE KEY|\s*\Z)"
        ),
    ),
    ("-p<password>", re.compile(r"((?:^|\s)-p)([^\s'\"]{3,})")),
    (
        "token",
        re.compile(
            r"()(\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|"
            r"xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,}|"
            r"hf_[A-Za-z0-9]{20,}|glpat-[A-Za-z0-9_-]{20,})\b)"
        ),
    ),
)


#: substrings (lowercase) without one of which a shape cannot match
_HINTS: dict[str, tuple[str, ...]] = {
    "Authorization header": ("authorization:",),
    "environment secret": ("token", "secret", "pass", "key", "auth", "credential"),
    "password in URL": ("://",),
    "password field": ("pass", "secret", "key", "token"),
    "bearer token": ("bearer",),
    "private key": ("private key",),
    "-p<password>": ("-p",),
    "token": (
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "xox",
        "akia",
        "sk-",
        "hf_",
        "glpat-",
    ),
}


@dataclass(frozen=True)
class Scrubbed:
    """Text with its secrets masked, and the kinds that were found."""

    text: str
    kinds: tuple[str, ...] = ()
    #: the secrets themselves, to mask wherever else they occur (never recorded)
    values: tuple[str, ...] = ()


def scrub(text: str, *, program_line: bool = False, keep_length: bool = False) -> Scrubbed:
    """``text`` with every known secret shape masked. ``-p<password>`` is only looked for in a
    command line (``program_line``): in output, ``-p`` is too common to mean a password.
    ``keep_length`` overwrites each secret with ``*`` of its length instead."""
    kinds: list[str] = []
    values: list[str] = []
    lowered = text.lower()
    for kind, pattern in _SHAPES:
        if kind == "-p<password>" and not program_line:
            continue
        if not any(hint in lowered for hint in _HINTS[kind]):
            continue  # (a substring test is far cheaper than the pattern on long output)

        def mask(match: re.Match[str], kind: str = kind) -> str:
            if match.group(2) in ("", MASK) or set(match.group(2)) == {"*"}:
                return match.group(0)
            if kind not in kinds:
                kinds.append(kind)
            secret = match.group(2)
            if secret[:1] in ("'", '"'):  # the value within its quotes (the closing one may lack)
                secret = secret[1:-1] if len(secret) > 1 and secret[-1] == secret[0] else secret[1:]
            values.append(secret)
            if keep_length:
                return match.group(1) + "*" * len(match.group(2))
            return match.group(1) + MASK

        text = pattern.sub(mask, text)
    return Scrubbed(text, tuple(kinds), tuple(values))


def mask_values(data: bytes, values: tuple[str, ...] | list[str]) -> bytes:
    """``data`` with every occurrence of each secret overwritten by ``*`` of the same length,
    so offsets into it stay true (the source file kept as an artifact)."""
    for value in sorted(set(values), key=len, reverse=True):
        raw = value.encode("utf-8", errors="surrogateescape")
        if len(raw) >= 4:  # a shorter one would mask ordinary text; the shapes catch it
            data = data.replace(raw, b"*" * len(raw))
    return data
