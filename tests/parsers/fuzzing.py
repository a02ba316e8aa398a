"""Damaging real outputs the way pastes are damaged, shared by every parser fuzz test.

Each example takes a window of a real sample, applies a few of the damages pastes suffer —
lines deleted, duplicated, swapped or glued, the text cut short, digits replaced, stray unicode
injected, CRLF endings — and hands the result to a check (a parser that must not raise and
must return a well-formed result).
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

WINDOW = 250  # lines: long samples are fuzzed a window at a time, to keep each example fast

NOISE = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=12)

DAMAGES = ["delete", "duplicate", "swap", "glue", "digits", "inject", "truncate", "crlf"]


@st.composite
def mutated(draw: st.DrawFn, samples: list[str]) -> str:
    text = draw(st.sampled_from(samples))
    lines = text.split("\n")
    if len(lines) > WINDOW:
        start = draw(st.integers(0, len(lines) - WINDOW))
        lines = lines[start : start + WINDOW]
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(DAMAGES))
        if not lines:
            lines = [""]
        i = draw(st.integers(0, len(lines) - 1))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "glue" and i + 1 < len(lines):
            lines[i : i + 2] = [lines[i] + lines[i + 1]]
        elif op == "digits":
            digit = draw(st.sampled_from(["0", "9", "x", "-", ".", "٣", "N/A", ""]))
            lines[i] = "".join(digit if c.isdigit() else c for c in lines[i])
        elif op == "inject":
            pos = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:pos] + draw(NOISE) + lines[i][pos:]
        elif op == "truncate":
            joined = "\n".join(lines)
            cut = draw(st.integers(0, len(joined)))
            lines = joined[:cut].split("\n")
        elif op == "crlf":
            lines = [line + "\r" for line in lines]
    return "\n".join(lines)


def fuzz_mutated(samples: list[str], check: Callable[[str], None], examples: int = 200) -> None:
    """Run ``check`` on damaged copies of ``samples``: derandomized, so a failure reproduces,
    and without Hypothesis's size and speed limits, which long real outputs exceed."""

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutated(samples))
    def run(text: str) -> None:
        check(text)

    run()
