"""JSON schemas from the action table, and a tool's JSON arguments back into an action.

A tool's input schema is derived from its row's options (their kinds, required flags,
defaults, choices and help), so an action is spelled once; its arguments are turned into the
text the table's rules read (:mod:`casefile.actions.text`), so a value an MCP client sends
is checked by the same rules as a CLI flag or a TUI field, with the same words.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from casefile.actions.spec import ActionSpec, Option
from casefile.actions.text import Given, InputProblem, parse
from casefile.errors import CasefileError

#: how each kind of option is typed in JSON
_NUMBER_BOUNDS = {
    "prior": {"exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "likelihood": {"exclusiveMinimum": 0, "maximum": 1},
    "reliability": {"minimum": 0, "maximum": 1},
}

#: the property every tool on a case takes first
CASE_PROPERTY = {"type": "string", "minLength": 1, "description": "the case id (or a prefix)"}


class ArgumentProblem(CasefileError):
    """Arguments a tool cannot take: one line naming the argument."""


def option_schema(option: Option) -> dict[str, Any]:
    """One option as a JSON schema property."""
    schema: dict[str, Any]
    kind = option.kind
    if kind in _NUMBER_BOUNDS:
        schema = {"type": "number", **_NUMBER_BOUNDS[kind]}
    elif kind == "seq":
        schema = {"type": "integer", "minimum": 1}
    elif kind == "switch":
        schema = {"type": "boolean"}
    elif kind == "lines":
        schema = {"type": "array", "items": {"type": "string", "minLength": 1}}
    elif kind == "table":
        schema = {
            "type": "object",
            "additionalProperties": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        }
    elif kind == "pairs":
        schema = {"type": "object", "additionalProperties": {"type": "string"}}
    elif kind == "choice":
        schema = {"type": "string", "enum": list(option.choices)}
    else:  # text, note, id
        schema = {"type": "string"}
        if option.required:
            schema["minLength"] = 1
    words = option.help or option.label
    if option.example:
        words += f" (e.g. {option.example})"
    schema["description"] = words
    if option.default not in (None, (), {}) and not isinstance(option.default, Mapping):
        schema["default"] = option.default
    return schema


def row_schema(
    spec: ActionSpec, extra: Mapping[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The input schema of a row's tool: the case first (on a case), then its options."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    if spec.on_case:
        properties["case"] = dict(CASE_PROPERTY)
        required.append("case")
    for option in spec.options:
        properties[option.name] = option_schema(option)
        if option.required:
            required.append(option.name)
    properties.update(extra or {})
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def check_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """Refuse arguments the schema does not allow, in one line naming the argument."""
    validator = _validator(json.dumps(schema, sort_keys=True))
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
    if not errors:
        return
    error = errors[0]
    where = ".".join(str(part) for part in error.absolute_path)
    message = error.message.splitlines()[0]
    if len(message) > 200:
        message = message[:200] + "…"
    raise ArgumentProblem(f"{where}: {message}" if where else message)


@functools.lru_cache(maxsize=64)
def _validator(schema: str) -> Any:
    """A compiled validator per schema (building one costs more than a status answer)."""
    import jsonschema

    return jsonschema.Draft202012Validator(json.loads(schema))


def action_of(spec: ActionSpec, arguments: Mapping[str, Any]) -> Any:
    """The row's action from a tool's (schema-checked) arguments, by the table's rules."""
    given = {option.name: _text(option, arguments.get(option.name)) for option in spec.options}
    try:
        return parse(spec, given)
    except InputProblem as problem:
        raise ArgumentProblem(f"{problem.option.name}: {problem}") from None
    except ValueError as error:  # a check across options (the action's own)
        raise ArgumentProblem(str(error)) from None


def _text(option: Option, value: Any) -> Given:
    """A JSON value as the text a form would hold for the option."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Mapping):
        return [f"{key}={_text(option, item)}" for key, item in value.items()]
    if isinstance(value, list):
        return [str(item) for item in value]
    return str(value)
