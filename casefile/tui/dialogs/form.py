"""A modal form that validates as you type and returns a typed value, or ``None``.

Each dialog is a list of fields and one function that turns their text into its value (an
action of :mod:`casefile.actions`, a seq to jump to …) or raises ``ValueError`` with what is
wrong. The form shows that message inline while the input is
not valid, and the ``casefile …`` command line that would record the same thing once it is;
nothing is appended until the user confirms (``ctrl+s`` or the Record button), and ``escape``
cancels (asking first if something was typed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import QueryType
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Static, TextArea

from casefile.errors import CasefileError
from casefile.text_safety import block as line_block
from casefile.text_safety import line
from casefile.tui.widgets.backdrop import Overlay

R = TypeVar("R")


class StyledOnMount:
    """A widget whose styles are worked out once, as it mounts. Textual restyles a widget (and
    matches the whole stylesheet against it) each time a class of it changes, even before it is
    mounted, when the restyle is thrown away: mounting styles it again. An input given a value
    marks itself valid and a button marks its variant as they are made, which cost the dialogs
    one wasted restyle per input and button as they opened."""

    def update_node_styles(self, animate: bool = True) -> None:
        if self._parent is not None:  # type: ignore[attr-defined]
            super().update_node_styles(animate)  # type: ignore[misc]


class FormLine(Static):
    """A line under a form's fields (what is wrong, what recording would do, the command),
    written on every keystroke: laid out and drawn again only when its text changes (Textual's
    ``update`` lays out the whole dialog again, even for the same text)."""

    def __init__(self, text: str, *, id: str) -> None:
        super().__init__(text, id=id, markup=False)
        self._said = text

    def say(self, text: str) -> None:
        if text != self._said:
            self._said = text
            self.update(text)


class FieldInput(StyledOnMount, Input):
    """A form's one-line field."""


class FormButton(StyledOnMount, Button):
    """A form's button."""


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
    #: no auto-focus: :meth:`first_focus` is given the focus before the first frame
    AUTO_FOCUS = ""

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
        note: str = "",
    ) -> None:
        super().__init__()
        #: a line under the title about the form as a whole (what it leaves out, and why)
        self.note = note
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
        #: how many of the fields are mounted (see :func:`first_frame`)
        self._shown = len(self.fields)
        #: each field's input once made: read on every keystroke, so looked up here rather
        #: than by a query, which walks and matches the dialog's whole tree each time
        self._inputs: dict[str, Input | TextArea] = {}
        #: false until the first field has the focus: keys typed in the same burst as the
        #: one that opened the dialog wait for it (``CasefileApp.on_event``)
        self.takes_keys = False
        #: the lines under the fields and the confirm button, kept as composed: written on
        #: every keystroke, and by a preview that may finish after the dialog has closed, when
        #: a query for them would find nothing (made in :meth:`compose`, which reads
        #: ``confirm_label`` as a caller may have set it after construction)
        self._problem_line: FormLine
        self._preview_line: FormLine
        self._command_line: FormLine
        self._confirm: Button

    def compose(self) -> ComposeResult:
        self._shown = first_frame(self.fields, self.rows_before, self.app.size.height)
        with Vertical(id="form"):
            yield Label(self.form_title, id="form-title")
            if self.note:
                yield Static(self.note, id="form-note", markup=False)
            with VerticalScroll(id="form-fields") as scroll:
                if self._shown < len(self.fields):  # its scroll bar there from the first frame
                    scroll.styles.overflow_y = "scroll"
                for spec in self.fields[: self._shown]:
                    yield from self._field(spec)
            # made saying what the form says as it opens (:meth:`check` finds the same as the
            # dialog mounts): a line written or a button disabled once mounted is laid out or
            # restyled again
            problem, command, complete = self._verdict()
            self._problem_line = FormLine(problem, id="form-problem")
            self._preview_line = FormLine("", id="form-preview")
            self._command_line = FormLine(command, id="form-command")
            self._confirm = FormButton(
                self.confirm_label, variant="primary", id="form-confirm", disabled=not complete
            )
            yield self._problem_line
            yield self._preview_line
            yield self._command_line
            with Horizontal(id="form-buttons"):
                yield self._confirm
                yield FormButton("Cancel", id="form-cancel")

    def _field(self, spec: Field) -> Iterator[Widget]:
        """A field's label, what goes before its input, and its input."""
        yield Label(spec.label, classes="form-label", markup=False)
        yield from self.compose_before(spec)
        widget: Input | TextArea
        if spec.multiline:
            widget = TextArea(spec.value, id=f"field-{spec.name}", soft_wrap=True)
            widget.show_line_numbers = False
        else:
            widget = FieldInput(spec.value, placeholder=spec.placeholder, id=f"field-{spec.name}")
        self._inputs[spec.name] = widget
        yield widget

    @property
    def complete(self) -> bool:
        """Whether every field is mounted (those below the fold follow the first frame)."""
        return self._shown == len(self.fields)

    def mount_rest(self) -> None:
        """Mount the fields below the fold (after the first frame, or at once when the focus
        is to move: Tab and Enter go through them in their order)."""
        if self.complete:
            return
        rest = self.fields[self._shown :]
        self._shown = len(self.fields)
        scroll = self.query_one("#form-fields", VerticalScroll)
        scroll.mount_all([widget for spec in rest for widget in self._field(spec)])
        scroll.styles.overflow_y = "auto"

    def focus_next(self, selector: str | type[QueryType] = "*") -> Widget | None:
        return self._move_focus_through_all(1, selector)

    def focus_previous(self, selector: str | type[QueryType] = "*") -> Widget | None:
        return self._move_focus_through_all(-1, selector)

    def _move_focus_through_all(self, step: int, selector: str | type[QueryType]) -> Widget | None:
        """Tab, shift+Tab and Enter with every field mounted. Fields just mounted have no place
        yet, which Textual orders the focus by, so until their frame the focus goes by the
        form's order (its widgets stack in the order they are mounted)."""
        if self.complete or selector != "*":
            self.mount_rest()
            return super().focus_next(selector) if step > 0 else super().focus_previous(selector)
        self.mount_rest()
        chain = [widget for widget in self.query("*") if widget.focusable]
        at = chain.index(self.focused) if self.focused in chain else -1
        target = chain[(at + step) % len(chain)]
        self.set_focus(target, scroll_visible=False)
        self.call_after_refresh(self._into_view, target)
        return target

    def _into_view(self, widget: Widget) -> None:
        if self.focused is widget and not self.can_view_entire(widget):
            self.scroll_to_center(widget, origin_visible=True)

    def rows_before(self, spec: Field) -> int:
        """Rows the widgets of :meth:`compose_before` take (none here)."""
        return 0

    def compose_before(self, spec: Field) -> ComposeResult:
        """Widgets that go between a field's label and its input (none here)."""
        yield from ()

    def first_focus(self) -> str:
        """The selector of the widget that has the focus as the dialog opens."""
        return "Input, TextArea"

    def on_mount(self) -> None:
        self.check()
        # Focused here, before the first frame: a focus moved after it (Textual's auto-focus
        # took the field list, then a field's ``focus()`` ran once the frame was out) restyles
        # and paints the dialog again. It is at the top of the form, so nothing to scroll to.
        self.set_focus(self.query(self.first_focus()).first(), scroll_visible=False)
        self.takes_keys = True
        release = getattr(self.app, "release_keys", None)
        if release is not None:  # casefile's app (a dialog pushed by a bare one in benchmarks)
            release()
        if not self.complete:
            self.call_after_refresh(self.after_first_frame)

    async def after_first_frame(self) -> None:
        """Mount the rest once every other task has had a turn: the callbacks waiting for a
        frame run one after another, and mounting the rest among them (several ms for the probe
        dialog) held back those after it, and what else was waiting on that frame."""
        await asyncio.sleep(0)
        if self.is_attached:
            self.mount_rest()

    def values(self) -> dict[str, str]:
        """What each field holds (a field not made yet holds what it opens with: one below
        the fold, or any while the dialog is pushed but not yet composed, when a key or the
        quit check may already ask; a field made but not yet mounted holds it too)."""
        out: dict[str, str] = {}
        for spec in self.fields:
            widget = self._inputs.get(spec.name)
            if widget is None:
                out[spec.name] = spec.value
            else:
                out[spec.name] = widget.text if isinstance(widget, TextArea) else widget.value
        return out

    def dirty(self) -> bool:
        return any(self.values()[f.name] != f.value for f in self.fields)

    def _verdict(self) -> tuple[str, str, bool]:
        """Build the request from what is typed now: what is wrong (the line under the fields),
        what will run (the command line), and whether it can be recorded."""
        try:
            self.request = self.build(self.values())
            self.problem = None
        except ValueError as error:
            self.request = None
            self.problem = str(error)
        if self.problem is not None:
            # an untouched form says nothing yet (a jump dialog opening on "give a seq" reads
            # as an error); the button stays disabled all the same
            shown = self.dirty() or self._tried
            return (f"✗ {line(self.problem)}" if shown else ""), "", False
        assert self.request is not None
        return "", (f"$ {line(self.echo(self.request))}" if self.echo else ""), True

    def check(self, *, with_preview: bool = True) -> None:
        """Build the request from what is typed now; show what is wrong, or what will run,
        and (``with_preview``) start working out what recording it would do."""
        problem, command, complete = self._verdict()
        self._problem_line.say(problem)
        self._command_line.say(command)
        self._confirm.disabled = not complete
        if not complete and self.preview is not None:
            self._preview_line.say("")  # what the last request would do is not this one's
        if complete and with_preview and self.preview is not None:
            request = self.request

            async def preview() -> None:  # made when it starts: a cancelled one leaves none
                await self._preview(request)  # type: ignore[arg-type]

            self.run_worker(preview, name="preview", group="preview", exclusive=True)  # type: ignore[arg-type]

    async def _preview(self, request: R) -> None:
        assert self.preview is not None
        try:
            text = await self.preview(request)
        except CasefileError as error:
            text = f"✗ {error}"
            if request is self.request:  # the case refuses it: nothing to record
                self._refused = (request, str(error))
                self._confirm.disabled = True
        if not self.is_attached:  # the dialog closed while the case worked it out
            return
        if request is self.request:  # still what is typed: stale previews are dropped
            self._preview_line.say(line_block(text))

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
        # no preview of a request about to be recorded: it would land after the dialog closed
        self.check(with_preview=False)
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


#: the share of the screen's height the field list shows at most (``#form-fields`` in
#: casefile.tcss); a field's label takes two rows (with the margin above it), an input three
#: and a multi-line one five
FIELDS_VIEW = 0.4
LABEL_ROWS, INPUT_ROWS, AREA_ROWS = 2, 3, 5


def first_frame(fields: Sequence[Field], rows_before: Callable[[Field], int], height: int) -> int:
    """How many fields a dialog composes for its first frame on a screen ``height`` rows tall:
    those in view at the top of the field list, the last one perhaps in part; the rest, below
    the fold, are mounted after that frame (composing and styling every field of the probe
    dialog was most of its opening). All of them when they fit in view."""
    view = int(height * FIELDS_VIEW)
    rows = 0
    for count, spec in enumerate(fields, 1):
        rows += LABEL_ROWS + (AREA_ROWS if spec.multiline else INPUT_ROWS) + rows_before(spec)
        if rows >= view:
            return count
    return len(fields)


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
