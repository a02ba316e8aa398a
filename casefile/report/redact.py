"""Redaction: personal and site data replaced by consistent pseudonyms across the whole report,
and credentials removed.

Modelled on ``sos clean``: the same host is ``host-1`` wherever it occurs (notes, commands, raw
output, the environment, fact subjects), and the mapping from pseudonym back to the original is
returned to the caller (``--redact-map``), never written into the report.

Two passes over every string of the model. The first learns the names the case itself gives:
probe hosts and SSH targets (``[user@]host[:port]``), actors other than the roles ``user`` and
``assistant``, the user part of ``user@host``, home directories (``~dave/`` too), database
URLs' credentials, host-like environment entries, and the host names outputs say
(:mod:`casefile.report.detect`: nccl-tests' ``Rank … on HOST``, ``uname -a``, ``hostname``).
It also learns the credentials: every secret shape ingest scrubs
(:func:`casefile.transcripts.secrets.scrub`: tokens, ``password: …``, ``Bearer …``, a
private key's body, ``-p<password>`` on a command line), and the value of an environment entry
whose key names a secret. The second replaces, in one regex scan per string, those names (inside
other tokens too: ``gpu-node-7.example``) and whatever the patterns find on their own: IPv4
(dotted and dashed, ``dhcp-192-168-0-66``) and IPv6 addresses, hardware addresses, UUIDs (GPU
and system), serial numbers, InfiniBand GUIDs, host names with a domain, and the user's own
patterns. Event references (``seq@hash``) and artifact digests are not personal data and stay
as they are.

A credential becomes ``secret-N`` (the same secret the same N throughout the report) and is
**not** in the map: the map restores what a reader of the report may need back (which host was
``host-3``), and a secret must not be written into one more file.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from casefile.domain.event_types import EVENT_TYPES
from casefile.errors import CasefileError
from casefile.report import detect
from casefile.report.model import Excerpt, Participant, Ref, Report, TimelineRow
from casefile.transcripts.secrets import MASK, is_secret_name, scrub

#: Actor names that are roles, not people: never redacted as user names.
ROLES = frozenset({"user", "assistant"})
#: Fields that hold digests (content addresses), which are not personal data.
KEPT_FIELDS = frozenset({"artifact"})
#: Timeline rows whose text holds a command line: the rows of the event types with a field
#: their descriptors mark ``command`` (a probe run's argv), where ``-p<password>`` is a secret
#: and the word after ``ssh`` a target.
COMMAND_ROWS = frozenset(
    kind.family for kind in EVENT_TYPES.values() if "command" in kind.redact_fields.values()
)
#: Host fields that name no machine: loopback, and the placeholders casefile itself writes
#: (a paste without ``--host`` is from host "unknown"; learnt as a host, every "unknown" in the
#: report, ``load=unknown`` too, became a pseudonym).
NOT_HOSTS = frozenset({"localhost", "local", "pasted", "unknown", "127.0.0.1", "::1"})
#: A fact as casefile writes it in a digest (``nccl.test[host]=…``): its name is not a host,
#: even where its last part is a domain suffix (``.test``).
_FACT = re.compile(r"(?<![\w.-])([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_*]+)+)\[[^\]\s]*\]=")
#: ssh options that take a value (the target is the first word that is neither).
SSH_VALUE_OPTIONS = frozenset("BbcDEeFIiJLlmOopQRSWw")

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_HOSTNAME = r"[A-Za-z0-9](?:[\w-]|\.(?=[\w-]))*"
_HEX = "0-9A-Fa-f"

_USER_AT_HOST = re.compile(rf"(?<![\w.+-])([A-Za-z_][\w.+-]*)@({_HOSTNAME})")
_HOME = re.compile(
    r"(?:/home/|/Users/|\\Users\\|(?<![\w~])~(?=[A-Za-z_][\w.-]*/))([A-Za-z0-9_][\w.-]*)"
)
_NAME_AT_END = re.compile(r"[A-Za-z0-9_][\w.-]*\Z")  # the user in what _HOME matched
#: (a scheme is short: unbounded, ``[\w+.-]*`` before ``://`` made a long dotted word quadratic)
_DB_URL = re.compile(r"\b([A-Za-z][\w+.-]{0,31}://)([^\s/@:]+)(?::([^\s/@]*))?@([^\s/:?#@]+)")

T = TypeVar("T")


class RedactionError(CasefileError):
    """A pattern given to ``--redact-pattern`` is not a valid regular expression."""


def compile_patterns(patterns: Sequence[str]) -> list[re.Pattern[str]]:
    out = []
    for pattern in patterns:
        try:
            compiled = re.compile(pattern)
        except re.error as error:
            raise RedactionError(
                f"--redact-pattern {pattern!r} is not a valid regex: {error}"
            ) from None
        if compiled.match(""):
            raise RedactionError(f"--redact-pattern {pattern!r} matches the empty string")
        out.append(compiled)
    return out


def split_target(target: str) -> tuple[str | None, str]:
    """``[user@]host[:port]`` → (user, host)."""
    user, at, host = target.rpartition("@")
    if host.startswith("[") and "]" in host:  # [v6]:port
        host = host[1 : host.index("]")]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return (user or None) if at else None, host


class Redactor:
    """Learns the names a report gives, then replaces them (and what the patterns find)."""

    def __init__(self, patterns: Sequence[str] = ()) -> None:
        self.patterns = compile_patterns(patterns)
        self.mapping: dict[str, str] = {}  # original → pseudonym
        self.counts: dict[str, int] = {}
        self.hosts: dict[str, None] = {}
        self.users: dict[str, None] = {}
        #: credential → ``secret-N``: replaced like the names above, never in the map
        self.secrets: dict[str, str] = {}
        #: fact names seen in the case's digests, and nvidia-smi's query fields: names the
        #: tools define, kept as they are wherever they occur
        self.fact_names: set[str] = set()
        self._scan: re.Pattern[str] | None = None

    # --- learning ------------------------------------------------------------------------

    def learn_host(self, text: str | None) -> None:
        """A host (``[user@]host[:port]``); a name without a letter is an address (the
        patterns find it) or a count (``--env nodes=2``), never a name to replace as such."""
        if not text or not text.strip() or any(c.isspace() for c in text):
            return
        user, host = split_target(text)
        if user:
            self.learn_user(user)
        if host and host not in NOT_HOSTS and any(c.isalpha() for c in host):
            self.hosts.setdefault(host, None)

    def learn_user(self, name: str | None) -> None:
        if name and name not in ROLES and not any(c.isspace() for c in name):
            self.users.setdefault(name, None)

    def learn_facts(self, digest: str) -> None:
        """The fact names of a facts digest (the report's ``facts`` fields, which casefile
        writes itself): learnt only there, so a host written like one in a note is not kept."""
        self.fact_names.update(match.group(1) for match in _FACT.finditer(digest))

    def learn_secret(self, value: str) -> None:
        """A credential, replaced wherever it occurs. A multi-line one (a private key's body)
        is also learnt line by line, each line the same placeholder: raw output reaches the
        report as separate lines."""
        value = value.strip()
        if not value or value == MASK or value in self.secrets:
            return
        placeholder = f"secret-{len(set(self.secrets.values())) + 1}"
        self.secrets[value] = placeholder
        for line in value.splitlines():
            if line.strip():
                self.secrets.setdefault(line.strip(), placeholder)
        self._scan = None

    def learn_environment(self, key: str, value: str) -> None:
        """An environment entry: a secret's value (``token=…``), or hosts (``node=a,b``).
        A part with a space in it is a description (``host=Proxmox (KVM) virtual machine``),
        whose words are no host names."""
        if is_secret_name(key):
            self.learn_secret(value)
        elif detect.names_host(key):
            for part in value.split(","):
                self.learn_host(part.strip())

    def learn_text(self, text: str, *, command: bool = False) -> None:
        """What ``text`` says: its credentials (``command``: a command line, where
        ``-p<password>`` is one too), then, in the text with those masked, users and hosts."""
        scrubbed = scrub(text, program_line=command)
        for value in scrubbed.values:
            self.learn_secret(value)
        text = scrubbed.text
        for name in detect.query_fields(text):
            self.fact_names.add(name)
        for host in detect.hosts_named(text):
            self.learn_host(host)
        for match in _DB_URL.finditer(text):
            self.learn_user(match.group(2))
            self.learn_host(match.group(4))
        for match in _USER_AT_HOST.finditer(text):
            self.learn_user(match.group(1))
            self.learn_host(match.group(2))
        for match in _HOME.finditer(text):
            self.learn_user(match.group(1))
        words = text.split()
        for index, word in enumerate(words):
            if word.rsplit("/", 1)[-1] == "ssh":
                self._learn_ssh(words[index + 1 :])

    def _learn_ssh(self, words: Sequence[str]) -> None:
        """The user and host of an ``ssh [options] [user@]host`` command line."""
        index = 0
        while index < len(words):
            word = words[index]
            if word == "-l" and index + 1 < len(words):
                self.learn_user(words[index + 1])
                index += 2
            elif word.startswith("-l") and len(word) > 2:
                self.learn_user(word[2:])
                index += 1
            elif word.startswith("-") and len(word) >= 2:
                index += 2 if len(word) == 2 and word[1] in SSH_VALUE_OPTIONS else 1
            else:
                self.learn_host(word.strip("'\""))
                return

    # --- replacing -----------------------------------------------------------------------

    def pseudonym(self, kind: str, original: str) -> str:
        found = self.mapping.get(original)
        if found is None:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            found = self.mapping[original] = f"{kind}-{self.counts[kind]}"
        return found

    def _compiled(self) -> re.Pattern[str]:
        if self._scan is not None:
            return self._scan
        parts = []
        if self.secrets:  # first: a secret holding something else is a secret
            alternation = "|".join(re.escape(k) for k in _longest_first(self.secrets))
            # (glued to ``-p`` as on a command line: ``-pHunter2``)
            parts.append(
                rf"(?P<secret>(?:(?<![A-Za-z0-9])|(?<=-p))(?:{alternation})(?![A-Za-z0-9]))"
            )
        parts += [f"(?P<pat{i}>{p.pattern})" for i, p in enumerate(self.patterns)]
        parts.append(rf"(?P<url>{_DB_URL.pattern})")
        parts.append(rf"(?P<userhost>{_USER_AT_HOST.pattern})")
        parts.append(rf"(?P<home>{_HOME.pattern})")
        known = _longest_first({*self.hosts, *self.users, *self.mapping})
        if known:
            alternation = "|".join(re.escape(k) for k in known)
            parts.append(rf"(?P<known>(?<![A-Za-z0-9])(?:{alternation})(?![A-Za-z0-9]))")
        if self.hosts:  # a log line glued to another process's output: "sum -1gpu7:6490:…"
            alternation = "|".join(re.escape(k) for k in _longest_first(self.hosts))
            parts.append(rf"(?P<logged>(?:{alternation})(?={detect.NCCL_LOG_TAIL}))")
        parts += [
            rf"(?P<uuid>(?<![{_HEX}])[{_HEX}]{{8}}(?:-[{_HEX}]{{4}}){{3}}-[{_HEX}]{{12}}"
            rf"(?![{_HEX}]))",
            rf"(?P<serial>{detect.SERIAL})",
            rf"(?P<guid>{detect.GUID})",
            rf"(?P<mac>{detect.MAC})",
            rf"(?P<ipv6>(?<![{_HEX}:.])(?:[{_HEX}]{{0,4}}:){{2,7}}[{_HEX}]{{0,4}}(?![{_HEX}:]))",
            rf"(?P<ipv4>(?<![\d.]){_OCTET}(?:\.{_OCTET}){{3}}(?!\.?\d))",
            rf"(?P<ipdash>(?<!\d)(?<!\d-){_OCTET}(?:-{_OCTET}){{3}}(?![\d]))",
            rf"(?P<fqdn>{detect.FQDN})",
        ]
        self._scan = re.compile("|".join(parts))
        return self._scan

    def _replace(self, match: re.Match[str]) -> str:
        kind = match.lastgroup
        text = match.group()
        if kind is None:
            return text
        groups = match.groupdict()
        if groups.get("secret") is not None:
            return self.secrets[text]
        for labelled in ("serial", "guid"):  # the label stays, the value goes
            if groups.get(labelled) is not None:
                value = groups[f"{labelled}value"]
                return text[: len(text) - len(value)] + self.pseudonym(labelled, value)
        if any(groups.get(f"pat{i}") is not None for i in range(len(self.patterns))):
            return self.pseudonym("redacted", text)
        if groups.get("url") is not None:
            return self._url(text)
        if groups.get("userhost") is not None:
            user, _, host = text.partition("@")
            host = host if host in NOT_HOSTS else self._host(host)  # root@localhost
            return f"{self.pseudonym('user', user)}@{host}"
        if groups.get("home") is not None:
            name = _NAME_AT_END.search(text)
            assert name is not None
            return text[: name.start()] + self.pseudonym("user", name.group())
        if groups.get("known") is not None:
            found = self.mapping.get(text)
            if found is not None:
                return found
            return self._host(text) if text in self.hosts else self.pseudonym("user", text)
        if groups.get("logged") is not None:
            return self._host(text)
        if groups.get("uuid") is not None:
            return self.pseudonym("uuid", text)
        if groups.get("mac") is not None:
            return self.pseudonym("mac", text)
        if groups.get("ipv6") is not None:
            return self._ipv6(text)
        if groups.get("ipv4") is not None or groups.get("ipdash") is not None:
            return self.mapping.get(text) or self.pseudonym("ip", text)
        if groups.get("fqdn") is not None:
            if text in self.fact_names or not any(c.isalpha() for c in text.rpartition(".")[0]):
                return text  # a fact's name, or a version (VBIOS 86.02.39.00.BD)
            return self._host(text)
        return text

    def _host(self, host: str) -> str:
        return self.mapping.get(host) or self.pseudonym("host", host)

    def _url(self, text: str) -> str:
        match = _DB_URL.match(text)
        assert match is not None
        scheme, user, secret, host = match.groups()
        out = f"{scheme}{self.pseudonym('user', user)}"
        if secret is not None:
            if secret:
                self.learn_secret(secret)
            out += ":" + self.secrets.get(secret, secret)
        return out + "@" + self._host(host)

    def _ipv6(self, text: str) -> str:
        groups = [g for g in text.split(":") if g]
        if len(groups) < 2 or ("::" not in text and len(groups) != 8):
            return text
        try:
            address = ipaddress.IPv6Address(text)
        except ValueError:
            return text
        if address.is_loopback or address.is_unspecified:
            return text
        return self.mapping.get(text) or self.pseudonym("ipv6", text)

    def redact(self, text: str) -> str:
        return self._compiled().sub(self._replace, text)

    def settle(self, texts: Iterable[str]) -> None:
        """Redact ``texts`` once to learn what the patterns find in context (a serial after
        ``Serial Number :``), so that the same value is caught anywhere else (a fact subject
        alone): every original found becomes a name matched on its own."""
        for text in texts:
            self.redact(text)
        self._scan = None

    def pseudonyms(self) -> dict[str, str]:
        """Pseudonym → original, for ``--redact-map`` (never part of the report; credentials
        are in neither)."""
        return {pseudonym: original for original, pseudonym in self.mapping.items()}


def strings(value: Any) -> Iterable[tuple[str | None, str]]:
    """Every (field name, string) in a model value, digests and references left out."""
    if isinstance(value, str):
        yield None, value
    elif isinstance(value, Ref):
        return
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name in KEPT_FIELDS:
                continue
            inner = getattr(value, f.name)
            if isinstance(inner, str):
                yield f.name, inner
            else:
                yield from strings(inner)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from strings(item)


def mapped(value: T, change: Callable[[str], str]) -> T:
    """``value`` with ``change`` applied to every string in it, digests and references kept."""
    if isinstance(value, str):
        return change(value)  # type: ignore[return-value]
    if isinstance(value, Ref):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        updates = {
            f.name: mapped(getattr(value, f.name), change)
            for f in dataclasses.fields(value)
            if f.name not in KEPT_FIELDS
        }
        return dataclasses.replace(value, **updates)
    if isinstance(value, tuple):
        return tuple(mapped(item, change) for item in value)  # type: ignore[return-value]
    return value


def redact_report(report: Report, patterns: Sequence[str] = ()) -> tuple[Report, dict[str, str]]:
    """``report`` with its personal and site data pseudonymised and its credentials removed,
    and the pseudonym map (which holds no credential)."""
    redactor = Redactor(patterns)
    for row in report.timeline:
        _learn_row(redactor, row)
    for excerpt in report.excerpts:
        _learn_excerpt(redactor, excerpt)
    for participant in report.summary.participants:
        _learn_participant(redactor, participant)
    for key, value in report.summary.environment:
        redactor.learn_environment(key, value)
    if report.postmortem is not None:  # the people who wrote it and own its items
        for person in (
            *report.postmortem.header.authors,
            *(i.owner for i in report.postmortem.items),
        ):
            redactor.learn_user(person)
    fields = list(strings(report))
    texts = [text for _, text in fields]
    for name, text in fields:
        if name == "facts":
            redactor.learn_facts(text)
        redactor.learn_text(text)
    redactor.settle(texts)
    redacted = mapped(report, redactor.redact)
    return dataclasses.replace(redacted, redacted=True), redactor.pseudonyms()


def _learn_row(redactor: Redactor, row: TimelineRow) -> None:
    redactor.learn_host(row.host)
    redactor.learn_user(row.actor)
    if row.kind in COMMAND_ROWS:
        redactor.learn_text(row.text, command=True)


def _learn_excerpt(redactor: Redactor, excerpt: Excerpt) -> None:
    """The run's host and command line, and its output read whole: a private key's body spans
    lines, and ``hostname``'s output is the host's name."""
    redactor.learn_host(excerpt.host)
    redactor.learn_text(excerpt.command, command=True)
    redactor.learn_text("\n".join(excerpt.lines))
    if detect.prints_host(excerpt.command):
        for word in excerpt.lines[0].split() if excerpt.lines else ():
            redactor.learn_host(word)


def _learn_participant(redactor: Redactor, participant: Participant) -> None:
    redactor.learn_user(participant.actor)


def _longest_first(names: Iterable[str]) -> list[str]:
    """For an alternation: a name before any that is a prefix of it."""
    return sorted(set(names), key=lambda name: (-len(name), name))
