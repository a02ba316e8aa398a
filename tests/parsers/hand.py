"""What the hand-written expectations of the collected samples share: reading a collected
fixture or a corpus file, and one fact's value for a subject."""

from __future__ import annotations

import pytest

from casefile.domain.facts import ParseResult

from .corpus import CORPUS, GOLDEN

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")


def fixture(name: str) -> str:
    """A sample collected from a public thread (``tests/golden/<folder>/<stem>.txt``)."""
    return (GOLDEN / name).read_text(encoding="utf-8")


def corpus(name: str) -> str:
    """A file of the shared corpus of real outputs."""
    return (CORPUS / name).read_text(encoding="utf-8", errors="replace")


def at(result: ParseResult, name: str, subject: str = "host") -> object:
    """The value of fact ``name`` for ``subject``, or None."""
    return result.values(name).get(subject)
