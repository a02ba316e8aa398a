"""casefile's terminal UI (Textual): guided triage, replay at any step, a live shared case.

Build it with :func:`make_app`, which takes an opened service (tests pass one over a temporary
store and a frozen clock) so that the app renders whatever data it is given. The CLI's
``casefile tui`` is a thin command over it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from casefile.app.probing import SshOptions
    from casefile.app.service import CaseService
    from casefile.tui.app import CasefileApp


def make_app(
    service: CaseService,
    case_id: str | None = None,
    *,
    actor: str = "user",
    read_only: bool = False,
    database_label: str | None = None,
    ssh_hosts: Callable[[], list[str]] | None = None,
    ssh: SshOptions | None = None,
) -> CasefileApp:
    """The app over ``service``, opened on ``case_id`` (or on the case list)."""
    from casefile.app.views.probe_catalog import ProbeEntry, probe_catalog
    from casefile.tui.app import CasefileApp
    from casefile.tui.backend import CaseThread

    def catalog() -> list[ProbeEntry]:
        return probe_catalog(service.registry)

    return CasefileApp(
        CaseThread(service),
        case_id=case_id,
        actor=actor,
        database_label=database_label if database_label is not None else service.library.location(),
        read_only=read_only,
        probe_catalog=catalog,
        ssh_hosts=ssh_hosts,
        ssh=ssh,
    )
