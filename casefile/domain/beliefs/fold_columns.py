"""The columns of a saved fold: the binary section it writes, and the checked reads back.

A long case has tens of thousands of integers, floats and event hashes that JSON writes and
parses slowly; :class:`Binary` packs them as little-endian arrays and raw digests referred to
by offset, and :class:`Section` reads them back, checking every size, offset and type so that a
damaged or foreign fold raises :class:`FoldUnreadable` and nothing else. The layout is
described in :mod:`casefile.domain.beliefs.fold_codec`.
"""

from __future__ import annotations

import sys
from array import array
from typing import Any

from casefile.errors import DomainError

_NONE = type(None)

_DIGEST = 32


#: Array typecodes by the range they hold, narrowest first (sizes checked: they are the
#: on-disk widths, whatever the platform's C types are).
_INT_CODES = (
    ("B", 0, 0xFF),
    ("H", 0, 0xFFFF),
    ("I", 0, 0xFFFF_FFFF),
    ("q", -(1 << 63), (1 << 63) - 1),
)


_WIDTHS = {"B": 1, "H": 2, "I": 4, "q": 8}


assert all(array(code).itemsize == size for code, size in _WIDTHS.items())


_SWAP = sys.byteorder != "little"

#: every byte value in order: ``_BYTES[:n]`` is the bytes under ``n``
_BYTES = bytes(range(256))


class FoldUnreadable(DomainError):
    """Saved fold data that cannot be restored: damaged, not a fold, or another engine's."""


def hex_digest(packed: bytes, position: int) -> str:
    """The hash at ``position`` of :meth:`Section.packed_digests`, as hex."""
    return packed[position * _DIGEST : (position + 1) * _DIGEST].hex()


class Binary:
    """The binary section being written: integer arrays and digests, referred to by offset."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def _add(self, raw: bytes) -> int:
        offset = self.size
        self.parts.append(raw)
        self.size += len(raw)
        return offset

    def floats(self, values: list[Any]) -> Any:
        """A float column as float64s (exact, -0.0 and all), or the list if not all floats."""
        if not only(values, float):
            return values
        packed = array("d", values)
        if _SWAP:
            packed.byteswap()
        return {"floats": [self._add(packed.tobytes()), len(values)]}

    def ints(self, values: list[Any], *, below: int | None = None) -> Any:
        """An integer column as an array, or the list itself if it holds anything else
        (``below``: the caller built it from indices under that bound; nothing to check)."""
        if below is not None:
            low, high = 0, below
        elif not only(values, int):
            if values.count(None) == len(values):
                return {"none": len(values)}
            return values
        else:
            low, high = (min(values), max(values)) if values else (0, 0)
        for code, least, most in _INT_CODES:
            if least <= low and high <= most:
                packed = array(code, values)
                if _SWAP:
                    packed.byteswap()
                return {"ints": [code, self._add(packed.tobytes()), len(values)]}
        return values

    def digests(self, hashes: list[Any]) -> Any:
        """A column of hashes as raw digests (absent ones listed apart), or as a list."""
        present = [h for h in hashes if h is not None]
        if not present:
            return {"none": len(hashes)}
        try:
            joined = "".join(present)
            raw = bytes.fromhex(joined)
        except (TypeError, ValueError):  # not all strings, or not all hex
            joined, raw = "", b""
        # lowercase, and 64 digits each (the total alone could hide a 63 beside a 65)
        if raw and joined.lower() == joined and set(map(len, present)) == {2 * _DIGEST}:
            column: dict[str, Any] = {"digests": [self._add(raw), len(present)]}
            if len(present) < len(hashes):
                column["absent"] = self.ints([k for k, h in enumerate(hashes) if h is None])
            return column
        return hashes

    def values(self, values: list[Any]) -> Any:
        """Any column: ints as an array, all-null as a count, non-negative ints and nulls as
        an array of each value plus one (0 for null), the rest as JSON."""
        nulls = values.count(None)
        if nulls == len(values):
            return {"none": len(values)}
        if nulls and only(values, int, _NONE):
            shifted = [0 if v is None else v + 1 for v in values]
            if min(v for v in values if v is not None) >= 0:
                return {"nullable": self.ints(shifted)}
        return self.ints(values)


def check(condition: bool, what: str) -> None:
    if not condition:
        raise FoldUnreadable(f"saved fold is malformed: {what}")


class Section:
    """The binary section being read; every reference is checked against its bounds."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def _slice(self, offset: Any, size: int, what: str) -> bytes:
        check(offset.__class__ is int and size >= 0, what)
        check(offset >= 0 and offset + size <= len(self.raw), what)
        return self.raw[offset : offset + size]

    def ints(self, column: Any, what: str) -> list[int]:
        """An integer column (no nulls)."""
        if column.__class__ is dict:
            code, offset, count = column["ints"]
            check(code in _WIDTHS and count.__class__ is int and count >= 0, what)
            packed = array(code)
            packed.frombytes(self._slice(offset, count * _WIDTHS[code], what))
            if _SWAP:
                packed.byteswap()
            return packed.tolist()
        check(column.__class__ is list and only(column, int), what)
        result: list[int] = column
        return result

    def indices(self, column: Any, bound: int, what: str) -> list[int]:
        """An integer column of indices into a table of ``bound`` entries, each checked to be
        in ``range(bound)`` (a column of bytes by a scan at C speed)."""
        if column.__class__ is dict and column.get("ints", [None])[0] == "B":
            _, offset, count = column["ints"]
            check(count.__class__ is int and count >= 0, what)
            raw = self._slice(offset, count, what)
            # every byte under ``bound``: deleting those leaves nothing
            check(not raw.translate(None, _BYTES[: max(0, min(bound, 256))]), what)
            return list(raw)
        values = self.ints(column, what)
        check(not values or (min(values) >= 0 and max(values) < bound), what)
        return values

    def picks(self, column: Any, table: list[Any], what: str) -> list[Any]:
        """``table[i]`` for each index ``i`` of an integer column (see :meth:`indices`)."""
        check(table.__class__ is list, what)
        return list(map(table.__getitem__, self.indices(column, len(table), what)))

    def floats(self, column: Any, count: int, what: str) -> list[Any]:
        """A float column of ``count`` entries (a JSON list if it was not all floats)."""
        if column.__class__ is dict:
            offset, size = column["floats"]
            check(size == count, what)
            packed = array("d")
            packed.frombytes(self._slice(offset, 8 * count, what))
            if _SWAP:
                packed.byteswap()
            return packed.tolist()
        check(column.__class__ is list and len(column) == count, what)
        result: list[Any] = column
        return result

    def values(self, column: Any, count: int, what: str) -> list[Any]:
        """Any column of ``count`` entries."""
        if column.__class__ is dict and "none" in column:
            check(column["none"] == count, what)
            return [None] * count
        if column.__class__ is dict and "nullable" in column:
            shifted = self.ints(column["nullable"], what)
            check(shifted.__class__ is list and len(shifted) == count, what)
            return [v - 1 if v else None for v in shifted]
        values: list[Any] = self.ints(column, what) if column.__class__ is dict else column
        check(values.__class__ is list and len(values) == count, what)
        return values

    def packed_digests(self, column: Any, count: int, what: str) -> bytes | None:
        """A hash column of ``count`` entries, none absent, as its raw digests one after
        another (:func:`hex_digest` reads one); ``None`` for a column held otherwise (read it
        with :meth:`digests`)."""
        if column.__class__ is not dict or "digests" not in column or "absent" in column:
            return None
        offset, present = column["digests"]
        check(present == count, what)
        return self._slice(offset, present * _DIGEST, what)

    def digests(self, column: Any, count: int, what: str) -> list[Any]:
        """A hash column of ``count`` entries (``None`` where absent)."""
        if column.__class__ is dict and "none" in column:
            return self.values(column, count, what)
        if column.__class__ is not dict:
            check(column.__class__ is list and len(column) == count, what)
            check(only(column, str, _NONE), what)
            result: list[Any] = column
            return result
        offset, present = column["digests"]
        check(present.__class__ is int, what)
        raw = self._slice(offset, present * _DIGEST, what)
        hexes: list[Any] = raw.hex(" ", _DIGEST).split(" ") if raw else []  # at C speed
        absent = self.ints(column["absent"], what) if "absent" in column else []
        check(present + len(absent) == count, what)
        if not absent:
            return hexes
        check(absent == sorted(set(absent)) and absent[0] >= 0 and absent[-1] < count, what)
        out: list[Any] = [None] * count
        gaps = set(absent)
        fill = iter(hexes)
        for k in range(count):
            if k not in gaps:
                out[k] = next(fill)
        return out


def only(values: list[Any], *types: type) -> bool:
    """Whether every value is of exactly one of ``types`` (no bool for int), at C speed."""
    return set(map(type, values)) <= set(types)


def all_of(values: Any, types: tuple[type, ...], what: str) -> list[Any]:
    check(values.__class__ is list and only(values, *types), what)
    result: list[Any] = values
    return result
