"""Redaction (issue 10): planted host names, addresses, user names, UUIDs and serials are gone
from every format, each replaced by one pseudonym everywhere, and the map holds them all."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from casefile.report import ReportOptions, build_report, redact_report, render, render_chart
from casefile.report.redact import Redactor
from tests.cli.conftest import CLI
from tests.report.cases import Planted, build_case

HOSTS = ["gpu-node-10.0.0.5.example", "db-primary.corp.internal", "inference-07"]
ADDRESSES = [
    "10.20.30.40",
    "dhcp-192-168-0-66",
    "fe80::1ff:fe23:4567:890a",
    "2001:db8::42",
    "3c:ec:ef:12:34:56",
]
USERS = [
    "bob@inference-07",
    "/home/carol/runs",
    "postgresql://dave:s3cr3tpass@db-primary.corp.internal/c",
]
IDS = [
    "GPU-4b1e2c3d-9f8a-4c2b-8d7e-1234567890ab",
    "0b6a3e52-77f1-4c8e-9d2a-5e6f7a8b9c0d",
    "Serial Number : 1654321098765",
    "PROJ-SECRET-9981",
]
#: what must not survive (the planted strings reduced to their personal parts)
GONE = [
    "gpu-node-10.0.0.5.example",
    "10.0.0.5",
    "db-primary",
    "corp.internal",
    "inference-07",
    "10.20.30.40",
    "192-168-0-66",
    "fe80::1ff:fe23:4567:890a",
    "2001:db8::42",
    "3c:ec:ef:12:34:56",
    "alice.smith",
    "bob",
    "carol",
    "dave",
    "s3cr3tpass",
    "4b1e2c3d-9f8a-4c2b-8d7e-1234567890ab",
    "0b6a3e52-77f1-4c8e-9d2a-5e6f7a8b9c0d",
    "1654321098765",
    "PROJ-SECRET-9981",
]
PATTERNS = (r"PROJ-SECRET-\d+",)


@pytest.fixture(scope="module")
def planted() -> Planted:
    return build_case(
        [*HOSTS, *ADDRESSES, *USERS, *IDS],
        actor="alice.smith",
        host="bob@inference-07:2222",
        argv=["ssh", "-p", "2222", "bob@inference-07", "uptime", "--from", "10.20.30.40"],
    )


@pytest.fixture(scope="module")
def redacted(planted: Planted) -> tuple[dict[str, bytes], dict[str, str]]:
    raw = build_report(planted.service, planted.case_id, ReportOptions())
    report, mapping = redact_report(raw, PATTERNS)
    outputs = {fmt: render(report, fmt, chart_file="r.svg") for fmt in ("md", "html", "json")}
    outputs["svg"] = render_chart(report)
    return outputs, mapping


def test_unredacted_report_holds_the_planted_data(planted: Planted) -> None:
    """The canaries are really there to begin with (else the test below proves nothing)."""
    raw = build_report(planted.service, planted.case_id, ReportOptions())
    text = render(raw, "md").decode() + render(raw, "html").decode()
    for secret in GONE:
        assert secret in text or secret.replace("::", r"\:\:") in text, secret


@pytest.mark.parametrize("fmt", ["md", "html", "json", "svg"])
def test_no_planted_string_survives(
    redacted: tuple[dict[str, bytes], dict[str, str]], fmt: str
) -> None:
    outputs, _ = redacted
    text = outputs[fmt].decode()
    for secret in GONE:
        assert secret not in text, f"{secret!r} survived in {fmt}"


def test_the_map_holds_every_planted_value(
    redacted: tuple[dict[str, bytes], dict[str, str]],
) -> None:
    _, mapping = redacted
    originals = set(mapping.values())
    for expected in [
        "gpu-node-10.0.0.5.example",
        "db-primary.corp.internal",
        "inference-07",
        "10.20.30.40",
        "192-168-0-66",
        "fe80::1ff:fe23:4567:890a",
        "2001:db8::42",
        "3c:ec:ef:12:34:56",
        "alice.smith",
        "bob",
        "carol",
        "dave",
        "GPU-4b1e2c3d-9f8a-4c2b-8d7e-1234567890ab".removeprefix("GPU-"),
        "0b6a3e52-77f1-4c8e-9d2a-5e6f7a8b9c0d",
        "1654321098765",
        "PROJ-SECRET-9981",
    ]:
        assert expected in originals, expected
    # a database URL's password is a credential: removed, and not written to the map either
    assert "s3cr3tpass" not in originals


def test_the_map_is_not_in_the_report(redacted: tuple[dict[str, bytes], dict[str, str]]) -> None:
    outputs, mapping = redacted
    for data in outputs.values():
        assert b'"pseudonyms"' not in data
        for original in mapping.values():
            assert original.encode() not in data


def test_one_host_one_pseudonym_everywhere(
    redacted: tuple[dict[str, bytes], dict[str, str]],
) -> None:
    outputs, mapping = redacted
    back = {original: pseudonym for pseudonym, original in mapping.items()}
    host = back["inference-07"]
    text = outputs["md"].decode()
    # in the environment, the probe's host and conditions, the argv (ssh target) and raw output
    user = back["bob"]
    assert f"host={user}@{host}:2222" in text  # the probe's conditions
    assert f"ssh -p 2222 {user}@{host} uptime" in text  # its argv
    assert f"Environment: host | {user}@{host}:2222" in text
    assert text.count(host) >= 4
    assert re.search(rf"\b{re.escape(host)}-\d", text) is None  # never a longer pseudonym's head


def test_references_stay_verifiable(planted: Planted) -> None:
    from casefile.report import verify_report

    raw = build_report(planted.service, planted.case_id, ReportOptions(redact=True))
    for fmt in ("md", "html", "json"):
        checked = verify_report(planted.service, planted.case_id, render(raw, fmt).decode())
        assert checked.problem is None, (fmt, checked.problem)
        assert checked.references > 10


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ssh gpu-node-10.0.0.5.example", "ssh host-1"),
        ("see 10.0.0.5, then 10.0.0.5", "see ip-1, then ip-1"),
        ("node gpu-node-10.0.0.5-x", "node gpu-node-ip-1-x"),
        ("mail bob@box.", "mail user-1@host-1."),
        (
            "at 09:51:00 and std::vector and 0000:00:10.0",
            "at 09:51:00 and std::vector and 0000:00:10.0",
        ),
        ("link pcie.link.gen.current = 5", "link pcie.link.gen.current = 5"),
        ("serial[gpu0]=1324567890", "serial[gpu0]=serial-1"),
        ("mac 3C-EC-EF-12-34-56", "mac mac-1"),
        ("v6 [2001:db8::1]:22", "v6 [ipv6-1]:22"),
        ("29@fb85b2f88dc9 stays", "29@fb85b2f88dc9 stays"),
    ],
)
def test_redactor_on_its_own(text: str, expected: str) -> None:
    assert Redactor().redact(text) == expected


def test_a_fact_named_like_a_domain_and_casefiles_own_placeholder_host_stay() -> None:
    """Found by review: nccl.test (a fact) ends in a domain suffix and became a host, and the
    host "unknown" of a paste without --host was learnt, so every "unknown" (load=unknown too)
    became a pseudonym."""
    redactor = Redactor()
    redactor.learn_host("unknown")
    texts = [
        "facts: nccl.test[host]=all_reduce_perf, nccl.gpus[host]=8",
        "rule nccl-bus-bandwidth read nccl.test and load=unknown on unknown",
        "ssh gpu7.cluster nvidia-smi",
    ]
    redactor.learn_facts(texts[0])  # the report's facts digest
    for text in texts:
        redactor.learn_text(text)
    redactor.settle(texts)
    assert redactor.redact(texts[0]) == texts[0]
    assert redactor.redact(texts[1]) == texts[1]
    assert redactor.redact(texts[2]) == "ssh host-1 nvidia-smi"


def test_a_host_written_like_a_fact_in_a_note_is_still_redacted() -> None:
    """Fact names are learnt from the digests casefile writes, not from any text: a note's
    ``db1.corp[0]=primary`` must not exempt the host db1.corp everywhere."""
    redactor = Redactor()
    texts = ["config: db1.corp[0]=primary", "login on db1.corp went fine"]
    for text in texts:
        redactor.learn_text(text)
    redactor.settle(texts)
    assert "db1.corp" not in redactor.redact(texts[1])


def test_a_bad_pattern_is_refused() -> None:
    from casefile.report.redact import RedactionError

    with pytest.raises(RedactionError, match="not a valid regex"):
        Redactor(["("])
    with pytest.raises(RedactionError, match="empty string"):
        Redactor(["x*"])


def test_map_file_from_the_cli_holds_the_map(tmp_path: Path, planted: Planted, cli: CLI) -> None:
    """Through the CLI on a case directory: --redact-map writes the map, only there."""
    out = tmp_path / "case"
    planted.service.library.export(planted.case_id, out)
    report = tmp_path / "r.html"
    mapping = tmp_path / "map.json"
    done = cli(
        "report",
        str(out),
        "--format",
        "html",
        "-o",
        str(report),
        "--redact",
        "--redact-map",
        str(mapping),
        "--redact-pattern",
        PATTERNS[0],
    )
    assert done.code == 0, done.err
    table = json.loads(mapping.read_text())["pseudonyms"]
    assert "inference-07" in table.values()
    body = report.read_text()
    for secret in GONE:
        assert secret not in body


def test_the_planted_case_reaches_every_section(planted: Planted) -> None:
    """So that "no planted string survives" covers every kind of field the report shows."""
    raw = build_report(planted.service, planted.case_id, ReportOptions())
    assert len(raw.unparsed) == 1 and raw.unparsed[0].probe == "nvidia-smi-query"
    assert raw.excerpts and raw.excerpts[0].host == "bob@inference-07:2222"
    retired = {r.hypothesis: r for r in raw.ruled_out if r.retired}
    assert "fans fine on" in retired["thermal"].reason
    assert raw.closing.actions and raw.closing.recommendations and raw.closing.lessons
    assert any(row.facts and "load_avg[" in row.facts for row in raw.timeline)
    assert raw.summary.participants[0].actor == "alice.smith"
    kinds = {row.kind for row in raw.timeline}
    assert {"note", "probe", "evidence", "action", "hypothesis", "conclusion"} <= kinds
