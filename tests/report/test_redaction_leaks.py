"""What `--redact` kept (issue 23, defect 6; red team round 3, R3-M1 and R3-M2), planted in
every text field of a case and checked in every format: bare host names that only an output
names, country-code domains, serials in their other forms, Cisco MACs, InfiniBand GUIDs, and
credentials (in the environment, notes, argv, facts and raw output). Each is replaced the same
way everywhere; the map holds the originals, but no credential."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from casefile.report import ReportOptions, build_report, redact_report, render, render_chart
from casefile.report.redact import Redactor
from tests.cli.conftest import CLI
from tests.report.cases import REFERENCE, Planted, build_case, service_with

TOKEN = "ghp_cccc1111222233334444555566667777aaaa"
KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n"
    "AAAAMwAAAAtzc2gtZWQyNTUxOQAAACBkZXZpY2Uta2V5aGVyZQ\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
TEXTS = [
    "Linux dgx-a100-17 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 x86_64",
    # verbatim from the corpus (nccl/001.txt): the second node of a two-node run
    "#  Rank  8 Group  0 Pid   6733 on ztan-mig-gq73 device  0 [0000:04:00] NVIDIA H100 80GB HBM3",
    "then dgx-a100-17 again",
    "and ztan-mig-gq73 too",
    "node17.hpc.uni-muenchen.de",
    "gpu3.cluster.example.co.uk",
    "Capabilities: [13c v1] Device Serial Number 00-00-18-66-da-fc-d6-4c",
    "S/N 5JG2XY1",
    "SN: CN0X1234567890",
    "Cisco 3cfd.fea1.b2c4",
    "Port GUID: 0xec0d9a0300123456",
    "config in ~dave/.ssh/config",
    f"token {TOKEN}",
    "password: Sup3rS3cret!",
    KEY,
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
]
ENVIRONMENT = {
    "token": "ghp_ZZZZ1111222233334444555566667777aaaa",
    "db_password": "hunter2prod",
    "rack": "r12-node-dgx-b200-05",
}
ARGV = ["sh", "-c", "echo ghp_inargv11112222333344445555666677", "-pHunter2Secret"]
#: what must not survive, each written without a character Markdown escapes
GONE = [
    "dgx-a100-17",
    "ztan-mig-gq73",
    "uni-muenchen",
    "co.uk",
    "00-00-18-66-da-fc-d6-4c",
    "5JG2XY1",
    "CN0X1234567890",
    "3cfd.fea1.b2c4",
    "ec0d9a0300123456",
    "dave",
    "cccc1111222233334444555566667777aaaa",
    "ZZZZ1111222233334444555566667777aaaa",
    "inargv11112222333344445555666677",
    "Sup3rS3cret",
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB",
    "AAAAMwAAAAtzc2gtZWQyNTUxOQAAACBkZXZpY2Uta2V5aGVyZQ",
    "eyJhbGciOiJIUzI1NiJ9",
    "Hunter2Secret",
    "hunter2prod",
    "r12-node-dgx-b200-05",
]
SECRETS = GONE[GONE.index("cccc1111222233334444555566667777aaaa") :]
SECRETS.remove("r12-node-dgx-b200-05")


@pytest.fixture(scope="module")
def planted() -> Planted:
    """A case that holds its credentials, as one sealed before secrets were scrubbed at
    recording (or recorded with ``--no-scrub``) does: what ``--redact`` removes is tested."""
    from casefile.app import scrubbing, writer

    def kept(result: object, note: str | None) -> scrubbing.ScrubbedRun:
        return scrubbing.ScrubbedRun(result, note, 0)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as unscrubbed:
        unscrubbed.setattr(writer, "scrub_text", lambda text: text)
        unscrubbed.setattr(writer, "scrub_environment", dict)
        unscrubbed.setattr(scrubbing, "scrub_run", kept)
        return build_case(
            TEXTS, actor="alice", host="gpu-login-1", argv=ARGV, environment=ENVIRONMENT
        )


@pytest.fixture(scope="module")
def redacted(planted: Planted) -> tuple[dict[str, str], dict[str, str]]:
    raw = build_report(planted.service, planted.case_id, ReportOptions())
    report, mapping = redact_report(raw)
    outputs = {fmt: render(report, fmt, chart_file="r.svg").decode() for fmt in ("md", "json")}
    outputs["html"] = render(report, "html").decode()
    outputs["svg"] = render_chart(report).decode()
    return outputs, mapping


def test_the_planted_strings_are_in_the_unredacted_report(planted: Planted) -> None:
    """(Else the test below proves nothing.) Facts and raw output carry some of them too."""
    raw = build_report(planted.service, planted.case_id, ReportOptions())
    text = render(raw, "md").decode() + render(raw, "html").decode()
    for secret in GONE:
        assert secret in text, secret
    assert any(row.facts and "ghp_" in row.facts for row in raw.timeline)
    assert any(KEY.splitlines()[1] in excerpt.lines for excerpt in raw.excerpts)


@pytest.mark.parametrize("fmt", ["md", "html", "json", "svg"])
def test_nothing_planted_survives(
    redacted: tuple[dict[str, str], dict[str, str]], fmt: str
) -> None:
    outputs, _ = redacted
    for secret in GONE:
        assert secret not in outputs[fmt], f"{secret!r} survived in {fmt}"


def test_hosts_and_serials_go_to_the_map_credentials_nowhere(
    redacted: tuple[dict[str, str], dict[str, str]],
) -> None:
    outputs, mapping = redacted
    kinds = {original: pseudonym.rsplit("-", 1)[0] for pseudonym, original in mapping.items()}
    expected = {
        "dgx-a100-17": "host",
        "ztan-mig-gq73": "host",
        "node17.hpc.uni-muenchen.de": "host",
        "gpu3.cluster.example.co.uk": "host",
        "r12-node-dgx-b200-05": "host",
        "00-00-18-66-da-fc-d6-4c": "serial",
        "5JG2XY1": "serial",
        "CN0X1234567890": "serial",
        "3cfd.fea1.b2c4": "mac",
        "0xec0d9a0300123456": "guid",
        "dave": "user",
    }
    assert {original: kinds.get(original) for original in expected} == expected
    every = json.dumps(mapping)
    for secret in SECRETS:
        assert secret not in every, secret
    assert not any(pseudonym.startswith("secret") for pseudonym in mapping)
    assert "secret-1" in outputs["md"] and "secret-1" in outputs["json"]


def test_one_original_one_placeholder_everywhere(
    redacted: tuple[dict[str, str], dict[str, str]],
) -> None:
    """The host uname names is the same pseudonym in the note that names it bare; the token
    in the raw output is the same placeholder in the facts read from it."""
    outputs, mapping = redacted
    back = {original: pseudonym for pseudonym, original in mapping.items()}
    md = outputs["md"]
    assert f"then {back['dgx-a100-17']} again" in md
    assert f"Linux {back['dgx-a100-17']} 5.15.0" in md
    assert f"and {back['ztan-mig-gq73']} too" in md
    token = "secret-" + md.split("token secret-", 1)[1].split()[0]
    assert f"{token} load=0.50" in md and f"load\\_avg\\[{token}\\]" in md


def test_map_file_from_the_cli(tmp_path: Path, planted: Planted, cli: CLI) -> None:
    out = tmp_path / "case"
    planted.service.library.export(planted.case_id, out)
    report, mapping = tmp_path / "r.json", tmp_path / "map.json"
    done = cli(
        "report", str(out), "--format", "json", "-o", str(report), "--redact",
        "--redact-map", str(mapping),
    )  # fmt: skip
    assert done.code == 0, done.err
    table = json.loads(mapping.read_text())["pseudonyms"]
    assert "ztan-mig-gq73" in table.values()
    for secret in SECRETS:
        assert secret not in mapping.read_text()
    body = report.read_text()
    for secret in GONE:
        assert secret not in body
    assert cli("report", "verify", str(report), str(out)).code == 0


def test_an_environment_description_names_no_hosts() -> None:
    """The reference case's ``host`` entry is a description ("Proxmox (KVM) virtual machine,
    GPUs passed through"): its words are no host names, or every "GPUs" in the report would
    become one. A list of names is: ``nodes=gpu-a1,gpu-a2``; a count is not: ``nodes=2``."""
    redactor = Redactor()
    redactor.learn_environment("host", "Proxmox (KVM) virtual machine, GPUs passed through")
    redactor.learn_environment("nodes", "2")
    redactor.learn_environment("head_node", "gpu-a1, gpu-a2")
    redactor.learn_environment("gpus", "gpu-b1")  # not a key that names a host
    assert list(redactor.hosts) == ["gpu-a1", "gpu-a2"]
    service, case_id = service_with(REFERENCE)
    report, _ = redact_report(build_report(service, case_id, ReportOptions()))
    text = render(report, "md").decode()
    assert "Proxmox (KVM) virtual machine, GPUs passed through" in text
    assert "across 8 GPUs" in text


@pytest.mark.parametrize("command", ["hostname", "/bin/hostname -f", "uname -n"])
def test_what_hostname_prints_is_a_host_everywhere(command: str) -> None:
    """A run of ``hostname`` or ``uname -n`` prints the host's name and nothing else: learnt
    from the excerpt, it goes from a lesson that names it bare too."""
    service, case_id = service_with(REFERENCE)
    report = build_report(service, case_id, ReportOptions())
    excerpt = dataclasses.replace(report.excerpts[0], command=command, lines=("gpu-box-7.lab",))
    closing = dataclasses.replace(report.closing, lessons=("gpu-box-7.lab runs hot",))
    report = dataclasses.replace(report, excerpts=(excerpt,), closing=closing)
    redacted, mapping = redact_report(report)
    assert "gpu-box-7" not in render(redacted, "md").decode()
    assert "gpu-box-7.lab" in mapping.values()
