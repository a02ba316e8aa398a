"""Redaction's detectors (issue 23, defect 6) on the real outputs of ../shared/corpus, and on
synthetic samples of each kind the red team found kept (R3-M1, R3-M2).

On real output, what is replaced must be what it is taken for (a host where a prompt or
nccl-tests names one, a serial after its label, …), and what identifies nothing must stay
byte for byte: PCI bus ids, driver, CUDA, NCCL and VBIOS versions, nvidia-smi's query fields.
A GPU UUID is replaced as a UUID, never as a serial, a MAC or a secret.
"""

from __future__ import annotations

import ipaddress
import re
import time
from pathlib import Path

import pytest

from casefile.report.redact import Redactor
from tests.parsers.corpus import CORPUS, read_sample

SAMPLES = sorted(CORPUS.glob("*/*.txt"))

BUS_ID = re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{4,8}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]\b")
BRACKETED_BUS_ID = re.compile(r"\[[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\]")
VERSION = re.compile(
    r"(?:Driver Version|CUDA Version|VBIOS Version|NCCL version|driver_version)\s*:?\s*"
    r"([\w.+-]+)"
)
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+){1,2}(?![\w.])")
GPU_UUID = re.compile(r"\b(?:GPU|MIG)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: the hosts nccl-tests' rank lines and NCCL's log lines name
NCCL_HOST = re.compile(r"\bon\s+(\S+)\s+device\b|^(\S+):\d+:\d+ \[\d+\] NCCL", re.MULTILINE)


def redacted(*texts: str, command: bool = False) -> tuple[list[str], Redactor]:
    """``texts`` redacted together, as one report's strings are."""
    redactor = Redactor()
    for text in texts:
        redactor.learn_text(text, command=command)
    redactor.settle(texts)
    return [redactor.redact(text) for text in texts], redactor


def _is_context(kind: str, original: str, text: str) -> bool:
    """Whether ``original`` stands in ``text`` where a ``kind`` does."""
    name = re.escape(original)
    if kind == "host":
        found = rf"@{name}\b|\bon\s+{name}\s+device\b|^{name}:\d+:\d+ \["
    elif kind == "user":
        found = rf"(?<![\w.-]){name}@|/home/{name}\b"
    elif kind == "ip":
        ipaddress.IPv4Address(original)
        found = rf"(?<![\d.]){name}(?![\d.])"
    elif kind == "uuid":
        found = rf"(?:GPU-|MIG-|UUID\s*:\s*){name}" if UUID.fullmatch(original) else "(?!)"
    else:
        found = rf"Serial Number\s*:?\s*{name}"
    return re.search(found, text, re.MULTILINE) is not None


@pytest.mark.skipif(not SAMPLES, reason=f"corpus not found at {CORPUS}")
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_real_output_loses_what_identifies_and_nothing_else(path: Path) -> None:
    text = read_sample(path)
    (out,), redactor = redacted(text)
    for kept in (BUS_ID, BRACKETED_BUS_ID, VERSION, NUMBER):
        assert kept.findall(out) == kept.findall(text), kept.pattern
    assert not redactor.secrets and "secret-" not in out  # real output holds no credential
    for pseudonym, original in redactor.pseudonyms().items():
        kind = pseudonym.rsplit("-", 1)[0]
        assert kind in {"host", "user", "ip", "uuid", "serial"}, (pseudonym, original)
        assert _is_context(kind, original, text), (pseudonym, original)
    assert GPU_UUID.search(out) is None
    for match in NCCL_HOST.finditer(text):
        host = match.group(1) or match.group(2)
        assert host not in out, host


def test_the_corpus_has_what_the_test_above_looks_for() -> None:
    """So that it proves something: bus ids, versions, UUIDs, serials, nccl hosts are there."""
    if not SAMPLES:
        pytest.skip(f"corpus not found at {CORPUS}")
    text = "\n".join(read_sample(path) for path in SAMPLES)
    assert len(BUS_ID.findall(text)) > 100 and len(VERSION.findall(text)) > 50
    assert len(GPU_UUID.findall(text)) > 20 and "Device Serial Number 00-00-18" in text
    assert {m.group(1) for m in NCCL_HOST.finditer(text)} >= {"ztan-mig-235z", "ztan-mig-gq73"}


@pytest.mark.parametrize(
    ("text", "original", "kind"),
    [
        (
            "Linux dgx-a100-17 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 "
            "x86_64 x86_64 x86_64 GNU/Linux",
            "dgx-a100-17",
            "host",
        ),
        ("   Static hostname: gpu-box-3", "gpu-box-3", "host"),
        ("rsync to node17.hpc.uni-muenchen.de failed", "node17.hpc.uni-muenchen.de", "host"),
        ("mirror at uni-muenchen.de", "uni-muenchen.de", "host"),
        ("gpu3.cluster.example.co.uk is down", "gpu3.cluster.example.co.uk", "host"),
        (
            "\tCapabilities: [13c v1] Device Serial Number 00-00-18-66-da-fc-d6-4c",
            "00-00-18-66-da-fc-d6-4c",
            "serial",
        ),
        ("chassis serial 1322021099999", "1322021099999", "serial"),
        ("SN: CN0X1234567890", "CN0X1234567890", "serial"),
        ("S/N 5JG2XY1 on the label", "5JG2XY1", "serial"),
        ("Gi0/1  3cfd.fea1.b2c4  DYNAMIC", "3cfd.fea1.b2c4", "mac"),
        (
            "link/infiniband 00:00:10:29:fe:80:00:00:00:00:00:00:ec:0d:9a:03:00:12:34:56 brd",
            "00:00:10:29:fe:80:00:00:00:00:00:00:ec:0d:9a:03:00:12:34:56",
            "mac",
        ),
        ("\t\tPort GUID: 0xec0d9a0300123456", "0xec0d9a0300123456", "guid"),
        ("\tnode_guid:\t\t\tec0d:9a03:0012:3456", "ec0d:9a03:0012:3456", "guid"),
        ("cat ~dave/.ssh/config", "dave", "user"),
    ],
)
def test_each_kind_the_red_team_found_kept_is_replaced(text: str, original: str, kind: str) -> None:
    (out,), redactor = redacted(text)
    assert original not in out
    pseudonym = {o: p for p, o in redactor.pseudonyms().items()}[original]
    assert pseudonym.startswith(f"{kind}-") and pseudonym in out


def test_a_host_an_output_names_is_replaced_wherever_it_is_written_bare() -> None:
    """nccl-tests names every node of a multi-node run; a note, a hypothesis or a --setup
    names one bare: learnt from the output, it goes everywhere, as one pseudonym."""
    if not (CORPUS / "nccl" / "001.txt").is_file():
        pytest.skip(f"corpus not found at {CORPUS}")
    nccl = read_sample(CORPUS / "nccl" / "001.txt")
    uname = "Linux dgx-a100-17 5.15.0-91-generic #101-Ubuntu SMP x86_64 GNU/Linux"
    note = "ztan-mig-gq73 was slower than dgx-a100-17; rebooted ztan-mig-gq73"
    (_, _, out), redactor = redacted(nccl, uname, note)
    back = {original: pseudonym for pseudonym, original in redactor.pseudonyms().items()}
    assert out == f"{back['ztan-mig-gq73']} was slower than {back['dgx-a100-17']}; " + (
        f"rebooted {back['ztan-mig-gq73']}"
    )


@pytest.mark.parametrize(
    "text",
    [
        "python setup.py build; nvcc kernel.cu; torch.load('model.pt'); libmlx5.so",
        "self.model.to(device) and x.cuda()",
        "see README.md and configure.ac",
        "    VBIOS Version                   : 86.02.39.00.BD",
        "serial console on ttyS0, Serial Number : N/A",
        "load=unknown on unknown",
    ],
)
def test_what_only_looks_like_a_host_or_serial_stays(text: str) -> None:
    (out,), redactor = redacted(text)
    assert out == text and not redactor.mapping


def test_a_prompts_localhost_stays_localhost() -> None:
    """smi-table/020.txt's prompt: the user is someone, "localhost" names no machine (the
    host part of ``user@host`` was replaced even where the host is one of NOT_HOSTS)."""
    (out,), _ = redacted("[root@localhost:~] nvidia-smi")
    assert out == "[user-1@localhost:~] nvidia-smi"


def test_nvidia_smi_query_fields_are_no_hosts() -> None:
    """``clocks.gr`` and ``clocks.max.sm`` end in country codes (Greece, San Marino)."""
    argv = "nvidia-smi --query-gpu=clocks.gr,clocks.max.sm,clocks.applications.gr --format=csv"
    texts = (argv, "clocks.max.sm stayed at 1980 while clocks.applications.gr said 2100")
    outs, _ = redacted(*texts)
    assert outs == list(texts)


CREDENTIALS = [
    # (text, the secret in it, written in full)
    (
        "export GH_TOKEN=ghp_cccc1111222233334444555566667777aaaa",
        "ghp_cccc1111222233334444555566667777aaaa",
    ),
    (
        "token ghp_dddd1111222233334444555566667777aaaa in a note",
        "ghp_dddd1111222233334444555566667777aaaa",
    ),
    ("password: Sup3rS3cret!", "Sup3rS3cret!"),
    ('{"user": "svc", "password": "hunter2 prod"}', "hunter2 prod"),
    (
        "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln'",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
    ),
    (
        "used Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln2 by hand",
        "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln2",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
        "AAAAMwAAAAtzc2gtZWQyNTUxOQAAACBkZXZpY2Uta2V5\n-----END OPENSSH PRIVATE KEY-----",
        "AAAAMwAAAAtzc2gtZWQyNTUxOQAAACBkZXZpY2Uta2V5",
    ),
]


@pytest.mark.parametrize(("text", "secret"), CREDENTIALS)
def test_a_credential_is_removed_everywhere_and_kept_out_of_the_map(text: str, secret: str) -> None:
    """Found in its shape, then replaced wherever the value recurs (a note quoting it), as
    ``secret-N``; the map gets no entry for it: a secret must not be written to one more
    file."""
    (out, again), redactor = redacted(text, f"again: {secret}")
    assert secret not in out and "secret-1" in out
    assert again == "again: secret-1"
    assert not any(secret in original for original in redactor.pseudonyms().values())
    assert not any(pseudonym.startswith("secret") for pseudonym in redactor.pseudonyms())


def test_a_password_glued_to_dash_p_on_a_command_line() -> None:
    (out,), redactor = redacted("mysql -uroot -pHunter2Secret -h db", command=True)
    assert out == "mysql -uroot -psecret-1 -h db" and not redactor.mapping


def test_a_private_key_cut_into_lines_is_one_secret_on_every_line() -> None:
    """Raw output reaches the report as separate lines: the key is learnt from the output read
    whole, then each of its lines is the same placeholder."""
    text, _ = CREDENTIALS[-1]
    lines = text.splitlines()
    redactor = Redactor()
    redactor.learn_text(text)
    redactor.settle(lines)
    assert [redactor.redact(line) for line in lines] == [
        lines[0],
        "secret-1",
        "secret-1",
        lines[-1],
    ]


def test_a_long_dotted_word_is_redacted_in_linear_time() -> None:
    """Found while timing the new detectors: a URL's scheme was ``[\\w+.-]*`` before
    ``://`` (in redaction and in the secret shapes), so every word start of a long dotted
    word scanned to its end: 200 KB took minutes. Linear, it takes well under a second."""
    text = "a." * 100_000 + " x://u:p@h"
    started = time.perf_counter()
    (out,), _ = redacted(text)
    assert time.perf_counter() - started < 5.0
    assert out.endswith(" x://user-1:secret-1@host-1")
