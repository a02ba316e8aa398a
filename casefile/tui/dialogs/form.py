"""A modal form that validates as you type and returns a typed value, or ``None``.

Each dialog is a list of fields and one function that turns their text into its value (an
action of :mod:`casefile.actions`, a seq to jump to …) or raises ``ValueError`` with what is
wrong. The form shows that message inline while the input is
not valid, and the ``casefile …`` command line that would record the same thing once it is;
nothing is appended until the user confirms (``ctrl+s`` or the Record button), and ``escape``
cancels (asking first if something was typed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static, TextArea

from casefile.errors import CasefileError
from casefile.text_safety import block as line_block
from casefile.text_safety import line
from casefile.tui.widgets.backdrop import Overlay

R = TypeVar("R")


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    placeholder: str = ""
    value: str = ""
    multiline: bool = False


class FormDialog(Overlay[R | None], Generic[R]):
    """Fields → ``build(values)`` → a value, checked on every keystroke; ``echo`` says what it
    would run (the ``casefile …`` line of an action)."""

    #: text cursors blink (tests turn it off so screenshots are the same every run)
    BLINK: ClassVar[bool] = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "confirm", "Record"),
    ]

    def __init__(
        self,
        title: str,
        fields: Sequence[Field],
        build: Callable[[Mapping[str, str]], R],
        *,
        echo: Callable[[R], str] | None = None,
        confirm_label: str = "Record",
        preview: Callable[[R], Awaitable[str]] | None = None,
    ) -> None:
        super().__init__()
        #: what the request would do, worked out on the case thread (the evidence dialog
        #: shows the posterior before anything is recorded)
        self.preview = preview
        self.form_title = title
        self.fields = list(fields)
        self.build = build
        self.echo = echo
        self.confirm_label = confirm_label
        self.request: R | None = None
        self.problem: str | None = None
        self._cancel_asked = False
        self._tried = False  # a confirm was attempted: say what is wrong even if untouched
        #: a request the preview found the case refuses, and why
        self._refused: tuple[R, str] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="form"):
            yield Label(self.form_title, id="form-title")
            with VerticalScroll(id="form-fields"):
                for spec in self.fields:
                    yield Label(spec.label, classes="form-label")
                    if spec.multiline:
                        area = TextArea(spec.value, id=f"field-{spec.name}", soft_wrap=True)
                        area.show_line_numbers = False
                        yield area
                    else:
                        yield Input(
                            spec.value, placeholder=spec.placeholder, id=f"field-{spec.name}"
                        )
            yield Static("", id="form-problem", markup=False)
            yield Static("", id="form-preview", markup=False)
            yield Static("", id="form-command", markup=False)
            with Horizontal(id="form-buttons"):
                yield Button(self.confirm_label, variant="primary", id="form-confirm")
                yield Button("Cancel", id="form-cancel")

    def on_mount(self) -> None:
        self.check()
        first = self.query("Input, TextArea").first()
        first.focus()

    def values(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for spec in self.fields:
            widget = self.query_one(f"#field-{spec.name}")
            out[spec.name] = widget.text if isinstance(widget, TextArea) else widget.value  # type: ignore[attr-defined]
        return out

    def dirty(self) -> bool:
        return any(self.values()[f.name] != f.value for f in self.fields)

    def check(self) -> None:
        """Build the request from what is typed now; show what is wrong, or what will run."""
        try:
            self.request = self.build(self.values())
            self.problem = None
        except ValueError as error:
            self.request = None
            self.problem = str(error)
        problem = self.query_one("#form-problem", Static)
        command = self.query_one("#form-command", Static)
        confirm = self.query_one("#form-confirm", Button)
        if self.problem is not None:
            # an untouched form says nothing yet (a jump dialog opening on "give a seq" reads
            # as an error); the button stays disabled all the same
            shown = self.dirty() or self._tried
            problem.update(f"✗ {line(self.problem)}" if shown else "")
            command.update("")
            confirm.disabled = True
        else:
            problem.update("")
            assert self.request is not None
            command.update(f"$ {line(self.echo(self.request))}" if self.echo else "")
            confirm.disabled = False
            if self.preview is not None:
                request = self.request

                async def preview() -> None:  # made when it starts: a cancelled one leaves none
                    await self._preview(request)

                self.run_worker(preview, name="preview", group="preview", exclusive=True)  # type: ignore[arg-type]

    async def _preview(self, request: R) -> None:
        assert self.preview is not None
        try:
            text = await self.preview(request)
        except CasefileError as error:
            text = f"✗ {error}"
            if request is self.request:  # the case refuses it: nothing to record
                self._refused = (request, str(error))
                self.query_one("#form-confirm", Button).disabled = True
        if request is self.request:  # still what is typed: stale previews are dropped
            self.query_one("#form-preview", Static).update(line_block(text))

    def on_input_changed(self, _event: Input.Changed) -> None:
        self.check()

    def on_text_area_changed(self, _event: TextArea.Changed) -> None:
        self.check()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # Enter goes to the next field; only ctrl+s or the button records (a form of one
        # field is the exception: Enter there can only mean "done")
        event.stop()
        if len(self.fields) == 1:
            self.action_confirm()
        else:
            self.focus_next()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "form-confirm":
            self.action_confirm()
        else:
            self.dismiss(None)

    def action_confirm(self) -> None:
        self._tried = True
        self.check()
        refused = self._refused
        if refused is not None and refused[0] == self.request:
            self.notify(refused[1], title=self.form_title, severity="warning", markup=False)
            return
        if self.request is not None:
            self.dismiss(self.request)
        elif self.problem:
            self.notify(self.problem, title=self.form_title, severity="warning", markup=False)

    def action_cancel(self) -> None:
        """Esc: close, unless something was typed, which takes a second Esc to drop."""
        if self.dirty() and not self._cancel_asked:
            self._cancel_asked = True
            self.notify(
                f"Esc again drops what you typed; ctrl+s: {self.confirm_label.lower()}",
                title=self.form_title,
                markup=False,
            )
            return
        self.dismiss(None)


def required(values: Mapping[str, str], name: str, what: str) -> str:
    text = values.get(name, "").strip()
    if not text:
        raise ValueError(f"{what} is empty")
    return text


def optional(values: Mapping[str, str], name: str) -> str | None:
    text = values.get(name, "").strip()
    return text or None


def probability_of(
    values: Mapping[str, str],
    name: str,
    what: str,
    *,
    default: float | None = None,
    low: bool = False,
    high: bool = False,
) -> float:
    """A probability between 0 and 1, the ends allowed only where the CLI allows them (``low``
    takes 0, ``high`` takes 1: a likelihood may be 1, a reliability 0 or 1, a prior neither,
    since certainty is what no evidence can move). NaN and infinities are never numbers a
    belief can hold."""
    text = values.get(name, "").strip()
    if not text:
        if default is not None:
            return default
        raise ValueError(f"{what} is empty")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not a number") from None
    above = value >= 0.0 if low else value > 0.0
    below = value <= 1.0 if high else value < 1.0
    if value != value or not (above and below):
        ends = f"{'[' if low else '('}0, 1{']' if high else ')'}"
        raise ValueError(f"{what} must be within {ends}, not {text}")
    return value


def lines_of(values: Mapping[str, str], name: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in values.get(name, "").splitlines() if item.strip())
