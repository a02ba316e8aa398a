"""llama.cpp's ``llama-bench`` results table: the generation rate for
:mod:`casefile_probes.app_log`.

``llama-bench`` prints a Markdown table, one row per model and test::

    | model        |     size | params | backend | ngl |  test |          t/s |
    | ------------ | -------: | -----: | ------- | --: | ----: | -----------: |
    | llama 1B F16 | 2.30 GiB | 1.24 B | QNN     |  99 | pp512 | 18.46 ± 1.73 |
    | llama 1B F16 | 2.30 GiB | 1.24 B | QNN     |  99 | tg128 |  0.70 ± 0.00 |

A ``tgN`` test (``tg 128`` in early builds) times the generation of N tokens one after
another (``tg128 @ d8096`` after a context of that depth): its mean rate is what a user
waits on, the figure the other servers' ``tokens_per_s`` give. A ``ppN`` test processes a
prompt in batches, far faster, and is left out as prompt rates are elsewhere; so are combined
``pp512+tg128`` tests. The columns are found by their header cells, whose set and order
change between versions. A generation row's size, model, backend and placement cells go to
:func:`casefile_probes.app_log_weights.bench_row` (the weights the decode roofline
multiplies by the rate).

``llama-batched-bench`` prints one row per prompt length, generated length and batch size
(``B``): its ``S_TG t/s`` is the generation rate of all ``B`` streams together. A row of one
stream is what a ``tgN`` test times, and is read the same way; a row of several is another
setup (a server's batch), left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .app_log_weights import BENCH_COLUMNS, BenchRow, bench_row

__all__ = ["BenchTable"]

_GENERATION = re.compile(r"tg ?\d{1,7}(?:\s{0,4}@\s{0,4}d\d{1,9})?")
_RATE = re.compile(r"(\d{1,12}(?:\.\d{1,12})?)(?:\s{0,4}±\s{0,4}\d{1,12}(?:\.\d{1,12})?)?")


@dataclass
class BenchTable:
    """Where the test and rate columns are (and the size, model, backend and layer columns),
    once a table's header has been read."""

    test: int | None = None
    rate: int | None = None
    columns: dict[str, int] = field(default_factory=dict)
    #: the last generation row read, as the roofline reads it
    row: BenchRow | None = None
    #: llama-batched-bench's batch and generation-rate columns and its number of columns,
    #: once its header was read (until its table ends)
    batch: int | None = None
    batched_rate: int | None = None
    batched_width: int = 0

    def read(self, line: str) -> float | None:
        """The tokens per second of a generation row (callers pass lines starting with '|')."""
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if "test" in cells and "t/s" in cells:
            self.test, self.rate = cells.index("test"), cells.index("t/s")
            self.columns = {name: cells.index(name) for name in BENCH_COLUMNS if name in cells}
            self.batch = self.batched_rate = None
            return None
        if "B" in cells and "S_TG t/s" in cells:
            self.batch, self.batched_rate = cells.index("B"), cells.index("S_TG t/s")
            self.batched_width = len(cells)
            self.test = self.rate = None
            return None
        if self.batch is not None and self.batched_rate is not None:
            return self._batched(cells, self.batch, self.batched_rate)
        if self.test is None or self.rate is None or len(cells) <= max(self.test, self.rate):
            return None
        if _GENERATION.fullmatch(cells[self.test]) is None:
            return None
        rate = _RATE.fullmatch(cells[self.rate])
        if rate is None:
            return None
        value = float(rate.group(1))
        self.row = bench_row(cells, self.columns, value, deep="@" in cells[self.test])
        return value

    def _batched(self, cells: list[str], batch: int, rate: int) -> float | None:
        """A llama-batched-bench row's generation rate, where it ran one stream."""
        self.row = None  # no model, size or placement columns: nothing for the roofline
        if len(cells) != self.batched_width or cells[batch] != "1":
            return None
        found = _RATE.fullmatch(cells[rate])
        return None if found is None else float(found.group(1))

    def end(self) -> None:
        """A line outside a table: llama-batched-bench's table, if one was being read, ended
        (another table's rows are not its rows)."""
        self.batch = self.batched_rate = None
