"""gpu-throughput@3's rule throughput-falls reads an application log whose own rates fall from
the run's early best (``app.throughput_trend``): heat or a power cap, and the log's answer to
"does it get slower over time?", shown as that answer but counted once."""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.app_log import parse_app_log

from casefile.app.probing import Pasted, ProbeRequest
from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.domain.facts import Fact
from casefile.domain.intake import intake_from_dict
from casefile.domain.rules import Applied, evaluate
from casefile.errors import RuleError
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry

RULE = next(rule for rule in PLAYBOOK_V3.rules if rule.id == "throughput-falls")
QUESTION = PLAYBOOK_V3.intake_question("degrades-over-time")
#: a kernel benchmark's blocks of iterations on a GPU that throttles (constructed, in the
#: layout of the flashinfer-pr-2899 paste: nine blocks, the last three ~15 % below the best)
THROTTLING = "\n".join(
    f"Iters {10 * k:3d}-{10 * k + 9:3d}: avg={t} TFLOPS"
    for k, t in enumerate([1425, 1450, 1440, 1402, 1373, 1330, 1262, 1245, 1237])
)
STEADY_LOG = "\n".join(
    f"iter {k}: loss 3.0, time {t}ms, mfu 30.00%"
    for k, t in enumerate([1000, 1003, 998, 1001, 1000, 999, 1002, 1000])
)


def outcome(text: str) -> str:
    verdict = evaluate(RULE, list(parse_app_log(text).facts), "under-load")
    assert isinstance(verdict, Applied), verdict
    return verdict.outcome


def test_a_throttled_benchmark_falls_and_a_steady_loop_does_not() -> None:
    assert outcome(THROTTLING) == "falls"
    assert outcome(STEADY_LOG) == "steady"


def test_a_fall_speaks_for_heat_first_then_a_power_cap() -> None:
    """A fall is what heat does over minutes (as clock-sag and the heat-soak A/B read it); a
    power cap holds from the start, with less of a fall; other causes rarely fall."""
    ratio = {
        leaf: RULE.likelihoods[leaf]["falls"] / RULE.otherwise["falls"]
        for leaf in ("thermal-degradation", "power-cap")
    }
    assert ratio["thermal-degradation"] > ratio["power-cap"] > 1.0
    # one state of the machine, read also by clock-sag: one witness
    assert {"gpu-heat", "gpu-power"} <= set(RULE.witness)


@pytest.mark.parametrize(("trend", "answer"), [(0.85, "yes"), (0.89, "yes"), (0.95, None)])
def test_a_fall_answers_degrades_over_time(trend: float, answer: str | None) -> None:
    known = QUESTION.from_facts(7, [Fact("app.throughput_trend", trend, "host")])
    assert (known.answer if known else None) == answer


def test_a_bound_that_is_no_number_is_refused() -> None:
    data = {
        "id": "q",
        "text": "Slower over time?",
        "answers": ["yes", "no"],
        "facts": [{"fact": "app.throughput_trend", "below": "0.9", "answer": "yes"}],
        "likelihoods": {"otherwise": {"yes": 0.5, "no": 0.5}},
    }
    with pytest.raises(RuleError, match="'below' must be a number"):
        intake_from_dict(data, "throughput", {"otherwise"}, "test")


def test_the_log_answers_the_question_once() -> None:
    """The rule counts the fall; intake shows the answer the log gives as already counted, so
    recording known answers does not count the same reading again."""
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        who = Who("t")
        case = service.writer.new_case("slow kernel", playbook="gpu-throughput@3", who=who)
        request = ProbeRequest("app-log", Pasted(text=THROTTLING), argv=("python", "bench.py"))
        list(service.probing.run_probe(case, request, who))
        item = next(i for i in service.reader.intake(case) if i.id == "degrades-over-time")
        assert item.known is not None and item.known.answer == "yes"
        assert item.counted_by is not None
        projection = service.reader.projection(case)
        rules = [e.rule.get("id") for e in projection.evidence.values() if e.rule]
        assert "throughput-falls" in rules
