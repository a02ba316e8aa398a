"""The hypothesis graph: questions, hypotheses, evidence, observations and probe runs.

Typed edges: ``has`` (question → top-level hypothesis or catch-all), ``refines`` (parent →
child), ``produced`` (probe run → observation), ``assessed`` (observation or probe run →
evidence), ``bears_on`` (evidence → hypothesis, with the likelihood it gave), ``supersedes``
(evidence → the evidence it re-assessed). Nodes carry ``kind`` and ``label``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import networkx as nx

from casefile.domain.event_types.stored import StoredObservation, StoredRun

if TYPE_CHECKING:
    from casefile.domain.beliefs.projection import Projection


def build_graph(projection: Projection) -> Any:
    graph = nx.MultiDiGraph()
    if projection.case_id:
        graph.add_node(f"case:{projection.case_id}", kind="case", label=projection.title)
    for question in projection.questions.values():
        graph.add_node(f"q:{question.id}", kind="question", label=question.text)
        if projection.case_id:
            graph.add_edge(
                f"case:{projection.case_id}", f"q:{question.id}", key="asks", kind="asks"
            )
        catch_all = f"h:{question.catch_all_id}"
        graph.add_node(catch_all, kind="catch-all", label="something not yet named")
        graph.add_edge(f"q:{question.id}", catch_all, key="has", kind="has")
        for hypothesis in question.nodes.values():
            name = f"h:{hypothesis.id}"
            graph.add_node(
                name,
                kind="hypothesis",
                label=hypothesis.text,
                status="retired" if hypothesis.retired else "open",
                prior=hypothesis.prior,
            )
            if hypothesis.parent_id is None:
                graph.add_edge(f"q:{question.id}", name, key="has", kind="has")
            else:
                up = f"h:{hypothesis.parent_id}"
                graph.add_edge(up, name, key="refines", kind="refines")
    for seq, ran in projection.probe_runs.items():
        run_read = StoredRun(ran)
        graph.add_node(f"run:{seq}", kind="probe_run", label=run_read.probe, host=run_read.host)
    for seq, payload in projection.observations.items():
        observation = StoredObservation(payload)
        graph.add_node(
            f"obs:{seq}",
            kind="observation",
            label=observation.probe,
            load=observation.load,
            parsed=observation.parsed,
        )
        run = f"run:{observation.probe_run_seq}"
        if run in graph:
            graph.add_edge(run, f"obs:{seq}", key="produced", kind="produced")
    for record in projection.set_asides:
        reading = f"obs:{record['observation_seq']}"
        if reading in graph:
            graph.nodes[reading].setdefault("set_aside", []).append(record["reason"])
    for state in projection.evidence.values():
        node = f"e:{state.id}"
        graph.add_node(
            node,
            kind="evidence",
            label=state.rationale,
            evidence_kind=state.kind,
            reliability=state.reliability,
            active=state.active,
        )
        for hid, value in state.likelihoods.items():
            graph.add_edge(node, f"h:{hid}", key="bears_on", kind="bears_on", likelihood=value)
        if state.observation_seq is not None and f"obs:{state.observation_seq}" in graph:
            graph.add_edge(f"obs:{state.observation_seq}", node, key="assessed", kind="assessed")
        elif state.probe_run_seq is not None and f"run:{state.probe_run_seq}" in graph:
            graph.add_edge(f"run:{state.probe_run_seq}", node, key="assessed", kind="assessed")
        if state.supersedes is not None:
            graph.add_edge(node, f"e:{state.supersedes}", key="supersedes", kind="supersedes")
    return graph
