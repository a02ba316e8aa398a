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


def dot_string(text: object) -> str:
    """``text`` as the inside of a DOT double-quoted string: node ids and labels alike.

    Backslash and double quote are escaped, so nothing in a hypothesis text or an id can end
    the string and inject attributes, nodes or edges; line breaks become DOT's ``\\n``.
    """
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return escaped.replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")


def to_dot(projection: Projection) -> str:
    graph = annotated_graph(projection)
    shapes = {"question": "box", "evidence": "note", "observation": "ellipse"}
    lines = ["digraph casefile {", "  rankdir=LR;"]
    for node, data in sorted(graph.nodes(data=True)):
        label = dot_string(_label(node, data))
        shape = shapes.get(str(data.get("kind")), "oval")
        lines.append(f'  "{dot_string(node)}" [label="{label}", shape={shape}];')
    for source, target, data in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1])):
        extra = f", likelihood={data['likelihood']}" if "likelihood" in data else ""
        label = dot_string(f"{data.get('kind', '')}{extra}")
        lines.append(f'  "{dot_string(source)}" -> "{dot_string(target)}" [label="{label}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_graphml(projection: Projection) -> str:
    buffer = io.BytesIO()
    nx.write_graphml(annotated_graph(projection), buffer)
    return buffer.getvalue().decode("utf-8")


#: characters that could end a quoted Mermaid label or an edge label, or start markup, as
#: Mermaid's entity codes (brackets and parentheses are plain text inside the quotes)
_MERMAID_ENTITIES = {
    "#": "#35;",  # first, so that the codes below are not escaped again
    '"': "#quot;",
    "|": "#124;",
    "<": "#lt;",
    ">": "#gt;",
    "`": "#96;",
}


def mermaid_text(text: object) -> str:
    """``text`` safe inside a quoted Mermaid label or an edge's ``|…|``: one line, no markup."""
    flat = " ".join(str(text).split())
    return "".join(_MERMAID_ENTITIES.get(char, char) for char in flat)


def to_mermaid(projection: Projection) -> str:
    graph = annotated_graph(projection)
    ids = {node: f"n{index}" for index, node in enumerate(sorted(graph.nodes))}
    lines = ["flowchart LR"]
    for node, data in sorted(graph.nodes(data=True)):
        lines.append(f'  {ids[node]}["{mermaid_text(_label(node, data))}"]')
    for source, target, data in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1])):
        kind = mermaid_text(data.get("kind", ""))
        lines.append(f"  {ids[source]} -->|{kind}| {ids[target]}")
    return "\n".join(lines) + "\n"


def export_graph(projection: Projection, fmt: str) -> str:
    if fmt == "dot":
        return to_dot(projection)
    if fmt == "graphml":
        return to_graphml(projection)
    return to_mermaid(projection)


def graph_data(projection: Projection) -> dict[str, Any]:
    """The hypothesis graph as plain data (``graph --format json``): nodes sorted by id,
    each with its attributes as the fold holds them (hypotheses with their confidence),
    and edges sorted by source, target and key."""
    confidences = projection.confidences()
    graph = projection.graph
    nodes = []
    for node, data in sorted(graph.nodes(data=True)):
        row = {"id": node, **data}
        if node.startswith("h:"):  # rounded as the other formats show it
            row["confidence"] = round(confidences.get(node[2:], 0.0), 6)
        nodes.append(row)
    edges = [
        {"source": source, "target": target, "key": key, **data}
        for source, target, key, data in sorted(
            graph.edges(keys=True, data=True), key=lambda e: (e[0], e[1], str(e[2]))
        )
    ]
    return {"nodes": nodes, "edges": edges}
