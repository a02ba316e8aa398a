"""Other writers, in other processes (spawned, so kept importable): a second responder on
the same case, appending through its own service."""

from __future__ import annotations

from casefile.app.service import CaseService
from casefile.app.who import Who


def open_store(kind: str, where: str) -> object:
    if kind == "directory":
        from casefile.store.directory import DirectoryEventStore

        return DirectoryEventStore(where)
    from casefile.store.sql import SqlEventStore

    return SqlEventStore(where)


def respond(
    kind: str, where: str, case_id: str, worker: int, rounds: int, child_share: float = 0.3
) -> None:
    """A mix of what changes a fold: evidence (some superseding), a child hypothesis of ``a``
    with ``child_share`` of it (in the second round), notes."""
    service = CaseService(open_store(kind, where))  # type: ignore[arg-type]
    who = Who(f"writer-{worker}")
    try:
        for n in range(rounds):
            service.writer.note(case_id, f"writer {worker} round {n}", who)
            first = service.writer.assess(
                case_id,
                {"a": 0.8 if n % 2 else 0.3, "b": 0.4},
                f"w{worker} reading {n}",
                who,
                otherwise=0.5,
                kind="measured" if n % 3 else "calculated",
            )
            if n % 2 == 0:
                service.writer.assess(
                    case_id,
                    {"a": 0.6},
                    f"w{worker} second look at {n}",
                    who,
                    supersedes=str(first.payload["evidence_id"]),
                )
            if n == 1:
                service.writer.add_hypothesis(
                    case_id,
                    f"child of a from writer {worker}",
                    "a",
                    child_share,
                    f"a{worker}",
                    None,
                    who,
                )
    finally:
        service.close()
