"""A paste wrapped in Markdown (indented, quoted, fenced) parses as the plain one does.

Every real sample, wrapped each way a Markdown note or issue thread wraps output, must give
``Probe.safe_parse`` exactly the facts of the plain sample, which are its golden facts: so the
unwrapping changes nothing for a plain paste either, fragments whose own indentation is all
they share (``nvidia-smi -q`` sections, ``lspci -vv`` capability lines) included.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from casefile_probes.command import PROBE as COMMAND

from casefile.plugins import Registry
from casefile.probes.api import (
    RunOutput,
    dedent_paste,
    readings,
    unquote_paste,
    unwrap_paste,
)
from casefile.probes.patterns import fact_pattern

from .corpus import facts_as_json
from .samples import Sample, all_samples

PROBES = Registry.discover().all_probes()


def _lines(text: str, prefix: str, *, blank_too: bool) -> str:
    return "".join(
        prefix + line if blank_too or line.strip() else line for line in text.splitlines(True)
    )


def _fenced(text: str, fence: str = "```", info: str = "") -> str:
    return f"{fence}{info}\n{text}{'' if text.endswith(chr(10)) else chr(10)}{fence}\n"


#: How Markdown wraps a paste: a code block (four spaces, a tab), a quote (and a quote in a
#: quote, its blank lines bare ``>``), a fence (with an info word, of tildes), and mixtures.
FORMS: dict[str, Callable[[str], str]] = {
    "indented": lambda t: _lines(t, "    ", blank_too=False),
    "indented-all-lines": lambda t: _lines(t, "    ", blank_too=True),
    "tab": lambda t: _lines(t, "\t", blank_too=False),
    "quoted": lambda t: _lines(t, "> ", blank_too=True).replace("> \n", ">\n"),
    "nested-quote": lambda t: _lines(t, "> > ", blank_too=True),
    "fenced": _fenced,
    "tilde-fence": lambda t: _fenced(t, "~~~", "text"),
    "quoted-fence": lambda t: _lines(_fenced(t, info="console"), "> ", blank_too=True),
    "indented-fence": lambda t: _lines(_fenced(t), "    ", blank_too=False),
    "crlf-indented": lambda t: _lines(t, "    ", blank_too=False).replace("\n", "\r\n"),
}


SAMPLES = [
    pytest.param(sample, name, id=f"{sample.key}:{name}")
    for sample in all_samples()
    for name in sample.owners
    if name in PROBES
]


@pytest.mark.parametrize(("sample", "probe_name"), SAMPLES)
def test_a_wrapped_sample_gives_exactly_the_plain_samples_facts(
    sample: Sample, probe_name: str
) -> None:
    probe = PROBES[probe_name]
    text = sample.text()
    # the golden tests hold parse() to the golden files; safe_parse must read the plain
    # sample exactly as parse() does, problems included
    plain = facts_as_json(probe.parse(text))
    assert facts_as_json(probe.safe_parse(text)) == plain
    for form, wrap in FORMS.items():
        wrapped = facts_as_json(probe.safe_parse(wrap(text)))
        assert (wrapped["parsed"], wrapped["facts"]) == (plain["parsed"], plain["facts"]), form


def test_enough_samples_are_checked() -> None:
    """The corpus and the golden samples are there (a missing corpus would check nothing)."""
    folders = {param.values[0].folder for param in SAMPLES}  # type: ignore[union-attr]
    assert {"smi-table", "nccl", "topo", "dmon", "lspci", "smi-q", "lspci-fragment"} <= folders


def test_quote_markers_go_with_one_blank_and_the_rest_of_the_line_stays() -> None:
    quoted = "> > # gpu   pwr\n> >\n> >     0   111\n"
    assert unquote_paste(quoted) == "# gpu   pwr\n\n    0   111\n"
    # a quote's own blank lines may be bare markers; what follows the marker is output
    assert unquote_paste(">   a\n>\n>     b\n") == "  a\n\n    b\n"


def test_a_quotes_markdown_escapes_are_undone_as_the_parsers_own_cleaning_does() -> None:
    assert unquote_paste("> \\# gpu\n>     0\n") == "# gpu\n    0\n"
    assert unquote_paste("\\# gpu\n    0\n") == "\\# gpu\n    0\n"  # not quoted: left alone


def test_fences_go_first_and_last_only() -> None:
    assert unquote_paste("```text\nA\n```\nB\n") == "A\n```\nB\n"  # the first only
    assert unquote_paste("```console\nA\n  B\n```\n") == "A\n  B\n"
    assert unquote_paste("\n\n~~~\nA\n~~~~\n\n") == "\n\nA\n\n"
    # a fence in the middle is output (or at least not Markdown around it)
    assert unquote_paste("A\n```\nB\n") == "A\n```\nB\n"
    # a line of tildes with text after a blank is not a fence
    assert unquote_paste("~~~ two words\nA\n") == "~~~ two words\nA\n"


def test_only_what_every_line_shares_goes_and_line_ends_are_kept() -> None:
    lspci = "    01:00.0 VGA controller: NVIDIA\n    \tLnkSta:\tSpeed 2.5GT/s\r\n"
    assert dedent_paste(lspci) == "01:00.0 VGA controller: NVIDIA\n\tLnkSta:\tSpeed 2.5GT/s\r\n"
    topo = "    \tGPU0\tGPU1\n    GPU0\t X \tNV4\n\n"
    assert dedent_paste(topo) == "\tGPU0\tGPU1\nGPU0\t X \tNV4\n\n"
    assert dedent_paste("\t    Retired pages\n\t        SBE : 2\n", one_level=True) == (
        "    Retired pages\n        SBE : 2\n"
    )
    assert dedent_paste("a\n  b\n") == "a\n  b\n"


def test_text_with_nothing_to_take_off_is_the_same_object() -> None:
    text = "GPU0\t X \tNV4\n"
    assert unwrap_paste(text) is text
    assert readings(text) == [text] and readings(text)[0] is text
    assert unwrap_paste("") == ""


def test_shared_indentation_is_read_three_ways_the_text_as_given_last() -> None:
    text = "        SBE : 2\n        DBE : 0\n"
    assert readings(text) == ["SBE : 2\nDBE : 0\n", "    SBE : 2\n    DBE : 0\n", text]


def test_unwrapping_is_linear_on_hostile_input() -> None:
    """Inputs a quadratic scan would take minutes on; each must come back, unchanged where
    there is nothing Markdown about it."""
    n = 400_000
    hostile = [
        "~" * n + " x y",
        "`" * n + "x",
        "> " * n + "a\n" + "> " * n + "b",
        " " * n + "x\n" + " " * n + "y",
        "    > a\n" * (n // 8),
        "> " + "\\#" * n,
        "\n" * n,
    ]
    for text in hostile:
        assert isinstance(unwrap_paste(text), str)
        assert readings(text)


def test_a_whole_run_reads_its_stdout_unwrapped() -> None:
    """The command probe (and any probe with ``parse_run``) gets the run with its stdout
    unwrapped; the text given, and the run, stay what they were."""
    probe = COMMAND.with_facts([fact_pattern("rate", r"^decode ([0-9.]+) tok/s$")])
    stdout = "> decode 11.5 tok/s\n> warmup done\n"
    run = RunOutput(("./bench",), stdout, "", 0, None, "pasted")
    result = probe.safe_parse(stdout, run)
    assert result.parsed and result.values("rate") == {"host": 11.5}
    assert run.stdout == stdout


def test_a_broken_parser_is_still_a_one_line_problem_when_read_several_ways() -> None:
    from casefile.domain.facts import ParseResult
    from casefile.probes.api import Probe

    def nothing(text: str) -> ParseResult:
        return None  # type: ignore[return-value]

    def raises(text: str) -> ParseResult:
        raise ValueError("bad row")

    indented = "    a\n    b\n"
    result = Probe(name="none", summary="n", parse=nothing).safe_parse(indented)
    assert not result.parsed and result.problems == ["parser none returned NoneType"]
    result = Probe(name="boom", summary="b", parse=raises).safe_parse(indented)
    assert not result.parsed and result.problems == ["parser boom failed: ValueError: bad row"]
