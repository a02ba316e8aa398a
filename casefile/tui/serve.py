"""``casefile serve``: one case's TUI, read-only, in a browser, through textual-serve.

The server listens on 127.0.0.1 only (a teammate reaches it through ``ssh -L``), and answers
only a request carrying the access token printed at start (in the URL once, then a cookie of
this origin), so another user of the machine cannot watch. The page loads nothing from
anywhere else: its template is casefile's own and its script, stylesheet and font ship with
textual-serve. Each browser session runs ``casefile tui CASE --read-only`` under textual-serve's
pipes, so nothing it shows can be changed from the browser.
"""

from __future__ import annotations

import hmac
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web
from textual_serve.server import Server

#: the one address served: anything else is refused (use ``ssh -L`` to reach it)
LOOPBACK = "127.0.0.1"
TEMPLATES = Path(__file__).resolve().parent / "serve_templates"
COOKIE = "casefile_serve_token"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def check_host(host: str) -> str:
    """``host`` if it is 127.0.0.1; anything else is a one-line error."""
    if host != LOOPBACK:
        raise ValueError(
            f"casefile serve listens on {LOOPBACK} only, not {host!r}: "
            f"reach it from another machine through `ssh -L PORT:{LOOPBACK}:PORT HOST`"
        )
    return host


def new_token() -> str:
    return secrets.token_urlsafe(24)


def tui_command(case: str, db_url: str | None) -> str:
    """The command each browser session runs: this casefile's read-only TUI on ``case``, on the
    database given (or, without one, the one the environment and config file name)."""
    words = [sys.executable, "-m", "casefile", "tui", case, "--read-only"]
    if db_url is not None:
        words += ["--db", db_url]
    return shlex.join(words)


class CaseServer(Server):
    """textual-serve's server with an access token and casefile's own page."""

    def __init__(
        self, command: str, *, port: int, token: str, title: str, templates: Path = TEMPLATES
    ) -> None:
        super().__init__(command, host=LOOPBACK, port=port, title=title, templates_path=templates)
        self.token = token

    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/?token={self.token}"

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._guard)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        given = request.query.get("token") or request.cookies.get(COOKIE) or ""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            raise web.HTTPForbidden(text="casefile serve: open the URL printed at start")
        response = await handler(request)
        if "token" in request.query:
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict")
        return response

    async def on_startup(self, app: web.Application) -> None:
        print(f"casefile serve: {self.title}, read-only, at {self.url()}", flush=True)
        print("Ctrl+C stops it.", flush=True)
