"""What in a report's text names a host, or is a serial number or a hardware address.

Redaction (:mod:`casefile.report.redact`) replaces the names a case gives outright (probe
hosts, SSH targets, actors) and what these detectors find. They come in two kinds:

- **Host names that outputs say**, learnt once and then replaced wherever the bare name
  occurs (a note, a hypothesis, a ``--setup``): nccl-tests' ``Rank N Group G Pid P on HOST
  device D`` lines and ``HOST:PID:TID [D] NCCL INFO`` log lines, ``uname -a``'s second word,
  ``hostname``/``uname -n`` output, ``hostname:``/``Static hostname:`` lines, and
  environment entries whose key names a host (``node``, ``head_node``, ``rack``).
- **Patterns matched in place**: host names with a domain (generic and country-code TLDs),
  serial numbers after their label (``Serial Number``, lspci's ``Device Serial Number`` with
  no colon, ``S/N``, ``SN:``), MAC addresses (colon, dash and Cisco dot forms, EUI-64 and
  InfiniBand's 20-byte addresses), and InfiniBand GUIDs after their label.

Each is kept narrow on purpose and run over the real outputs in ../shared/corpus by the tests
(tests/report/test_detectors.py): a GPU UUID is a UUID (redacted as one), while a PCI bus id,
a driver or CUDA version, and nvidia-smi's query fields (``clocks.gr``, ``clocks.max.sm``) are
not hosts, serials or addresses. A country-code TLD that is also a file extension or an
English word (``.py``, ``.cu``, ``.pt``, ``.in``, ``.to``) counts only after two labels
(``node7.hpc.example.in``), never in ``setup.py`` or ``model.pt``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_HEX = "0-9A-Fa-f"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_NAME = r"[A-Za-z0-9][\w.-]*"

#: Generic and private-use suffixes that make a dotted word a host name in free text.
GENERIC = (
    "com|net|org|edu|gov|io|dev|ai|cloud|example|invalid|test|localhost|local|localdomain|lan|"
    "internal|intranet|corp|home|private|priv|site|cluster|svc"
)


def _codes(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: The delegated two-letter country-code TLDs (IANA root zone).
COUNTRY = _codes(
    """ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo
    bq br bs bt bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm
    do dz ec ee eg er es et eu fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs
    gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn
    kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp mq mr
    ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn
    pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st su sv sx
    sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn
    vu wf ws ye yt za zm zw"""
)
#: Country codes that are also file extensions (``setup.py``, ``kernel.cu``, ``model.pt``,
#: ``libmlx5.so``, ``Makefile.in``), English words after a missing space (``done.it``), or
#: the last part of nvidia-smi's query fields (``clocks.gr``, ``clocks.sm``): a host name
#: under one of them needs at least three labels.
AMBIGUOUS = _codes(
    """ac am as at be by bz cc cl cu do gd gr gs id in is it la ma md me mk ml mm mo ms my nc
    no pl pm ps pt py rs sc sh sm so st sv tf to tv us"""
)
_PLAIN = "|".join(sorted(COUNTRY - AMBIGUOUS - set(GENERIC.split("|"))))
_SHARED = "|".join(sorted(AMBIGUOUS))

#: A host name with a domain, in free text (not followed by ``(``: ``model.to(device)``).
FQDN = (
    rf"(?<![\w.-])(?:(?:{_LABEL}\.)+(?i:{GENERIC}|{_PLAIN})|(?:{_LABEL}\.){{2,}}(?i:{_SHARED}))"
    r"(?![\w(-])"
)
#: A serial number after its label; the label is kept, the value is group ``serialvalue``.
#: Without a ``:``/``=`` (lspci's ``Device Serial Number 00-00-…``, ``S/N 5JG2XY1``) the value
#: must hold a digit, so that ``serial console`` stays prose. ``N/A`` is no serial.
SERIAL = (
    r"(?:(?i:serial[\w.]*(?:[ _-]?(?:number|no|num))?)(?:\[[^\]\s]*\])?"
    r"|(?<![\w/])(?i:s/n)|(?<![\w/])SN)"
    r"(?:[ \t]*[:=#][ \t]*|[ \t]+(?=[\w-]*\d))"
    r"(?P<serialvalue>[A-Za-z0-9][\w-]{3,})"
)
#: An InfiniBand GUID after its label (ibstat's ``Port GUID: 0x…``, ibv_devinfo's
#: ``node_guid: xxxx:xxxx:xxxx:xxxx``); the value is group ``guidvalue``.
GUID = (
    r"(?<![A-Za-z0-9])(?i:guid)(?![A-Za-z0-9])[ \t]*[:=]?[ \t]*"
    rf"(?P<guidvalue>(?:0x)?[{_HEX}]{{16}}(?!\w)|[{_HEX}]{{4}}(?::[{_HEX}]{{4}}){{3}}"
    rf"(?![{_HEX}:]))"
)
#: A hardware address: 6 (MAC), 8 (EUI-64, as lspci prints a serial) or 20 (InfiniBand) hex
#: pairs with one separator, or Cisco's ``3cfd.fea1.b2c4``.
MAC = (
    rf"(?<![{_HEX}:-])[{_HEX}]{{2}}(?P<macsep>[:-])[{_HEX}]{{2}}"
    rf"(?:(?:(?P=macsep)[{_HEX}]{{2}}){{18}}|(?:(?P=macsep)[{_HEX}]{{2}}){{6}}"
    rf"|(?:(?P=macsep)[{_HEX}]{{2}}){{4}})(?![{_HEX}:-])"
    rf"|(?<![\w.:-])[{_HEX}]{{4}}\.[{_HEX}]{{4}}\.[{_HEX}]{{4}}(?!\.?[\w:-])"
)

_NCCL_RANK = re.compile(rf"\bRank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+({_NAME})\s+device\b")
#: What follows the host in an NCCL log line (``HOST:PID:TID [DEV] NCCL INFO …``).
NCCL_LOG_TAIL = r":\d+:\d+ \[\d+\] NCCL (?:INFO|WARN)\b"
_NCCL_LOG = re.compile(rf"(?m)^[ \t]*({_NAME}){NCCL_LOG_TAIL}")
#: ``uname -a``: the kernel's name, the host, the release, then the build's ``#N``.
_UNAME = re.compile(rf"\bLinux[ \t]+({_NAME})[ \t]+\d+\.\d+\S*[ \t]+#\d")
_HOSTNAME_LINE = re.compile(
    r"(?im)^[ \t]*(?:export[ \t]+)?(?:static[ \t]+|transient[ \t]+)?hostname[ \t]*[:=][ \t]*"
    rf"({_NAME})[ \t]*$"
)
#: nvidia-smi's query fields (``--query-gpu=clocks.gr,clocks.sm``): names the tool defines
_QUERY = re.compile(r"--query-[\w-]+=(\S+)")
#: The last word of an environment key that names a host (``host``, ``head_node``, ``rack``).
HOST_WORDS = frozenset(
    {"host", "hostname", "hosts", "node", "nodes", "nodename", "server", "servers", "machine"}
    | {"fqdn", "rack", "vm"}
)


def hosts_named(text: str) -> Iterator[str]:
    """The host names ``text`` says a program ran on (nccl-tests, NCCL's log, uname -a,
    hostname lines)."""
    for pattern in (_NCCL_RANK, _NCCL_LOG, _UNAME, _HOSTNAME_LINE):
        for match in pattern.finditer(text):
            yield match.group(1)


def query_fields(text: str) -> Iterator[str]:
    """The field names of nvidia-smi ``--query-*=`` arguments in ``text``: not host names,
    even where they end like one (``clocks.max.gr``)."""
    for match in _QUERY.finditer(text):
        yield from (field for field in match.group(1).strip("'\"").split(",") if field)


def prints_host(command: str) -> bool:
    """Whether ``command``'s output is the host's name (``hostname``, ``uname -n``)."""
    words = command.split()
    if not words:
        return False
    program, options = words[0].rsplit("/", 1)[-1], words[1:]
    if program == "hostname":
        return not {"-i", "-I", "--ip-address", "--all-ip-addresses"} & set(options)
    return program == "uname" and bool({"-n", "--nodename"} & set(options))


def names_host(key: str) -> bool:
    """Whether an environment key's value is a host name (or a list of them)."""
    return re.split(r"[_.\-\s]+", key.lower())[-1] in HOST_WORDS
