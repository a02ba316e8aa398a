"""One public A/B wording as a test case: the change in the report's own words, the rule that
should read it, whether it runs that rule's A/B backwards, and, where the playbook reads it
wrong today, what goes wrong (a strict xfail). See ``test_wording_breadth``."""

from __future__ import annotations

import pytest
from _pytest.mark import ParameterSet


def case(
    change: str, rule: str | None, *, backwards: bool = False, misread: str | None = None
) -> ParameterSet:
    marks = () if misread is None else (pytest.mark.xfail(strict=True, reason=misread),)
    return pytest.param(change, rule, backwards, marks=marks, id=f"{rule}: {change[:60]}")
