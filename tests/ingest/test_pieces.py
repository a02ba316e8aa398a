"""The pieces ingest is built from: screen text, command matching, secret scrubbing."""

from __future__ import annotations

import pytest

from casefile.app.ingest import shapes
from casefile.transcripts.commands import CommandLineError, match_command
from casefile.transcripts.screen_text import render
from casefile.transcripts.secrets import scrub
from tests.cli.conftest import builtin_registry

SHAPES = shapes(builtin_registry())


def test_screen_text_applies_escapes_carriage_returns_and_backspaces() -> None:
    assert render("\x1b[1;31mred\x1b[0m plain") == "red plain"
    assert render("10%\r50%\r100%\r\ndone\r\n") == "100%\ndone\n"
    assert render("abc\x08\x08XY") == "aXY"
    assert render("\x1b]0;title\x07text") == "text"


@pytest.mark.parametrize(
    ("line", "probe", "host", "filter_"),
    [
        ("ssh inference-vm 'nvidia-smi topo -m'", "nvidia-smi-topo", "inference-vm", None),
        (
            "ssh [REDACTED] 'nvidia-smi -q -d PERFORMANCE | grep -A5 \"Tx\\|Rx\" | head -80'",
            "nvidia-smi-q-perf",
            "[REDACTED]",
            "grep -A5 'Tx\\|Rx' | head -80",
        ),
        ("sudo lspci -vvv 2>&1 | grep -i width", "lspci", None, "grep -i width"),
        ("lspci -tv", "lspci-tree", None, None),
        ("nvidia-smi", "nvidia-smi", None, None),
        ("nvidia-smi -q -i 0", "nvidia-smi-q", None, None),
        ("nvidia-smi nvlink -s", "command", None, None),
        ("nvidia-smi dmon -s u -c 3", "nvidia-smi-dmon", None, None),
        (
            "nvidia-smi --query-gpu=index,utilization.gpu --format=csv",
            "nvidia-smi-query",
            None,
            None,
        ),
        ("./all_gather_perf -b 8 -e 1G -g 8", "nccl-tests", None, None),
        ("env -u NCCL_P2P_LEVEL ./all_reduce_perf -b 8", "nccl-tests", None, None),
        # nccl-tests reads the NCCL_DEBUG log as nccl-debug does, and the table besides
        ("NCCL_DEBUG=INFO all_reduce_perf -b 8", "nccl-tests", None, None),
        ("env NCCL_DEBUG=INFO all_reduce_perf -b 8 -e 8M -f 2 -g 1", "nccl-tests", None, None),
        ("NCCL_DEBUG=INFO torchrun --nproc-per-node 8 train.py", "command", None, None),
        ("/usr/local/cuda/samples/bin/p2pBandwidthLatencyTest", "cuda-p2p-bandwidth", None, None),
        ("numactl -H", "numactl", None, None),
        ("lscpu | head -5", "lscpu", None, "head -5"),
        ("ssh -p 2222 root@h1 nvidia-smi -q", "nvidia-smi-q", "h1", None),
        ("echo hi", "command", None, None),
    ],
)
def test_commands_match_the_probes_they_ran(
    line: str, probe: str, host: str | None, filter_: str | None
) -> None:
    matched = match_command(line, SHAPES)
    assert (matched.probe, matched.host, matched.filter) == (probe, host, filter_)


def test_env_unset_is_kept_in_the_argv_and_the_setup() -> None:
    matched = match_command("env -u NCCL_P2P_LEVEL NCCL_ALGO=Ring ./all_reduce_perf -g 8", SHAPES)
    assert matched.argv == (
        "env", "-u", "NCCL_P2P_LEVEL", "NCCL_ALGO=Ring", "./all_reduce_perf", "-g", "8",
    )  # fmt: skip
    assert matched.setup == "NCCL_P2P_LEVEL=(unset) NCCL_ALGO=Ring"
    cleared = match_command("env -i PATH=/usr/bin all_reduce_perf -g 8", SHAPES)
    assert cleared.argv == ("env", "-i", "PATH=/usr/bin", "all_reduce_perf", "-g", "8")


def test_sudo_is_noted_and_left_out_of_the_argv() -> None:
    matched = match_command("sudo -E nvidia-smi -q", SHAPES)
    assert matched.sudo and matched.argv == ("nvidia-smi", "-q")


@pytest.mark.parametrize(
    ("line", "setup"),
    [
        ("NCCL_P2P_DISABLE=1 ./build/all_reduce_perf -b 8 -e 1G -g 8", "NCCL_P2P_DISABLE=1"),
        ("env NCCL_ALGO=Ring NCCL_DEBUG=INFO all_reduce_perf -g 8", "NCCL_ALGO=Ring"),
        ("CUDA_VISIBLE_DEVICES=0,1 all_reduce_perf -g 2", "CUDA_VISIBLE_DEVICES=0,1"),
        ("env -u NCCL_P2P_LEVEL all_reduce_perf -g 8", "NCCL_P2P_LEVEL=(unset)"),
        ("env -uNCCL_ALGO all_reduce_perf -g 8", "NCCL_ALGO=(unset)"),
        ("env -i PATH=/usr/bin all_reduce_perf -g 8", "(environment)=(unset) PATH=/usr/bin"),
        ("env -S 'NCCL_ALGO=Ring all_reduce_perf -b 8'", "NCCL_ALGO=Ring"),
        ("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT all_reduce_perf -g 8", None),
        ("LC_ALL=C TERM=dumb nvidia-smi -q", None),
        ("sudo -E nvidia-smi -q", None),
        # an IB partition key is a setting, not a secret: it is a change of setup
        ("NCCL_IB_PKEY=0x8001 all_reduce_perf -g 8", "NCCL_IB_PKEY=0x8001"),
        # a credential is not a change of setup (and its value never reaches the label)
        (
            "HF_TOKEN=[scrubbed] CUDA_VISIBLE_DEVICES=0,1 python bench.py",
            "CUDA_VISIBLE_DEVICES=0,1",
        ),
    ],
)
def test_a_commands_own_environment_makes_it_another_setup(line: str, setup: str | None) -> None:
    """An assignment made for one command alone is a deliberate change (an A/B's variant, a
    subset of the GPUs); logging and locale settings change only what it prints."""
    assert match_command(line, SHAPES).setup == setup


def test_a_line_that_does_not_split_is_refused() -> None:
    with pytest.raises(CommandLineError):
        match_command("echo 'unclosed", SHAPES)


@pytest.mark.parametrize(
    ("text", "kind", "secret"),
    [
        ("export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz", "environment secret", "hf_abc"),
        # a quoted value is one secret, spaces and all; a name that is the word alone counts
        ("MY_API_KEY='abc def' ./bench", "environment secret", "def"),
        ("PASSWORD=hunter2 ./bench", "environment secret", "hunter2"),
        # a quote that does not close on the line: the first line of a multi-line value
        ("export DB_PASSWORD='hunter2-prod", "environment secret", "hunter2"),
        ("PGPASSWORD=pw1234 psql -h db", "environment secret", "pw1234"),
        ("curl -H 'Authorization: Bearer abc.def.ghi'", "Authorization header", "abc.def"),
        ("git clone https://me:pa55word@git.example.invalid/x", "password in URL", "pa55word"),
        ("token ghp_0123456789abcdefghijABCDEFGHIJ", "token", "ghp_0123"),
        # issue 23 (R3-M2): a colon, JSON and YAML fields, a bare bearer token, a PEM key
        ("password: Sup3rS3cret!", "password field", "Sup3rS3cret"),
        ('{"user": "u", "password": "a b c"}', "password field", "a b c"),
        ("  aws_secret_access_key: wJalrXUtnFEMI", "password field", "wJalrX"),
        ("sent Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig in the header", "bearer token", "eyJhbG"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5v\n"
            "AAAAMwAAAAtzc2gtZWQy\n-----END OPENSSH PRIVATE KEY-----",
            "private key",
            "AAAAMwAAAAtzc2gtZWQy",
        ),
    ],
)
def test_secret_shapes_are_scrubbed_and_named(text: str, kind: str, secret: str) -> None:
    clean = scrub(text)
    assert secret not in clean.text
    assert kind in clean.kinds


@pytest.mark.parametrize(
    "text",
    [
        "read -s -p 'Password: ' pw; echo",  # a prompt, its name in quotes that close after
        '{"pad_token": "</s>", "max_tokens": 512}',  # settings named like tokens
        "the bearer of the news",
        "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----",  # nothing in it
    ],
)
def test_what_only_looks_like_a_secret_field_is_kept(text: str) -> None:
    assert scrub(text, program_line=True).text == text


def test_dash_p_password_only_in_command_lines() -> None:
    assert "hunter22" not in scrub("mysql -phunter22", program_line=True).text
    assert scrub("gcc -pthread main.c").text == "gcc -pthread main.c"
    assert scrub("ssh -p 2222 host", program_line=True).kinds == ()


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (b'{"version": 2, "width": 80}\n[0.1, "o", "$ ls\\r\\n"]\n', "asciicast"),
        (b"Script started on 2026-03-02 09:57:00+00:00\n$ ls\n", "typescript"),
        (b"\x1b[1m$\x1b[0m ls\r\n", "typescript"),
        (b"[assistant] look\r\n[bash] nvidia-smi\r\n", "markdown"),
        (b"Some notes\n```bash\n$ ls\n```\n", "markdown"),
        (b"$ ls\nfile\n", "shell-log"),
    ],
)
def test_formats_are_detected(data: bytes, fmt: str) -> None:
    from casefile.transcripts.formats import detect

    assert detect(data) == fmt


def test_review_answers_read_as_the_numbers_to_keep() -> None:
    from casefile.cli.ingest_commands import _numbers

    assert _numbers("1,3-5", 6) == [0, 2, 3, 4]
    assert _numbers("7", 6) is None
    assert _numbers("2-x", 6) is None


def test_a_chat_line_with_the_output_flattened_after_the_command() -> None:
    from casefile.transcripts.formats import read
    from casefile.transcripts.stream import Command

    line = (
        b'[assistant] [bash] ssh 10.1.230.175 \'nvidia-smi -q 2>&1 | grep -E "Link Width|Gen" '
        b"| head -30' PCIe Generation Link Width\n"
    )
    fmt, steps = read(line)
    [command] = [step for step in steps if isinstance(step, Command)]
    assert fmt == "markdown"
    assert command.line.endswith("head -30'")
    assert command.output == b"PCIe Generation Link Width\n"
    matched = match_command(command.line, SHAPES)
    assert (matched.probe, matched.host) == ("nvidia-smi-q", "10.1.230.175")


def test_probes_that_cover_each_other_are_told_apart_by_their_marks() -> None:
    from casefile.transcripts.commands import shapes_of

    mutual = shapes_of(
        [
            ("tool-a", ("tool", "--alpha"), ("tool-b",)),
            ("tool-b", ("tool", "--beta"), ("tool-a",)),
        ]
    )
    assert match_command("tool --beta", mutual).probe == "tool-b"
    assert match_command("tool --alpha", mutual).probe == "tool-a"


@pytest.mark.parametrize("covers", [("nccl-tests", 3), "nccl-debug", ("same",)])
def test_a_probe_that_declares_covers_wrongly_is_refused_at_once(covers: object) -> None:
    from casefile.domain.facts import ParseResult
    from casefile.probes.api import Probe

    with pytest.raises((TypeError, ValueError)):
        Probe("same", "x", lambda _text: ParseResult(), covers=covers)  # type: ignore[arg-type]


def test_a_markdown_line_carrying_a_mark_is_output_not_a_command() -> None:
    """A chat export keeps a command's raw output: a line in it that carries an OSC 133 mark
    is what the command printed, never a command of its own (as in a terminal stream)."""
    from casefile.transcripts.formats import read
    from casefile.transcripts.stream import Command

    data = (
        b"[bash] cat spoof.log\n"
        b"harmless\n"
        b"\x1b]133;B\x07[bash] nvidia-smi --query-gpu=index,utilization.gpu --format=csv\n"
        b"0, 100 %\n"
        b"```console\n"
        b"\x1b]133;A\x07$ lspci -tv\n"
        b"```\n"
    )
    fmt, steps = read(data)
    commands = [step for step in steps if isinstance(step, Command)]
    assert fmt == "markdown"
    assert [command.line for command in commands] == ["cat spoof.log"]
    assert b"nvidia-smi" in commands[0].output


def test_a_v3_cast_proposes_what_its_v2_equivalent_does() -> None:
    """asciicast v3 (asciinema 3.0's default) was refused as "not an asciinema v2 header". Its
    times are intervals since the event before, and it adds comment lines and marker, resize
    and exit events: read, the same session proposes the same runs at the same times."""
    from casefile.transcripts.proposal import ProposedRun, propose
    from tests.ingest.samples import asciicast

    def shown(run: ProposedRun) -> tuple[object, ...]:
        return (run.line, run.probe, run.argv, run.host, run.at, run.text, run.output)

    v2, v3 = propose(asciicast(2), SHAPES), propose(asciicast(3), SHAPES)
    assert (v2.format, v3.format) == ("asciicast", "asciicast")
    assert [shown(run) for run in v3.runs] == [shown(run) for run in v2.runs]
    assert [run.at for run in v3.runs] == [
        "2026-03-02T09:57:00.100000Z",
        "2026-03-02T10:15:00.000000Z",
    ]
    assert len(v3.items) == len(v2.items) == 2
