"""The one check that holds a share to its scale, behind both ``--stated`` and ``--fact``."""

from __future__ import annotations

import pytest

from casefile.domain.facts import FactValue, Scale, fits_scale


@pytest.mark.parametrize(
    ("value", "unit", "scale", "fits"),
    [
        (0.32, None, "fraction", True),
        (0, None, "fraction", True),
        (1, None, "fraction", True),
        (32, None, "fraction", False),  # a percentage written as a number
        (0.32, "%", "fraction", False),  # a fraction carries no unit
        (1.01, None, "fraction", False),
        (True, None, "fraction", False),
        ("0.32", None, "fraction", False),
        (90, None, "percentage", True),
        (90, "%", "percentage", True),
        (0, None, "percentage", True),
        (100, None, "percentage", True),
        (0.9, None, "percentage", False),  # a fraction written for 90 %
        (0.33, "%", "percentage", True),  # an idle GPU's mean, with its sign
        (101, None, "percentage", False),
        (90, "W", "percentage", False),
        (-1, "%", "percentage", False),
    ],
)
def test_fits_scale(value: FactValue, unit: str | None, scale: Scale, fits: bool) -> None:
    assert fits_scale(value, unit, scale) is fits
