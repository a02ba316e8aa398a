"""The hypothesis graph as DOT, GraphML or Mermaid, with current confidences on hypotheses."""

from __future__ import annotations

import io
from typing import Any

import networkx as nx

from casefile.domain.beliefs import Projection

FORMATS = ("dot", "graphml", "mermaid")


def annotated_graph(projection: Projection) -> Any:
    graph = projection.graph.copy()
    confidences = projection.confidences()
    for node, data in graph.nodes(data=True):
        if node.startswith("h:"):
            data["confidence"] = round(confidences.get(node[2:], 0.0), 6)
        for key, value in list(data.items()):
            if isinstance(value, list | tuple | dict):
                data[key] = "; ".join(str(v) for v in value)
            elif value is None:
                data[key] = ""
    return graph


def _label(node: str, data: dict[str, Any]) -> str:
    label = str(data.get("label", node))
    label = label if len(label) <= 60 else label[:59] + "…"
    if "confidence" in data:
        label = f"{label} ({data['confidence'] * 100:.1f}%)"
    return label


def to_dot(projection: Projection) -> str:
    graph = annotated_graph(projection)
    shapes = {"question": "box", "evidence": "note", "observation": "ellipse"}
    lines = ["digraph casefile {", "  rankdir=LR;"]
    for node, data in sorted(graph.nodes(data=True)):
        label = _label(node, data).replace("\\", "\\\\").replace('"', '\\"')
        shape = shapes.get(str(data.get("kind")), "oval")
        lines.append(f'  "{node}" [label="{label}", shape={shape}];')
    for source, target, data in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1])):
        extra = f", likelihood={data['likelihood']}" if "likelihood" in data else ""
        lines.append(f'  "{source}" -> "{target}" [label="{data.get("kind", "")}{extra}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_graphml(projection: Projection) -> str:
    buffer = io.BytesIO()
    nx.write_graphml(annotated_graph(projection), buffer)
    return buffer.getvalue().decode("utf-8")


def to_mermaid(projection: Projection) -> str:
    graph = annotated_graph(projection)
    ids = {node: f"n{index}" for index, node in enumerate(sorted(graph.nodes))}
    lines = ["flowchart LR"]
    for node, data in sorted(graph.nodes(data=True)):
        label = _label(node, data).replace('"', "'")
        lines.append(f'  {ids[node]}["{label}"]')
    for source, target, data in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1])):
        lines.append(f"  {ids[source]} -->|{data.get('kind', '')}| {ids[target]}")
    return "\n".join(lines) + "\n"


def export_graph(projection: Projection, fmt: str) -> str:
    if fmt == "dot":
        return to_dot(projection)
    if fmt == "graphml":
        return to_graphml(projection)
    return to_mermaid(projection)
