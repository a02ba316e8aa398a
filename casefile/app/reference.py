"""The bundled reference case: the founding investigation, shipped inside the package.

An 8-GPU server believed PCIe-bound for hours, until one measurement showed the link nearly
idle. It is package data (``casefile/reference/glm5-pcie-pivot``), so a user who installed the
wheel, with no source tree, can open it (``casefile demo``), and the tests and the README read
the very same files. It is imported like any case directory: verified completely first.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from casefile.app.service import CaseService

__all__ = ["REFERENCE_CASE_ID", "ReferenceCase", "install_reference_case", "reference_case_dir"]

REFERENCE_CASE_ID = "glm5-pcie-pivot"
"""The id the reference case carries in its events (and so in any database it is imported to)."""


@contextmanager
def reference_case_dir() -> Iterator[Path]:
    """The reference case directory as a real path for as long as the ``with`` lasts (a
    package installed as a zip is extracted to a temporary folder meanwhile)."""
    packaged = resources.files("casefile") / "reference" / REFERENCE_CASE_ID
    with resources.as_file(packaged) as path:
        yield path


@dataclass(frozen=True)
class ReferenceCase:
    """Where the reference case stands in a database after :func:`install_reference_case`."""

    case_id: str
    #: ``imported`` now; ``present``: an identical copy was there already; ``other``: a
    #: different case holds the id, and was left as it is
    state: Literal["imported", "present", "other"]

    def remark(self, where: str) -> str | None:
        """One line for the user about what happened, or ``None`` when nothing is worth it."""
        if self.state == "imported":
            return f"imported the reference case {self.case_id} into {where}"
        if self.state == "other":
            return (
                f"{where} already holds a different case under the id {self.case_id}; "
                "opening that one (the reference case was not imported)"
            )
        return None


def install_reference_case(service: CaseService) -> ReferenceCase:
    """Import the reference case into the service's database unless it is there already; a
    different case under its id is kept, never overwritten."""
    with reference_case_dir() as directory:
        imported = service.library.import_directory(directory, keep_existing=True)
    if imported.differs:
        return ReferenceCase(imported.case_id, "other")
    return ReferenceCase(imported.case_id, "present" if imported.already else "imported")
