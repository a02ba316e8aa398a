"""The JSON writer: the model itself, every reference written ``seq@hash`` as elsewhere."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from casefile.report.digest import MARK
from casefile.report.model import Ref, Report

#: Bumped when a key changes meaning; keys are only ever added otherwise.
SHAPE_VERSION = 1


def plain(value: Any) -> Any:
    if isinstance(value, Ref):
        return value.label
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    return value


def render_json(report: Report) -> str:
    fields = plain(report)
    del fields["facts"]  # every fact of every observation: the facts export's, not the report's
    document = {"shape": "casefile-report", "version": SHAPE_VERSION, **fields}
    document[MARK] = "sha256:"  # the last key; casefile.report.render fills in the digest
    return json.dumps(document, indent=2, ensure_ascii=True, sort_keys=False) + "\n"
