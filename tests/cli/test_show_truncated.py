"""`casefile show` of a run whose output the runner cut: the cut is named, in text and JSON."""

from __future__ import annotations

import json

from casefile.probes.runners.capture import DEFAULT_CAPTURE_BYTES
from tests.cli.conftest import CLI

FLOOD_BYTES = 2 * DEFAULT_CAPTURE_BYTES + 12345
FLOOD = ("sh", "-c", f"yes | head -c {FLOOD_BYTES}")
HALF = DEFAULT_CAPTURE_BYTES // 2


def test_casefile_show_names_the_cut_stream(cli: CLI) -> None:
    case = cli("new", "flood").out.strip()
    assert cli("probe", case, "command", "--", *FLOOD).code == 0
    log = json.loads(cli("log", case, "--json").out)
    ran = next(e for e in log if e["type"] == "probe.ran")
    assert ran["payload"]["truncated"][0]["total_bytes"] == FLOOD_BYTES
    shown = cli("show", case, str(ran["seq"]))
    assert shown.code == 0, shown.err
    assert f"stdout truncated: printed {FLOOD_BYTES} bytes" in shown.out
    detail = json.loads(cli("show", case, str(ran["seq"]), "--json").out)
    assert detail["probe_run"]["truncated"][0]["head_bytes"] == HALF
