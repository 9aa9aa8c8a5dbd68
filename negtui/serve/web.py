"""The browser door of `negtui serve --web HOST:PORT`: the same training app as over SSH, in a browser.

A small aiohttp server of our own in front of the app, rather than textual-serve's `Server`: its server
starts one shell command for every connection, with the server's whole environment and no resource limit,
and lets any browser that reaches it in; ours lets in only a browser with a session (an invite link
followed), forks each app from the fork server that the SSH door uses (same trainee, same database, same
memory cap), and counts it among the server's sessions.  What we take from textual-serve is its browser
client (`textual.js`, xterm's stylesheet, the font), served from the installed package; the protocol both
speak is web_protocol.py's.

Routes:
- `GET /join/NAME/CODE`: the invite's page, a button to join (the code is used only when it is pressed:
  link previewers open links); 404 for no such invite, 403 for one used or expired;
- `POST /join/NAME/CODE`: uses the code, gives the session cookie (HttpOnly, SameSite=Strict, Secure behind
  TLS), and sends the browser to the app; the same refusals;
- `GET /`: the app's page, or 401 without a session;
- `GET /ws`: the app itself: refused before anything starts without a session (401) or from a page of
  another site (its Origin, 403); a server already at `--max-sessions` says so and closes;
- `GET /static/…`: the client's files and ours, by name, nothing else."""

from __future__ import annotations

import asyncio
import collections
import importlib.util
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from negtui.classroom.invitebook import Redeemed
from negtui.serve import web_pages, web_session
from negtui.serve.doors import IdleClock
from negtui.serve.links import JOIN
from negtui.serve.pipe_child import PipeChild
from negtui.serve.pty_child import GRACE, in_background
from negtui.serve.web_protocol import MAX_TYPED, Packets, TooLarge, from_browser

if TYPE_CHECKING:
    from negtui.serve.doors import DoorHub

OUR_STATIC = Path(__file__).parent / "static"
OURS = ("door.js", "door.css")
THEIRS = ("js/textual.js", "css/xterm.css", "fonts/RobotoMono-VariableFont_wght.ttf",
          "fonts/RobotoMono-Italic-VariableFont_wght.ttf")
OUTPUT_QUEUED = 256 * 1024  # bytes of screen held for a browser that does not take it; then its app waits
WRONG_CODES = 10  # wrong codes for one trainee within WRONG_WINDOW seconds, then that trainee's link rests
WRONG_CODES_ALL = 200  # and for everyone together (each check is a slow hash)
WRONG_WINDOW = 600.0
SUBMITTED_MAX = 4096  # bytes of a join form's body
HEADERS_WAIT = 10.0  # seconds a new connection has to send its first request's headers, then it is closed
TRAINER = ("A trainer's account opens the trainer's console, over SSH (the invite's code at the enrolment screen) "
           "or with negtui class, not in a browser.")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
FULL = "the training server is full ({n} sessions); try again later"


def client_files() -> Path:
    """textual-serve's static folder, found without importing the package (which would load Textual here)."""
    spec = importlib.util.find_spec("textual_serve")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("textual-serve is not installed: pip install textual-serve")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


class Tries:
    """Wrong codes seen lately, per trainee and in all: a code is eight hex digits, guessed one slow hash at
    a time."""

    def __init__(self) -> None:
        self.seen: collections.deque[tuple[float, str]] = collections.deque()

    def _recent(self) -> None:
        while self.seen and self.seen[0][0] < time.monotonic() - WRONG_WINDOW:
            self.seen.popleft()

    def resting(self, trainee: str) -> bool:
        self._recent()
        return len(self.seen) >= WRONG_CODES_ALL or sum(t == trainee for _, t in self.seen) >= WRONG_CODES

    def wrong(self, trainee: str) -> None:
        self.seen.append((time.monotonic(), trainee))


class WebDoor:
    def __init__(self, hub: DoorHub, host: str, port: int, public_url: str | None = None) -> None:
        self.hub, self.host, self.port, self.public_url = hub, host, port, public_url
        self.secret = web_session.key(hub.options.data_dir)
        self.theirs = client_files()
        self.tries = Tries()
        self.runner: web.AppRunner | None = None
        self.listening: asyncio.Server | None = None
        self.waiting: set[asyncio.Protocol] = set()  # connections yet to send their first request's headers
        self.course_title = ""

    # --- serving --------------------------------------------------------------------------------------
    async def start(self, course_title: str) -> int:
        """Listen; the port listened on."""
        self.course_title = course_title
        app = web.Application(client_max_size=SUBMITTED_MAX, middlewares=[self._heard_in_time, _headers])
        app.router.add_get("/", self.page)
        app.router.add_get(f"/{JOIN}/{{trainee}}/{{code}}", self.join_page)
        app.router.add_post(f"/{JOIN}/{{trainee}}/{{code}}", self.join)
        app.router.add_get("/ws", self.socket)
        app.router.add_get("/static/{path:.+}", self.static)
        self.runner = web.AppRunner(app, access_log=None, handler_cancellation=True, keepalive_timeout=30,
                                    max_line_size=8190, max_field_size=8190, shutdown_timeout=5)
        await self.runner.setup()
        self.listening = await asyncio.get_running_loop().create_server(self._connection, self.host, self.port)
        return int(self.listening.sockets[0].getsockname()[1])

    def _connection(self) -> asyncio.Protocol:
        """aiohttp's handler of a new connection, with a deadline for its first request: aiohttp waits for
        headers as long as a client trickles them, one slow client a socket held for ever (once a request
        is answered, aiohttp's keep-alive time-out closes an idle connection)."""
        assert self.runner is not None and self.runner.server is not None
        handler = self.runner.server()
        self.waiting.add(handler)
        asyncio.get_running_loop().call_later(HEADERS_WAIT, self._unheard, handler)
        return handler

    def _unheard(self, handler: asyncio.Protocol) -> None:
        if handler in self.waiting:
            self.waiting.discard(handler)
            if (transport := getattr(handler, "transport", None)) is not None:
                transport.close()

    @web.middleware
    async def _heard_in_time(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        self.waiting.discard(request.protocol)  # a connection's later requests find it gone: nothing is kept
        return await handler(request)

    async def stop(self) -> None:
        if self.listening is not None:
            self.listening.close()
        if self.runner is not None:
            await self.runner.cleanup()
        self.waiting.clear()

    async def static(self, request: web.Request) -> web.StreamResponse:
        path = request.match_info["path"]
        if path in OURS:
            return web.FileResponse(OUR_STATIC / path)
        if path in THEIRS:
            return web.FileResponse(self.theirs / path)
        raise web.HTTPNotFound(text="not found")

    # --- who is asking --------------------------------------------------------------------------------
    def _origins(self, request: web.Request) -> set[str]:
        """Where a page of ours is served from: the address given with --web-url, else this request's host."""
        if self.public_url:
            parts = urlsplit(self.public_url)
            return {f"{parts.scheme}://{parts.netloc}"}
        host = request.headers.get("Host", "")
        return {f"http://{host}", f"https://{host}"} if host else set()

    def _same_site(self, request: web.Request) -> bool:
        return request.headers.get("Origin", "") in self._origins(request)

    def _secure(self, request: web.Request) -> bool:
        return (request.secure or request.headers.get("X-Forwarded-Proto", "").lower() == "https"
                or (self.public_url or "").startswith("https:"))

    async def _signed_in(self, request: web.Request) -> tuple[str | None, web.Response | None]:
        """The trainee this browser is, or the page refusing it."""
        parsed = web_session.read(request.cookies.get(web_session.COOKIE))
        member = None if parsed is None else await self.hub.db_call(lambda db: db.invites.member(parsed[0]))
        claim = web_session.check(self.secret, request.cookies.get(web_session.COOKIE),
                                  member[0] if member else None)
        if claim is None:
            return None, _refuse(401, "Not signed in", "Open the link in your invitation: it signs this browser in. "
                                                       "If it was used already, ask your trainer for a new one.")
        if member is not None and member[1]:
            return None, _refuse(403, "A trainer's account", TRAINER)
        return claim.trainee, None

    # --- invites --------------------------------------------------------------------------------------
    async def _invite_problem(self, request: web.Request, trainee: str, code: str,
                              use: bool) -> web.Response | None:
        if self.tries.resting(trainee):
            return _refuse(429, "Too many tries", "Too many wrong codes were tried for this name lately: "
                                                  "try again in ten minutes, or ask your trainer.")
        if len(code) > 40 or len(trainee) > 64:
            said = Redeemed.NONE
        else:
            said = await self.hub.db_call(lambda db: db.invites.redeem_web(trainee, code, use=use))
        if said in (Redeemed.NONE, Redeemed.WRONG):
            self.tries.wrong(trainee)
            return _refuse(404, "No such invitation", "This link matches no invitation: check that it is whole "
                                                      "(copy it again from your invitation), or ask your trainer.")
        if said is Redeemed.USED:
            return _refuse(403, "Invitation used", "This invitation has been used already: each link signs in "
                                                   "one browser, once. Ask your trainer for a new one.")
        if said is Redeemed.EXPIRED:
            return _refuse(403, "Invitation expired", "This invitation has expired. Ask your trainer for a new one.")
        return None

    async def join_page(self, request: web.Request) -> web.Response:
        trainee, code = request.match_info["trainee"], request.match_info["code"]
        signed, _ = await self._signed_in(request)
        if signed == trainee:  # the link followed again, in a browser it signed in
            raise web.HTTPSeeOther("../../")
        problem = await self._invite_problem(request, trainee, code, use=False)
        if problem is not None:
            return problem
        return _html(200, web_pages.join(self.course_title, trainee, "../../static/"))

    async def join(self, request: web.Request) -> web.Response:
        trainee, code = request.match_info["trainee"], request.match_info["code"]
        if not self._same_site(request):  # a form on another site signing this browser in as someone else
            return _refuse(403, "Refused", "This form can only be sent from the invitation's own page.")
        member = await self.hub.db_call(lambda db: db.invites.member(trainee))
        if member is not None and member[1]:  # the code is kept for the enrolment screen over SSH
            return _refuse(403, "A trainer's account", TRAINER)
        problem = await self._invite_problem(request, trainee, code, use=True)
        if problem is not None:
            return problem
        member = await self.hub.db_call(lambda db: db.invites.member(trainee))
        if member is None:
            return _refuse(404, "No such trainee", "This trainee was removed meanwhile. Ask your trainer.")
        response = web.HTTPSeeOther("../../")
        response.set_cookie(web_session.COOKIE, web_session.give(self.secret, trainee, member[0]),
                            max_age=web_session.MAX_AGE, path="/", httponly=True, samesite="Strict",
                            secure=self._secure(request))
        raise response

    async def page(self, request: web.Request) -> web.Response:
        trainee, refusal = await self._signed_in(request)
        if refusal is not None:
            return refusal
        assert trainee is not None
        return _html(200, web_pages.app(self.course_title, trainee, "static/", self.hub.options.idle_timeout / 60))

    # --- the app --------------------------------------------------------------------------------------
    async def socket(self, request: web.Request) -> web.StreamResponse:
        if not self._same_site(request):
            return _refuse(403, "Refused", "The training app answers pages of its own site only.")
        trainee, refusal = await self._signed_in(request)
        if refusal is not None:
            return refusal
        assert trainee is not None
        ws = web.WebSocketResponse(heartbeat=30, max_msg_size=MAX_TYPED * 4 + 1024)
        await ws.prepare(request)
        session = WebSession(self.hub, trainee, ws, request.remote or "")
        await session.run(_size(request))
        return ws


def _size(request: web.Request) -> tuple[int, int]:
    try:
        return int(request.query.get("width", "80")), int(request.query.get("height", "24"))
    except ValueError:
        return 80, 24


class WebSession:
    """One browser's app: among the server's sessions beside the SSH ones (counted against --max-sessions, one
    per trainee, ended when idle), its child a PipeChild."""

    def __init__(self, hub: DoorHub, name: str, ws: web.WebSocketResponse, peer: str) -> None:
        self.hub, self.name, self.ws, self.peer = hub, name, ws, peer
        self.child: PipeChild | None = None
        self.session_id: int | None = None
        self.idle = IdleClock(hub.options.idle_timeout, self.end_for)
        self.packets = Packets.new()
        self.out: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.queued = 0
        self.ended = asyncio.Event()
        self.said: str | None = None  # why the session ended, shown on the terminal
        self.ending: str | None = None  # why the server is ending the session (idle, …), once it is
        self.exiting = False  # the app said it is ending (a trainee's q): it is let end on its own

    async def run(self, size: tuple[int, int]) -> None:
        hub = self.hub
        if len(hub.sessions) >= hub.options.max_sessions:
            await self.ws.send_bytes(FULL.format(n=hub.options.max_sessions).encode() + b"\r\n")
            await self.ws.close(code=1013, message=b"full")
            return
        hub.sessions.add(self)  # counted now: logins at the same moment must not all pass the check above
        sender = asyncio.ensure_future(self._send())
        try:
            await hub.take_over(self)
            self.session_id = await hub.db_call(lambda db: db.session_started(self.name, f"{self.peer} (web)",
                                                                              "browser"))
            cols, rows = size
            self.child = PipeChild(hub.app_args(self.name, self.session_id, web=True), hub.app_env(cols, rows),
                                   cols, rows, hub.options.child_memory, self._output, self._exited,
                                   zygote=hub.zygote_path)
            try:
                await self.child.start()
            except OSError as err:
                self.said = f"the training app could not start: {err}"
                self._close("could not start")
                return
            self.idle.touch()
            async for message in self.ws:
                if message.type != WSMsgType.TEXT:
                    continue
                kind, data = from_browser(message.data)
                if kind == "pong" and isinstance(data, str):
                    await self.ws.send_str(data)
                elif isinstance(data, bytes) and self.child is not None:
                    self.child.write(data)
                    if kind == "stdin":
                        self.idle.touch()
        finally:
            await self._end("disconnected")
            self.out.put_nowait(None)
            await sender

    # what the app draws goes to the browser in order; while the browser lags, the app is not read
    def _output(self, data: bytes) -> None:
        try:
            packets = self.packets.feed(data)
        except TooLarge as err:
            print(f"web door: {self.name}'s app: {err}; ended", file=sys.stderr)
            in_background(self._end("app misbehaved"))
            return
        for kind, payload in packets:
            if kind == b"D":
                self.out.put_nowait(payload)
                self.queued += len(payload)
            elif kind == b"M" and b'"exit"' in payload:
                self.exiting = True
                if self.said is None:  # the app has ended: the socket closes after what it drew
                    self.out.put_nowait(b"")  # (or after the word why it was ended, `_close`)
        if self.queued > OUTPUT_QUEUED and self.child is not None:
            self.child.pause_reading()

    async def _send(self) -> None:
        while True:
            data = await self.out.get()
            if data is None:
                return
            if data == b"" or self.ws.closed:
                if not self.ws.closed:
                    await self.ws.close()
                continue
            try:
                await self.ws.send_bytes(data)
            except (ConnectionError, RuntimeError):
                pass
            self.queued -= len(data)
            if self.queued <= OUTPUT_QUEUED // 2 and self.child is not None:
                self.child.resume_reading()

    def _exited(self, code: int) -> None:
        if code not in (0, 129, -1, -9, 137) and self.child is not None and self.child.stderr_tail:
            print(f"web door: {self.name}'s app exited with status {code}:\n"
                  f"{self.child.stderr_tail.decode('utf-8', 'replace')[-2000:]}", file=sys.stderr)
        self._close(self.ending or ("app exited" if code == 0 else f"app exited with status {code}"))

    def _close(self, reason: str) -> None:
        if self.ended.is_set():
            return
        if self.session_id is not None:
            session_id, self.session_id = self.session_id, None
            self.hub.db_later(lambda db: db.session_ended(session_id, reason))
        self.hub.sessions.discard(self)
        self.idle.stop()
        if self.said is not None:
            self.out.put_nowait(f"\r\n{self.said}\r\n".encode())
        self.out.put_nowait(b"")
        self.ended.set()

    async def end_for(self, said: str, reason: str) -> None:
        """End the session with a word on the browser's terminal (another of the trainee's, idle, the server
        stopping)."""
        self.said = said
        await self._end(reason)

    async def _end(self, reason: str) -> None:
        if not self.exiting:  # (an app that is ending on its own says why: it exited)
            self.ending = self.ending or reason
        if self.exiting:
            try:
                await asyncio.wait_for(self.ended.wait(), GRACE)
            except TimeoutError:
                pass
        if self.child is not None:
            await self.child.stop()
        self._close(reason)


@web.middleware
async def _headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every page and refusal with the headers that keep it to itself (web_pages.HEADERS)."""
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        exc.headers.update({k: v for k, v in web_pages.HEADERS.items() if k not in exc.headers})
        raise
    if not isinstance(response, web.WebSocketResponse):
        for name, value in web_pages.HEADERS.items():
            response.headers.setdefault(name, value)
    return response


def _html(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text, content_type="text/html", charset="utf-8")


def _refuse(status: int, title: str, text: str) -> web.Response:
    return _html(status, web_pages.plain(title, text))

