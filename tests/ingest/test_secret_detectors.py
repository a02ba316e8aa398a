"""The secret detectors: every planted secret caught, no real diagnostic output touched."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.app.ingest import shapes
from casefile.transcripts.proposal import ProposedNote, ProposedRun, propose
from casefile.transcripts.secrets import MASK, mask_values, scrub, scrub_argv
from tests.cli.conftest import builtin_registry
from tests.ingest.planted import AWS_PRINTED, DISTINCT, SECRETS, SHELL_LOG
from tests.parsers.corpus import CORPUS, GOLDEN

SHAPES = shapes(builtin_registry())


def _outputs() -> list[Path]:
    """Every real output: the shared corpus and the fixtures collected beside the goldens."""
    found = [
        path
        for path in sorted(CORPUS.glob("*/*"))
        if path.is_file() and path.suffix not in (".tsv", ".md")
    ]
    return found + sorted(GOLDEN.glob("*/*.txt"))


#: Collected outputs that do hold a credential's place, scrubbed as they should be: a vLLM
#: command line with ``--api-key xxx`` (a placeholder, but an API key's option all the same)
HOLDS_A_CREDENTIAL = {"app-log/094.txt": ("secret option",)}


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not beside the repository")
def test_no_real_output_is_touched() -> None:
    """GPU UUIDs, PCI bus ids, board serials, ``-p`` options and token counts are not secrets:
    each of the 120 corpus outputs (and the collected fixtures) is scrubbed unchanged, read as
    output and as a command line; the few that hold a credential's option lose only that."""
    outputs = _outputs()
    assert len(outputs) >= 120
    changed = []
    for path in outputs:
        text = path.read_bytes().decode("utf-8", errors="replace")
        name = f"{path.parent.name}/{path.name}"
        for program_line in (False, True):
            clean = scrub(text, program_line=program_line)
            if name in HOLDS_A_CREDENTIAL:
                assert clean.kinds == HOLDS_A_CREDENTIAL[name], name
            elif clean.text != text or clean.values:
                changed.append((name, clean.kinds))
    assert changed == []


def test_every_planted_secret_is_scrubbed_from_a_command_line_and_counted() -> None:
    clean = scrub(SHELL_LOG, program_line=True)
    assert [secret for secret in SECRETS if secret in clean.text] == []
    assert clean.count == DISTINCT
    assert "GPU-6f0c6a3b-8a1e-6b4c-9f07-1d2e3c4b5a69" in clean.text
    assert "00000000:18:00.0, 1652022010857" in clean.text


def test_ingest_seals_none_of_the_planted_secrets() -> None:
    """The red team's 25 values in a shell log: 9 were scrubbed by ingest, 16 kept."""
    proposal = propose(SHELL_LOG.encode(), SHAPES)
    sealed = [proposal.source.decode()]
    for item in proposal.items:
        if isinstance(item, ProposedRun):
            sealed += [item.line, *item.argv, item.text, item.output.decode()]
        else:
            assert isinstance(item, ProposedNote)
            sealed.append(item.text)
    everything = "\n".join(sealed)
    assert [secret for secret in SECRETS if secret in everything] == []
    assert sum(item.secrets for item in proposal.runs) == DISTINCT
    assert len(proposal.source) == len(SHELL_LOG.encode())  # offsets stay true


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("curl -u admin:CurlUserPw777 https://x.invalid/", "CurlUserPw777"),
        ("curl --user=admin:CurlUserPw777 https://x.invalid/", "CurlUserPw777"),
        ("sshpass -p 'SshPassPw888' ssh box", "SshPassPw888"),
        ("docker login nvcr.io -u '$oauthtoken' -p AnyNgcKey1234", "AnyNgcKey1234"),
        ("huggingface-cli login --token FlagToken998877", "FlagToken998877"),
        ("tool --api-key=FlagApiKey445566 run", "FlagApiKey445566"),
        ("tool --hf-token FlagHfToken112233", "FlagHfToken112233"),
        ("curl -H 'X-Api-Key: HeaderKey123456'", "HeaderKey123456"),
        ("curl -H 'Cookie: session=Cookie55556666'", "Cookie55556666"),
        ("the password is Tr0ub4dor&3 for now", "Tr0ub4dor&3"),
        ("NGC key nvapi-AbCdEf0123456789AbCdEf0123456789", "nvapi-AbCdEf0123456789"),
        ("id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "eyJzdWIiOiIxIn0"),
        ("stripe sk_live_0123456789abcdefghijklmn", "sk_live_0123456789"),
        ("key AIzaSyA0123456789abcdefghijklmnopqrstuv", "AIzaSyA0123456789"),
        ("role ASIAABCDEFGHIJKLMNOP", "ASIAABCDEFGHIJKLMNOP"),
        ("hook https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXX", "XXXXXXXXXXXX"),
        ("npm_0123456789abcdefghijABCDEFGHIJ012345", "npm_0123456789"),
        ("  u7Gq2Lx9VbN0tR4mK8sD1fH6jW3zP5cY/eA+oQiT\n", "u7Gq2Lx9VbN0tR4mK8sD1fH6jW3zP5cY"),
        ('{"key": "q8Wz3LmN0pR7sT2vX5yB1cD4"}', "q8Wz3LmN0pR7sT2vX5yB1cD4"),
    ],
)
def test_shapes_today_s_scrubber_missed(text: str, secret: str) -> None:
    assert secret not in scrub(text, program_line=True).text


@pytest.mark.parametrize(
    "text",
    [
        "docker run -u 1000:1000 nvcr.io/nvidia/pytorch:24.05-py3",
        "huggingface-cli login --token TOKEN",  # help text names the value
        "huggingface-cli login --token $HF_TOKEN",
        "vllm serve m --max-tokens 512 --pad-token '</s>'",
        "error: the token is invalid",
        "Namespace(allow_credentials=False, tokenizer=None)",
        "Decode batch. #running-req: 8, #token: 62531, token usage: 0.12",
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-6f0c6a3b-8a1e-6b4c-9f07-1d2e3c4b5a69)",
        "export GH_TOKEN=\\",  # the value is on the next line
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh",  # a word of letters alone is not a key
    ],
)
def test_what_only_looks_like_a_secret_is_kept(text: str) -> None:
    assert scrub(text, program_line=True).text == text


def test_a_command_that_prints_a_secret_has_it_all_scrubbed() -> None:
    """``aws configure get`` prints the bare value: known by the command, not the value."""
    clean = scrub("wJalr/shortlow\n", command="aws configure get aws_secret_access_key --profile x")
    assert "wJalr" not in clean.text
    assert clean.kinds == ("printed secret",)
    assert scrub("12.4\n", command="nvidia-smi --query-gpu=power.draw").text == "12.4\n"


def test_an_argv_is_scrubbed_across_its_words_and_within_them() -> None:
    argv, clean = scrub_argv(["mlflow-sync", "--password", "FlagPw321", "-c", "token: Tk0123456"])
    assert argv == ("mlflow-sync", "--password", MASK, "-c", f"token: {MASK}")
    assert clean.count == 2


@pytest.mark.parametrize(
    "raw",
    [
        b"HF_TOKEN=\x1b[01;31m\x1b[Khf_\x1b[m\x1b[KSplitSgr0000111122223333aaaa\r\n",
        b"key \x1b[1mAKIA\x1b[0mABCDEFGHIJKLMNOP\r\n",
    ],
)
def test_a_secret_split_by_escapes_is_masked_in_the_raw_bytes(raw: bytes) -> None:
    """Scrubbing reads the rendered text; the raw bytes kept hold the secret split by colour
    codes or a line wrap, and are masked across them, escapes kept, length unchanged."""
    from casefile.transcripts.screen_text import render

    clean = scrub(render(raw.decode()))
    masked = mask_values(raw, clean.values)
    assert len(masked) == len(raw)
    assert clean.values
    for secret in clean.values:
        assert secret not in render(masked.decode())
    assert b"\x1b[" in masked or b"\r" in masked


def test_a_typescript_with_a_colour_split_token_keeps_none_of_it() -> None:
    data = (
        b"Script started on 2026-03-02 09:57:00+00:00\n"
        b"user@gpu-box:~$ env | grep hf_\r\n"
        b"HF_TOKEN=\x1b[01;31m\x1b[Khf_\x1b[m\x1b[KSplitSgr0000111122223333aaaa\r\n"
        b"user@gpu-box:~$ exit\r\n"
        b'\nScript done on 2026-03-02 09:58:00+00:00 [COMMAND_EXIT_CODE="0"]\n'
    )
    proposal = propose(data, SHAPES, fmt="typescript")
    [run, *_] = proposal.runs
    for kept in (proposal.source, run.output, run.text.encode()):
        assert b"SplitSgr" not in kept
    assert run.secrets == 1


def test_scrubbing_can_be_turned_off() -> None:
    proposal = propose(SHELL_LOG.encode(), SHAPES, scrub=False)
    assert proposal.source == SHELL_LOG.encode()
    assert all(not run.scrubbed and run.secrets == 0 for run in proposal.runs)
    assert AWS_PRINTED in "".join(run.text for run in proposal.runs)


_LINES = [
    *SHELL_LOG.splitlines(),
    "export GH_TOKEN=\\",
    "PASSWORD =",
    "  hunter2",
    "Authorization: Bearer abc.def.ghi",
    "    Serial Number                         : 1652022010857",
    "    GPU UUID                              : GPU-6f0c6a3b-8a1e-6b4c-9f07-1d2e3c4b5a69",
    "",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINES), max_size=40), st.sampled_from(["\n", "\r\n"]))
def test_matching_the_hinted_lines_alone_finds_what_the_whole_text_does(
    lines: list[str], end: str
) -> None:
    """Each shape is matched only on the lines holding one of its hints: the same matches
    as the pattern run over the whole text, much faster on long output."""
    from casefile.transcripts.secret_shapes import SHAPES
    from casefile.transcripts.secrets import _sub

    text = end.join(lines)
    for shape in SHAPES:

        def mark(match: re.Match[str]) -> str:
            return f"{match.group(1)}<{match.group(2)}>"

        assert _sub(shape, text, mark) == shape.pattern.sub(mark, text), shape.kind


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("0.00.345.573 I print_info: BOS token        = 0 '<|endoftext|>'", False),
        ("0.00.345.575 I print_info: LF token         = 187 'Ċ'", False),
        ("TOKEN=123456", True),  # an assignment: a number can be a secret
        ("token = 84736251904736251904", True),  # too long for an id or a count
        ("HF_TOKEN=123456", True),
        ("PASSWORD=123456", True),
    ],
)
def test_a_special_tokens_id_in_a_model_log_is_no_secret(line: str, secret: bool) -> None:
    """llama.cpp prints each special token's id in the vocabulary ("BOS token = 0"): scrubbed,
    a pasted load log lost its lines (goldens app-log/058 and 059)."""
    clean = scrub(line, program_line=False)
    assert (clean.text != line) is secret
