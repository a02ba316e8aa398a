"""The secret shapes :func:`casefile.transcripts.secrets.scrub` looks for, and why each is narrow.

Each shape is a pattern whose first group is kept (the name, the flag, the header: a reader
sees a secret was there) and whose second group is the secret. They cover the shapes of
detect-secrets' detectors (its keyword, URL, JWT, private-key and vendor-token plugins, whose
token patterns are written again here) and the shapes people leave in terminals that it does
not read: ``curl -u user:pw``, ``sshpass -p``, ``docker login -p``, ``--password``/``--token``
flags, ``X-Api-Key:`` and ``Cookie:`` headers, "the password is …".

Every shape is written not to fire on what GPU diagnostics print: GPU UUIDs, PCI bus ids,
board serials, ``-p`` options, ``max_tokens`` settings; the shared corpus of real outputs is
scrubbed unchanged by the tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FIELD_NAME", "SECRET_NAME", "SHAPES", "Shape"]

#: names that hold a secret in an environment assignment (``GITHUB_TOKEN=…``, ``export X=…``)
SECRET_NAME = (
    # the name may be the word alone (PASSWORD=…, TOKEN=…) or end in it (DB_PASSWORD=…,
    # PGPASSWORD=…, SSHPASS=…); KEY only as its own word or after API/PRIVATE (SSH_KEY,
    # APIKEY), so NCCL_IB_PKEY (a partition key) and MONKEY are not secrets, nor is *BYPASS
    r"[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|(?<!BY)PASS|API_?KEY|PRIVATE_?KEY|"
    r"(?<![A-Za-z0-9])KEY|AUTH|CREDENTIALS?)"
)

#: names that hold a secret in a ``name: value`` field (see the "password field" shape)
FIELD_NAME = (
    r"(?:[\w-]*(?:password|passwd|passphrase|secret|api[-_]?key|access[-_]?key|private[-_]?key|"
    r"(?:access|auth|refresh)[-_]?token)|token)"
)

#: a value: quoted (spaces and all; the closing quote may lack, as on a value's first line)
#: or one word
_VALUE = r"('[^'\n]*'?|\"[^\"\n]*\"?|[^\s'\"]+)"

#: flags whose value is a secret: ``--password``, ``--api-key``, ``--token``, ``--hf-token`` …
_FLAG_NAME = (
    r"(?:[a-z0-9]+[-_])*(?:password|passwd|pass|passphrase|secret|api[-_]?key|access[-_]?key|"
    r"secret[-_]?key|private[-_]?key|token)"
)

#: tokens known by their own shape, wherever they stand (detect-secrets' vendor plugins and
#: the GPU world's own: NGC's ``nvapi-``, Hugging Face's ``hf_``)
_TOKENS = (
    r"gh[pousr]_[A-Za-z0-9]{20,}",  # GitHub
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"glpat-[A-Za-z0-9_-]{20,}|gl(?:dt|rt|ptt|cbt|soat)-[A-Za-z0-9_-]{20,}",  # GitLab
    r"xox[abprs]-[A-Za-z0-9-]{10,}",  # Slack
    r"hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
    r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",  # AWS access key ids
    r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI, Anthropic (sk-ant-…)
    r"hf_[A-Za-z0-9]{20,}",  # Hugging Face
    r"nvapi-[A-Za-z0-9_-]{20,}",  # NVIDIA NGC
    r"AIza[0-9A-Za-z_-]{35}",  # Google API key
    r"ya29\.[0-9A-Za-z_-]{20,}",  # Google OAuth access token
    r"[rs]k_(?:live|test)_[0-9a-zA-Z]{24,}",  # Stripe
    r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}",  # SendGrid
    r"sq0(?:csp|atp)-[0-9A-Za-z_-]{22,}",  # Square
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",  # PyPI
    r"npm_[A-Za-z0-9]{36}",  # npm
    r"dapi[0-9a-f]{32}",  # Databricks
    r"AKC[a-zA-Z0-9]{10,}",  # Artifactory
    r"[0-9a-f]{32}-us[0-9]{1,2}",  # Mailchimp
    r"(?:AC|SK)[0-9a-f]{32}",  # Twilio
    r"[MNO][a-zA-Z0-9_-]{23,25}\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27,}",  # Discord bot
    r"[0-9]{8,10}:AA[0-9A-Za-z_-]{33}",  # Telegram bot
    # a JSON Web Token: a base64url JSON header (``{"`` is ``eyJ``), a payload, a signature
    r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{2,}(?:\.[A-Za-z0-9_-]+)?",
)

#: commands whose output is a secret and nothing else (``aws configure get …secret…``,
#: ``printenv HF_TOKEN``, ``gh auth token``): known by the command, never by the value
PRINTS_SECRET = re.compile(
    # where a command starts: the line's start, after ``;``, ``&&``, ``|`` or ``(``, within
    # ``sh -c '…'``, after ``sudo`` or ``ssh HOST`` (not a word inside another's argument)
    r"(?i)(?:^|[;&|(]|\b(?:ba|z)?sh\s+-c\s+|\bsudo\s+(?:-\S+\s+)*|\bssh\s+(?:-\S+\s+)*\S+\s+)"
    r"\s*['\"]?(?:"
    r"aws\s+configure\s+get\s+\S*(?:secret|key|token|password)|"
    rf"printenv\s+{SECRET_NAME}\b|"
    rf"echo\s+(?:-n\s+)?[\"']?\$\{{?{SECRET_NAME}\b|"
    r"gh\s+auth\s+token|gcloud\s+auth\s+(?:application-default\s+)?print-(?:access|identity)-token|"
    r"az\s+account\s+get-access-token|vault\s+(?:kv\s+get|read)\s+.*-field|"
    r"security\s+find-(?:generic|internet)-password\s.*-w|op\s+read\s|pass\s+show\s"
    r")"
)


def _not_a_placeholder(match: re.Match[str]) -> bool:
    """A flag's value is a secret unless it names one: ``--token TOKEN`` (help text),
    ``--token $HF_TOKEN``, ``--pad-token </s>``, ``--password ''``, a short number."""
    value = match.group(2).strip("'\"")
    if len(value) < 3 or value.startswith(("$", "<", "-", "{", "%")):
        return False
    return not re.fullmatch(r"[A-Z][A-Z0-9_.-]*|\.\.\.|none|null|true|false|\*+", value)


#: the most digits a token's id or a token count has (vocabularies hold under a million)
MAX_ID_DIGITS = 7

#: values that name no secret: a setting's literal, a placeholder to fill in
_NO_SECRET = re.compile(r"(?i)(?:true|false|none|null|nil|undefined|<[^>]*>?|\*+)[,;]?")


def _a_value(match: re.Match[str]) -> bool:
    """``allow_credentials=False``, ``pad token: </s>``, ``#token: 62531`` (a count) and
    llama.cpp's ``BOS token        = 0`` (a token's id in the vocabulary: the lowercase word,
    as a log writes it) name no secret; any other value does (``TOKEN=123456`` is an
    assignment, and a number can be a password)."""
    value = match.group(2).strip("'\"")
    if _NO_SECRET.fullmatch(value):
        return False
    written = re.sub(r"[\s=:'\"]+$", "", match.group(1))
    number = value.rstrip(",;")
    # an id in a vocabulary or a count is short; a long run of digits may be a credential
    an_id = number.isdigit() and len(number) <= MAX_ID_DIGITS
    return not (written.lower() == "token" and written != "TOKEN" and an_id)


def _not_a_uid(match: re.Match[str]) -> bool:
    """``docker run -u 1000:1000`` is a user and group, not a user and password."""
    return not re.fullmatch(r"[0-9]+", match.group(2).strip("'\"")) or not re.search(
        r"[0-9]+:$", match.group(1)
    )


def _not_a_word(match: re.Match[str]) -> bool:
    """ "the token is invalid" names no secret: a value that is a plain lowercase word."""
    return re.fullmatch(r"[a-z]+[.,;:!]?", match.group(2).strip("'\"")) is None


@dataclass(frozen=True)
class Shape:
    """One secret shape: what it is called, its pattern, the lowercase substrings without one
    of which it cannot match (a substring test is far cheaper than a pattern on long output),
    whether it is looked for in command lines only, a test each match must pass, and whether
    a match stays on its line."""

    kind: str
    pattern: re.Pattern[str]
    hints: tuple[str, ...]
    command_only: bool = False
    keep: Callable[[re.Match[str]], bool] | None = None
    #: whether a match lies within one line
    one_line: bool = True


SHAPES: tuple[Shape, ...] = (
    Shape(
        "Authorization header",
        re.compile(
            r"(?i)(\b(?:proxy-)?authorization:[ \t]*(?:(?:bearer|basic|token)[ \t]+)?)([^\s'\"]+)"
        ),
        ("authorization:",),
    ),
    Shape(
        "environment secret",
        # a quoted value is one secret, spaces and all (``KEY='abc def'``), and so is one whose
        # quote does not close on the line (the first line of a multi-line value); a lone
        # backslash continues the line, the value is on the next (a token shape finds it)
        re.compile(rf"(?i)(\b{SECRET_NAME}[ \t]*=[ \t]*)(?!\\\s)(?!\\$){_VALUE}"),
        ("token", "secret", "pass", "key", "auth", "credential"),
        keep=_a_value,
    ),
    Shape(
        "password in URL",
        # (a scheme is short: unbounded, a long dotted word before ``://`` was quadratic)
        re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}://[^\s:/@'\"]+:)([^\s@/'\"]+)(?=@)"),
        ("://",),
    ),
    Shape(
        "API key header",
        # ``X-Api-Key:``, ``X-Auth-Token:``, ``Private-Token:``: the header, quoted or not
        # (``-H 'X-Api-Key: …'``), its value the next word
        re.compile(
            r"(?i)((?:^|(?<=[\s'\"]))(?:x-[\w-]*(?:key|token|secret|auth)|[\w-]*api-?key|"
            r"[\w-]+-token|[\w-]*-secret):[ \t]*)([^\s'\"]+)"
        ),
        ("key:", "token:", "secret:", "auth:"),
    ),
    Shape(
        "cookie",
        re.compile(r"(?i)(\b(?:set-)?cookie:[ \t]*)([^\r\n'\"]+)"),
        ("cookie:",),
    ),
    Shape(
        "password field",
        # ``password: x``, JSON's ``"password": "x"``, YAML's ``api-key: x``: a name that says
        # secret, then a colon; the value on the same line. Narrower than the ``=`` names:
        # ``pad_token: </s>`` and ``max_tokens: 512`` are settings, only ``token`` alone is
        # one. A name in quotes has both of them (``read -p 'Password: ' pw`` is a prompt)
        re.compile(
            rf"(?i)((?:(?<![\w'\"-]){FIELD_NAME}|(?<![\w-])\"{FIELD_NAME}\"|"
            rf"(?<![\w-])'{FIELD_NAME}')[ \t]*:[ \t]*)('[^'\n]*'?|\"[^\"\n]*\"?|[^\s'\",}}]+)"
        ),
        ("pass", "secret", "key", "token"),
        keep=_a_value,
    ),
    Shape(
        "password in prose",
        # "the password is X", "token was X": a value that is not a plain word
        re.compile(
            r"(?i)(\b(?:password|passphrase|passwd|pass ?code|token|api key|secret)"
            r"[ \t]+(?:is|was)[ \t]+)(['\"]?[^\s'\"]{3,}['\"]?)"
        ),
        ("pass", "token", "api key", "secret"),
        keep=_not_a_word,
    ),
    Shape(
        "bearer token", re.compile(r"(?i)(\bbearer[ \t]+)([A-Za-z0-9._~+/-]{16,}=*)"), ("bearer",)
    ),
    Shape(
        "private key",
        # the body of a PEM block (to its END line, or to the end of a text cut short), the
        # BEGIN and END lines kept so that a reader sees a key was there
        re.compile(
            r"(-----BEGIN(?: [A-Z0-9]+)* PRIVATE KEY(?: BLOCK)?-----[ \t]*\r?\n)"
            r"([\s\S]*?)(?=(?:\r?\n)?-----END(?: [A-Z0-9]+)* PRIVATE KEY|\s*\Z)"
        ),
        ("private key",),
        one_line=False,
    ),
    Shape(
        "user:password option",
        # ``curl -u user:pw``, ``--user user:pw``, ``--proxy-user``; not ``docker -u 1000:1000``
        re.compile(
            r"((?:^|\s)(?:-u|-U|--user|--proxy-user)(?:[ \t]+|=)?['\"]?[^\s:'\"]+:)([^\s'\"]+)"
        ),
        ("-u", "--user", "--proxy-user"),
        keep=_not_a_uid,
    ),
    Shape(
        "-p after a login",
        # ``sshpass -p pw``, ``docker login … -p pw``: a ``-p`` that only ever means password
        re.compile(
            r"(?i)(\b(?:sshpass|(?:docker|podman|nerdctl|buildah|skopeo|helm(?:[ \t]+registry)?|"
            r"oras|enroot|apptainer[ \t]+remote|singularity[ \t]+remote)[ \t]+login)\b"
            rf"[^\n|;&]*?[ \t](?:-p|--password)(?:[ \t]+|=)){_VALUE}"
        ),
        ("sshpass", "login"),
        keep=_not_a_placeholder,
    ),
    Shape(
        "-p<password>",
        # mysql's ``-pPASSWORD``, wherever the command line is written (a note, ``ps``)
        re.compile(r"(\b(?:mysql\w*|mariadb\w*)\b[^\n|;&]*?\s-p)([^\s'\"]{3,})"),
        ("mysql", "mariadb"),
    ),
    Shape(
        "secret option",
        # ``--password X``, ``--api-key=Y``, ``--hf-token Z``; not ``--max-tokens 512``,
        # ``--token TOKEN`` (help text) or ``--token $HF_TOKEN``
        re.compile(rf"(?i)((?:^|(?<=[\s'\"]))--?{_FLAG_NAME}(?:[ \t]+|=)){_VALUE}"),
        ("pass", "secret", "key", "token"),
        keep=_not_a_placeholder,
    ),
    Shape("-p<password>", re.compile(r"((?:^|\s)-p)([^\s'\"]{3,})"), ("-p",), command_only=True),
    Shape(
        "token",
        re.compile(r"()(\b(?:" + "|".join(_TOKENS) + r")(?![A-Za-z0-9_]))"),
        (),  # (many vendors' prefixes: looked for in every text)
    ),
)
