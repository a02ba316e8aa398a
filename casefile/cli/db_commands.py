"""``casefile db``: the database's schema version, and the one command that upgrades it.

Every other command uses the database as it finds it: it gives an empty one the current schema,
works with an older one it can use as it is, and refuses in one line one it cannot (older:
"run `casefile db upgrade`"; newer: "upgrade casefile"). So a newer casefile never changes a
shared database under the team that uses it; upgrading is this deliberate step, and ``--sql``
prints the statements instead, for a DBA to review or run.
"""

from __future__ import annotations

import argparse

from casefile.cli.terminal import say


def cmd_db_version(args: argparse.Namespace) -> int:
    from casefile.app.opening import database_schema

    with database_schema(args.db) as schema:
        found = schema.version()
        where, current = schema.where, schema.current
    if found is None:
        say(f"{where}: empty, no schema yet (this casefile creates version {current})")
    elif found < current:
        say(
            f"{where}: schema version {found}; this casefile uses {current} "
            "(`casefile db upgrade` upgrades it)"
        )
    elif found > current:
        say(f"{where}: schema version {found}, newer than this casefile supports ({current})")
    else:
        say(f"{where}: schema version {found}, the one this casefile uses")
    return 0


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from casefile.app.opening import database_schema

    with database_schema(args.db) as schema:
        if args.sql:
            found, statements = schema.upgrade_statements()
            _print_sql(schema.where, found, schema.current, statements)
            return 0
        found, now = schema.upgrade()
        where = schema.where
    if found is None:
        say(f"created schema version {now} in {where}")
    elif found == now:
        say(f"{where} is at schema version {now} already: nothing to do")
    else:
        say(f"upgraded {where} from schema version {found} to {now}")
    return 0


def _print_sql(where: str, found: int | None, current: int, statements: list[str]) -> None:
    """The statements as a script (``psql -f``, ``sqlite3``), a comment line first."""
    if not statements:
        say(f"-- {where} is at schema version {current} already: nothing to run")
        return
    start = "an empty database" if found is None else f"schema version {found}"
    say(f"-- casefile db upgrade of {where}: from {start} to {current}")
    for statement in statements:
        say(f"{statement};")


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    db = sub.add_parser(
        "db",
        help="the database's schema version, and upgrading it",
        description=(
            "No command but `casefile db upgrade` changes the database's schema: the others "
            "use it as they find it (an empty database is given the current schema) and "
            "refuse in one line one they cannot use."
        ),
    )
    dsub = db.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = dsub.add_parser(
        "version",
        parents=[common],
        help="the database's schema version, and the one this casefile uses",
    )
    p.set_defaults(handler=cmd_db_version)
    p = dsub.add_parser(
        "upgrade",
        parents=[common],
        help="upgrade the database to the schema this casefile uses; says from which version",
        description=(
            "Bring the database to the schema version this casefile uses, one transaction "
            "per version, and say from which version to which. Every casefile that uses the "
            "database must then be at least this one: an older one refuses a newer schema."
        ),
    )
    p.add_argument(
        "--sql",
        action="store_true",
        help="print the statements instead (for a DBA to review or run); change nothing",
    )
    p.set_defaults(handler=cmd_db_upgrade)
