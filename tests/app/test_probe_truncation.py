"""A run whose output the runner cut to its head and tail says so in the probe run itself.

The observation's problems already named the cut; the ``probe.ran`` event now carries it too
(``truncated``: per stream, the bytes printed and the bytes kept), and the event detail and
``casefile show`` show it. A run that kept everything writes no ``truncated`` at all, so the
events recorded before it existed hash as they did.
"""

from __future__ import annotations

import pytest

from casefile.app.probing import ProbeRequest
from casefile.app.service import CaseService
from casefile.cli.render.detail import render_event_detail
from casefile.domain.catalogue import validate_payload
from casefile.domain.facts import ParseResult
from casefile.errors import InvalidEvent
from casefile.plugins import Registry
from casefile.probes.api import Probe
from casefile.probes.runners.capture import DEFAULT_CAPTURE_BYTES
from casefile.store.memory import MemoryEventStore

#: ``yes`` flooding stdout, cut off at a known length so the counts are exact
FLOOD_BYTES = 2 * DEFAULT_CAPTURE_BYTES + 12345
FLOOD = ("sh", "-c", f"yes | head -c {FLOOD_BYTES}")
HALF = DEFAULT_CAPTURE_BYTES // 2


def parse_anything(text: str) -> ParseResult:
    return ParseResult(facts=[], parsed=bool(text), problems=[])


def _service(argv: tuple[str, ...]) -> tuple[CaseService, MemoryEventStore, Probe]:
    probe = Probe(name="flood", summary="prints a lot", parse=parse_anything, argv=argv)
    store = MemoryEventStore()
    return CaseService(store, Registry.of(probes=[probe])), store, probe


def test_a_flooding_run_records_what_it_printed_and_what_was_kept() -> None:
    service, store, _ = _service(FLOOD)
    case = service.writer.new_case("flood")
    (record,) = service.probing.run_probe(case, ProbeRequest("flood"))
    assert record.result.ok, record.result.error
    ran = service.reader.events(case)[record.probe_run_seq - 1]
    assert ran.type == "probe.ran"
    assert ran.payload["truncated"] == [
        {"stream": "stdout", "total_bytes": FLOOD_BYTES, "head_bytes": HALF, "tail_bytes": HALF}
    ]
    kept = store.get_artifact(ran.payload["stdout_artifact"])
    assert len(kept) == 2 * HALF  # the artifact is exactly the head and the tail

    detail = service.reader.event_detail(case, record.probe_run_seq)
    assert detail.probe_run is not None
    (cut,) = detail.probe_run.truncated
    assert (cut.stream, cut.total_bytes, cut.omitted_bytes) == (
        "stdout",
        FLOOD_BYTES,
        FLOOD_BYTES - 2 * HALF,
    )
    assert detail.to_json()["probe_run"]["truncated"][0]["omitted_bytes"] == cut.omitted_bytes
    shown = render_event_detail(detail)
    assert f"stdout truncated: printed {FLOOD_BYTES} bytes; kept the first {HALF}" in shown


def test_a_run_that_kept_everything_writes_no_truncated_field() -> None:
    service, _, _ = _service(("echo", "hi"))
    case = service.writer.new_case("small")
    (record,) = service.probing.run_probe(case, ProbeRequest("flood"))
    ran = service.reader.events(case)[record.probe_run_seq - 1]
    assert "truncated" not in ran.payload
    detail = service.reader.event_detail(case, record.probe_run_seq)
    assert detail.probe_run is not None and detail.probe_run.truncated == ()
    assert "truncated" not in render_event_detail(detail)


@pytest.mark.parametrize(
    "cut",
    [
        {"stream": "stdout", "total_bytes": 10, "head_bytes": 6, "tail_bytes": 6},
        {"stream": "stdin", "total_bytes": 10, "head_bytes": 1, "tail_bytes": 1},
        {"stream": "stdout", "total_bytes": -1, "head_bytes": 0, "tail_bytes": 0},
    ],
)
def test_a_truncation_that_cannot_be_is_refused(cut: dict[str, object]) -> None:
    payload = {"probe": "p", "argv": ["p"], "host": "h", "source": "local", "truncated": [cut]}
    with pytest.raises(InvalidEvent, match="truncated"):
        validate_payload("probe.ran", 1, payload)
