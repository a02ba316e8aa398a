"""The streamed replay: ``replay --json``'s text to the byte, and ``replay --jsonl``'s lines,
which give that document back, on the reference case and on a generated one (new questions and
hypotheses half-way, retirements, pivots, never-measured leaders), read a page at a time of
any size; and the fold it walks lets each page's history go."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from casefile.app.service import CaseService
from casefile.app.views.replay_lines import jsonl_lines, rebuild_replay, rebuild_steps
from casefile.app.views.replay_stream import open_replay
from tests.app.view_cases import reference_service

CASE = "glm5-pcie-pivot"
Q = "throughput"  # the reference case's question


@pytest.fixture(scope="module")
def reference() -> CaseService:
    return reference_service()


@pytest.fixture(scope="module")
def generated() -> tuple[CaseService, str]:
    """The reference case grown by 300 seeded random steps."""
    service = reference_service()
    rng = random.Random(24)
    parents: dict[str, str] = {}  # grown hypothesis → what it was proposed under
    hypotheses = {
        "throughput": [
            h.id for h in service.reader.status(CASE).hypotheses if not h.id.endswith("/catch-all")
        ]
    }
    for n in range(300):
        roll = rng.random()
        if roll < 0.03:
            qid = service.writer.add_question(CASE, f"question {n}", f"g{n}")
            hypotheses[qid] = [
                service.writer.add_hypothesis(CASE, f"{qid} reason {i}", qid, 0.3, f"{qid}-h{i}")
                for i in range(2)
            ]
        elif roll < 0.08:
            qid = rng.choice(sorted(hypotheses))
            under = rng.choice([qid, *hypotheses[qid]])
            hypotheses[qid].append(
                service.writer.add_hypothesis(CASE, f"grown {n}", under, 0.2, f"grown-{n}")
            )
            parents[f"grown-{n}"] = under
        elif roll < 0.10:
            qid = rng.choice(sorted(hypotheses))
            leaves = [h for h in hypotheses[qid] if h not in parents.values()]
            if len(hypotheses[qid]) > 2 and leaves:
                hid = rng.choice(leaves)
                hypotheses[qid].remove(hid)
                parents.pop(hid, None)
                service.writer.retire_hypothesis(CASE, hid, "ruled out by hand")
        elif roll < 0.6:
            qid = rng.choice(sorted(hypotheses))
            named = rng.sample(hypotheses[qid], min(2, len(hypotheses[qid])))
            service.writer.assess(
                CASE,
                {hid: round(rng.uniform(0.05, 0.95), 2) for hid in named},
                f"reading {n}",
                kind=rng.choice(["measured", "reported", "calculated"]),
                reliability=0.8,
            )
        else:
            service.writer.note(CASE, f"note {n}")
    return service, CASE


def _streamed(service: CaseService, upto: int | None, page: int) -> str:
    stream = open_replay(service, CASE, upto)
    stream.page = page
    return "".join(stream.json_chunks())


@pytest.mark.parametrize("upto", [None, 1, 29, 41, 10_000])
@pytest.mark.parametrize("page", [1, 7, 2_000])
def test_the_streamed_json_is_the_replay_to_the_byte(
    reference: CaseService, upto: int | None, page: int
) -> None:
    want = reference.reader.replay(CASE, upto).to_json_text()
    assert _streamed(reference, upto, page) == want
    if upto is None:
        assert '"suggestion"' in want and '"pivot": true' in want  # what is compared matters


@pytest.mark.parametrize("page", [1, 13, 2_000])
def test_a_generated_case_streams_the_same_replay(
    generated: tuple[CaseService, str], page: int
) -> None:
    service, case = generated
    want = service.reader.replay(case).to_json_text()
    assert _streamed(service, None, page) == want
    stream = open_replay(service, case)
    stream.page = page
    lines = list(jsonl_lines(stream))
    assert json.dumps(rebuild_replay(lines), ensure_ascii=False) == want


@pytest.mark.parametrize("upto", [None, 29])
def test_the_jsonl_lines_rebuild_the_json_replay(reference: CaseService, upto: int | None) -> None:
    want = json.loads(reference.reader.replay(CASE, upto).to_json_text())
    lines = list(jsonl_lines(open_replay(reference, CASE, upto)))
    assert json.loads(lines[0]) == {"case": want["case"]}
    assert json.loads(lines[-1]) == {"summary": want["summary"], "names": want["names"]}
    rebuilt = rebuild_replay(lines)
    assert json.dumps(rebuilt, ensure_ascii=False) == json.dumps(want, ensure_ascii=False)
    assert list(rebuild_steps(json.loads(line) for line in lines)) == want["steps"]


def test_a_step_line_carries_only_what_changed(reference: CaseService) -> None:
    lines = [json.loads(line) for line in jsonl_lines(open_replay(reference, CASE))]
    steps = {line["seq"]: line for line in lines if "seq" in line}
    full = {s["seq"]: s for s in json.loads(reference.reader.replay(CASE).to_json_text())["steps"]}
    at = next(seq for seq, step in full.items() if step["questions"].get(Q, {}).get("pivot"))
    note = next(seq for seq, step in full.items() if seq > at and step["type"] == "note.added")
    assert steps[note]["questions"] == {} and full[note]["questions"] != {}  # nothing moved
    pivot = steps[at]["questions"][Q]
    assert pivot["pivot"] is True and "whole" not in pivot
    before, after = full[at - 1]["questions"][Q], full[at]["questions"][Q]
    assert pivot["confidences"] == {
        hid: v for hid, v in after["confidences"].items() if before["confidences"].get(hid) != v
    }
    assert "leading_leaf" not in pivot or pivot["leading_leaf"] != before["leading_leaf"]
    # the reference case's steps are mostly their own words; its questions hold 10 nodes
    assert sum(map(len, map(json.dumps, lines))) < 0.8 * len(json.dumps(list(full.values())))


def test_the_fold_lets_each_page_go(reference: CaseService) -> None:
    stream = open_replay(reference, CASE)
    stream.page = 10
    pages: list[int] = []
    load = stream.load
    stream.load = lambda after, last: pages.append(last - after) or load(after, last)
    seqs = []
    for step in stream.steps():
        seqs.append(step.seq)
        assert stream.fold is not None and len(stream.fold.trajectory) <= 11
    head = reference.reader.head(CASE)[0]
    assert seqs == list(range(1, head + 1)) and max(pages) == 10
    assert stream.fold is not None
    assert len(stream.fold.trajectory) == 1 and len(stream.fold.events) == 1
    assert stream.fold.last_seq == head


def test_the_head_state_read_a_page_at_a_time_is_the_whole_fold(
    generated: tuple[CaseService, str],
) -> None:
    from casefile.app.views.common import build_case_header
    from casefile.app.views.names import names_table
    from casefile.app.views.replay_stream import head_state
    from casefile.domain.beliefs import project

    service, case = generated
    whole = project(service.reader.events(case), trajectory=False)
    paged = head_state(service, case, page=9)
    assert len(paged.events) == 1
    assert build_case_header(paged) == build_case_header(whole)
    assert names_table(paged) == names_table(whole)
    assert service.reader.candidates(paged) == service.reader.candidates(whole)
    assert {q: s.confidences for q, s in paged.snapshots.items()} == {
        q: s.confidences for q, s in whole.snapshots.items()
    }


def test_a_long_head_is_saved_as_the_case_fold_and_read_from_it_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from casefile.app import fold_cache
    from casefile.store.sql import SqlEventStore
    from tests.app.view_cases import REFERENCE_CASE
    from tests.cli.conftest import builtin_registry

    monkeypatch.setattr(fold_cache, "SNAPSHOT_AFTER", 20)
    store = SqlEventStore(f"sqlite:///{tmp_path / 'cases.db'}")
    service = CaseService(store, builtin_registry())
    service.library.import_directory(REFERENCE_CASE)
    want = service.reader.replay(CASE).to_json_text()
    assert store.load_snapshot(CASE, fold_cache.engine_key()) is None
    assert "".join(open_replay(service, CASE).json_chunks()) == want
    saved = store.load_snapshot(CASE, fold_cache.engine_key())
    assert saved is not None and saved.seq == store.head(CASE)[0]
    restored: list[int] = []
    real = fold_cache.fold_case
    monkeypatch.setattr(
        fold_cache, "fold_case", lambda *a, **k: restored.append(1) or real(*a, **k)
    )
    assert "".join(open_replay(service, CASE).json_chunks()) == want
    assert restored == [1]
    store.close()


def test_confidences_in_another_order_are_sent_whole() -> None:
    """Merging changed values into the held dict keeps the held order, so a question whose
    confidences hold the same hypotheses in another order (or an old one after a new one)
    must be sent whole, or the rebuilt step would list them in the wrong order."""
    from casefile.app.views.replay import ReplayQuestion
    from casefile.app.views.replay_lines import question_delta

    before = ReplayQuestion("a", "a", False, None, {"a": 0.6, "b": 0.4})
    swapped = ReplayQuestion("a", "a", False, None, {"b": 0.3, "a": 0.7})
    delta = question_delta(before, swapped)
    assert delta["whole"] is True and list(delta["confidences"]) == ["b", "a"]
    grown = ReplayQuestion("a", "a", False, None, {"a": 0.5, "b": 0.4, "c": 0.1})
    assert question_delta(before, grown) == {"confidences": {"a": 0.5, "c": 0.1}}
    zero = ReplayQuestion("a", "a", False, None, {"a": -0.0, "b": 0.4})
    assert question_delta(ReplayQuestion("a", "a", False, None, {"a": 0.0, "b": 0.4}), zero) == {
        "confidences": {"a": -0.0}
    }
