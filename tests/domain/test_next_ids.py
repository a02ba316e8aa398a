"""New evidence and hypothesis ids: the first free ``e``/``h`` number, found in a step or two
however many ids the case holds (ingest adds thousands; a walk over all of them per new one
grew as the square of the case)."""

from __future__ import annotations

from typing import Any

from casefile.domain.beliefs import Projection
from casefile.domain.commands import _next_id


class Counting(dict[str, Any]):
    """A dict that counts membership tests."""

    looked = 0

    def __contains__(self, key: object) -> bool:
        self.looked += 1
        return super().__contains__(key)


def test_the_first_free_id_even_after_ids_chosen_by_hand() -> None:
    projection = Projection()
    taken = Counting({"e1": 0, "e2": 0, "e4": 0})  # e4 chosen with --id
    assert _next_id("e", taken, projection) == "e3"
    taken["e3"] = 0
    assert _next_id("e", taken, projection) == "e5"
    assert _next_id("h", {"h1": 0}, projection) == "h2"  # each prefix counts on its own


def test_each_new_id_costs_a_step_or_two_not_a_walk_over_the_case() -> None:
    projection = Projection()
    taken = Counting()
    for n in range(1, 2001):
        eid = _next_id("e", taken, projection)
        assert eid == f"e{n}"
        taken[eid] = 0
    assert taken.looked <= 2 * 2000  # a walk each time would be about two million


def test_without_a_projection_it_walks_from_one() -> None:
    assert _next_id("q", {"q1", "q2"}) == "q3"
