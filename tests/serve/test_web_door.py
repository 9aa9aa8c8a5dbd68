"""The browser door of `negtui serve --web`, with a real HTTP and websocket client (aiohttp's) on loopback:
an invite link signs a browser in once, every refusal answers before any app starts (a wrong, used or expired
code, no session, a page of another site), the app over the websocket is the trainee's own, and the SSH
door's limits hold across both doors (the session limit, one app per trainee, the idle time-out, the
memory cap)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import asyncssh
import pytest
import pytest_asyncio

from negtui.classroom.db import ResultsDB
from negtui.serve import web_session
from negtui.serve.doors import ServeOptions
from negtui.serve.server import Hub
from negtui.serve.ssh_door import host_key
from tests.paths import INTRO_COURSE
from tests.waiting import wait_for_async

pytestmark = pytest.mark.asyncio
CONTROL = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|.)")


@dataclass
class Door:
    hub: Hub
    ssh_port: int
    url: str  # http://127.0.0.1:PORT
    codes: dict[str, str]  # trainee -> invite code

    def link(self, name: str, code: str | None = None) -> str:
        return f"{self.url}/join/{name}/{code or self.codes[name]}"

    @property
    def ws(self) -> str:
        return self.url.replace("http:", "ws:") + "/ws"


async def start(tmp_path: Path, **options) -> tuple[Door, ResultsDB, asyncssh.SSHAcceptor]:
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        codes = {i.trainee: i.code for i in db.invites.issue(["alice", "bob"], 3600)}
    db = ResultsDB.open(data)
    opts = {"max_sessions": 3, "idle_timeout": 600} | options
    hub = Hub(ServeOptions(data, INTRO_COURSE, port=0, web=("127.0.0.1", 0), **opts), db)
    acceptor = await hub.listen(host_key(data))
    door = Door(hub, acceptor.sockets[0].getsockname()[1], f"http://127.0.0.1:{hub.web_port}", codes)
    return door, db, acceptor


@pytest_asyncio.fixture
async def door(tmp_path: Path) -> AsyncIterator[Door]:
    door, db, acceptor = await start(tmp_path)
    yield door
    acceptor.close()
    await door.hub.stop()
    db.close()


@pytest_asyncio.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
        yield session


async def join(http: aiohttp.ClientSession, door: Door, name: str = "alice", code: str | None = None,
               origin: str | None = "same", **headers: str) -> aiohttp.ClientResponse:
    if origin is not None:
        headers["Origin"] = door.url if origin == "same" else origin
    async with http.post(door.link(name, code), headers=headers, allow_redirects=False) as res:
        await res.read()
        return res


async def signed_in(http: aiohttp.ClientSession, door: Door, name: str = "alice") -> str:
    res = await join(http, door, name)
    assert res.status == 303, res.status
    return res.cookies[web_session.COOKIE].value


def pending(door: Door, name: str) -> bool:
    with ResultsDB.open(door.hub.options.data_dir) as db:
        return db.has_invite(name)


class Screen:
    """What the app sent a browser, as it arrives."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws, self.data = ws, b""
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.data += message.data

    @property
    def text(self) -> str:
        return " ".join(CONTROL.sub(" ", self.data.decode("utf-8", "replace")).split())

    async def wait_for(self, text: str, timeout: float = 30) -> None:
        await wait_for_async(lambda: text in self.text, f"{text!r} in the browser", timeout,
                             seen=lambda: self.text[-600:])

    async def type(self, keys: str) -> None:
        await self.ws.send_str(json.dumps(["stdin", keys]))

    async def closed(self, timeout: float = 30) -> int | None:
        await asyncio.wait_for(self.reader, timeout)
        return self.ws.close_code


async def open_app(http: aiohttp.ClientSession, door: Door, cookie: str | None, origin: str | None = "same",
                   size: tuple[int, int] = (100, 30)) -> Screen:
    headers = {"Origin": door.url if origin == "same" else origin} if origin else {}
    if cookie is not None:
        headers["Cookie"] = f"{web_session.COOKIE}={cookie}"
    ws = await http.ws_connect(f"{door.ws}?width={size[0]}&height={size[1]}", headers=headers)
    return Screen(ws)


# --- the invite link ---------------------------------------------------------------------------------------

async def test_the_link_shows_a_join_button_and_uses_the_code_only_when_pressed(door, http):
    """A link previewer opening the link uses nothing; pressing the button signs the browser in, once, with
    a cookie script cannot read and other sites never send."""
    async with http.get(door.link("alice")) as res:
        page = await res.text()
    assert res.status == 200 and "Join as alice" in page and 'method="post"' in page
    assert res.headers["Referrer-Policy"] == "same-origin" and "frame-ancestors 'none'" in res.headers[
        "Content-Security-Policy"]
    assert pending(door, "alice")
    res = await join(http, door)
    assert res.status == 303 and res.headers["Location"] == "../../"
    cookie = res.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # served over plain http on loopback: a Secure cookie would never come back
    assert not pending(door, "alice")


async def test_behind_a_tls_proxy_the_cookie_is_secure(door, http):
    res = await join(http, door, **{"X-Forwarded-Proto": "https"})
    assert res.status == 303 and "Secure" in res.headers["Set-Cookie"]


@pytest.mark.parametrize("case", ["wrong", "unknown trainee", "used", "expired"])
async def test_a_bad_code_answers_with_a_plain_page_and_signs_nobody_in(door, http, case):
    if case == "used":
        await signed_in(http, door)
    if case == "expired":
        with ResultsDB.open(door.hub.options.data_dir) as db, db.write() as conn:
            conn.execute("UPDATE invites SET expires = '2000-01-01T00:00:00.000Z' WHERE trainee_id ="
                         " (SELECT id FROM trainees WHERE name = 'alice')")
    name, code = {"wrong": ("alice", "0000-0000"), "unknown trainee": ("zed", "0000-0000")}.get(case, ("alice", None))
    status, words = {"wrong": (404, "matches no invitation"), "unknown trainee": (404, "matches no invitation"),
                     "used": (403, "has been used already"), "expired": (403, "has expired")}[case]
    for method in ("get", "post"):
        async with http.request(method, door.link(name, code), headers={"Origin": door.url},
                                allow_redirects=False) as res:
            page = await res.text()
        assert res.status == status, (method, res.status, page)
        assert words in page and res.content_type == "text/html" and "Set-Cookie" not in res.headers
    assert pending(door, "bob")  # nobody else's invite touched


async def test_a_trainers_invite_does_not_open_the_app_in_a_browser(door, http):
    with ResultsDB.open(door.hub.options.data_dir) as db:
        db.classroom.set_trainer("bob")
    res = await join(http, door, "bob")
    assert res.status == 403 and "Set-Cookie" not in res.headers and pending(door, "bob")


async def test_a_form_sent_from_another_site_is_refused_and_the_code_kept(door, http):
    """Login CSRF: a page elsewhere posting a code would sign the visitor's browser in as someone else."""
    for origin in ("http://evil.example", None):
        res = await join(http, door, origin=origin)
        assert res.status == 403 and "Set-Cookie" not in res.headers
    assert pending(door, "alice")


async def test_wrong_codes_for_one_name_rest_that_name(door, http):
    for _ in range(10):
        assert (await join(http, door, code="0000-0000")).status == 404
    res = await join(http, door)  # even the right code, for a while
    assert res.status == 429 and pending(door, "alice")
    assert (await join(http, door, "bob")).status == 303  # others are not held up


# --- the app's page and socket -----------------------------------------------------------------------------

async def test_without_a_session_no_page_and_no_app(door, http):
    async with http.get(door.url + "/") as res:
        assert res.status == 401 and "Open the link in your invitation" in await res.text()
    for cookie in (None, "1:alice:1:forged", f"{web_session.give(b'another key' * 3, 'alice', 'x')}"):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await open_app(http, door, cookie)
        assert refused.value.status == 401
    assert not door.hub.sessions


async def test_the_socket_refuses_a_page_of_another_site(door, http):
    """Cross-site websocket hijacking: the cookie is the trainee's, the page is not ours."""
    cookie = await signed_in(http, door)
    for origin in ("http://evil.example", None, "http://127.0.0.1:1"):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await open_app(http, door, cookie, origin=origin)
        assert refused.value.status == 403
    assert not door.hub.sessions


async def test_a_removed_trainees_cookie_lets_nobody_in(door, http):
    cookie = await signed_in(http, door)
    with ResultsDB.open(door.hub.options.data_dir) as db:
        db.remove_trainee("alice")
        db.add_trainee("alice")  # someone else under the same name
    async with http.get(door.url + "/", headers={"Cookie": f"{web_session.COOKIE}={cookie}"}) as res:
        assert res.status == 401


async def test_the_app_in_the_browser_is_the_trainees_own(door, http):
    cookie = await signed_in(http, door)
    async with http.get(door.url + "/", headers={"Cookie": f"{web_session.COOKIE}={cookie}"}) as res:
        page = await res.text()
    assert res.status == 200 and 'src="static/js/textual.js"' in page and 'src="static/door.js"' in page
    for path in ("js/textual.js", "css/xterm.css", "door.js", "door.css"):
        async with http.get(f"{door.url}/static/{path}") as res:
            assert res.status == 200, path
    async with http.get(f"{door.url}/static/../server.py") as res:
        assert res.status == 404
    screen = await open_app(http, door, cookie)
    await screen.wait_for("Introduction to multi-party negotiation · alice")
    await screen.wait_for("The poison pill")
    [session] = door.hub.sessions
    assert session.name == "alice" and session.child is not None
    limits = Path(f"/proc/{session.child.pid}/limits").read_text()
    cap = str(door.hub.options.child_memory)
    assert re.search(rf"Max address space\s+{cap}\s+{cap}", limits), limits
    await screen.type("q")
    assert await screen.closed() == 1000
    await wait_for_async(lambda: not door.hub.sessions, "the session to end with its app")
    with ResultsDB.open(door.hub.options.data_dir) as db:
        await wait_for_async(lambda: db.rows("SELECT ended FROM sessions")[0]["ended"], "the session filed as ended")
        [row] = db.rows("SELECT s.peer, s.key_fingerprint, s.end_reason FROM sessions s")
    assert row["peer"].endswith("(web)") and row["key_fingerprint"] == "browser" and row["end_reason"] == "app exited"


# --- limits shared with SSH --------------------------------------------------------------------------------

async def test_a_second_tab_takes_over_and_so_does_an_ssh_login(door, http, tmp_path):
    cookie = await signed_in(http, door)
    first = await open_app(http, door, cookie)
    await first.wait_for("The poison pill")
    second = await open_app(http, door, cookie)
    await second.wait_for("The poison pill")
    await first.closed()
    assert "you opened negtui again elsewhere" in first.text
    assert [s.name for s in door.hub.sessions] == ["alice"]
    key = asyncssh.generate_private_key("ssh-ed25519")
    with ResultsDB.open(door.hub.options.data_dir) as db:
        db.add_keys("alice", [key.export_public_key().decode()])
    async with asyncssh.connect("127.0.0.1", door.ssh_port, username="alice", client_keys=[key], known_hosts=None,
                                agent_path=None) as conn:
        chan, _ = await conn.create_session(asyncssh.SSHClientSession, term_type="xterm", term_size=(100, 30))
        await second.closed()
        assert "you opened negtui again elsewhere" in second.text
        await wait_for_async(lambda: len(door.hub.sessions) == 1 and next(iter(door.hub.sessions)).child is not None,
                             "alice's SSH app alone")
        chan.close()


async def test_the_session_limit_counts_both_doors(tmp_path, http):
    door, db, acceptor = await start(tmp_path, max_sessions=1)
    try:
        key = asyncssh.generate_private_key("ssh-ed25519")
        with ResultsDB.open(door.hub.options.data_dir) as other:
            other.add_keys("carol", [key.export_public_key().decode()], create=True)
        async with asyncssh.connect("127.0.0.1", door.ssh_port, username="carol", client_keys=[key],
                                    known_hosts=None, agent_path=None) as conn:
            await conn.create_session(asyncssh.SSHClientSession, term_type="xterm", term_size=(100, 30))
            await wait_for_async(lambda: len(door.hub.sessions) == 1, "carol's SSH session")
            screen = await open_app(http, door, await signed_in(http, door))
            assert await screen.closed() == 1013  # try again later
            assert "the training server is full (1 sessions)" in screen.text
            assert [s.name for s in door.hub.sessions] == ["carol"]
    finally:
        acceptor.close()
        await door.hub.stop()
        db.close()


async def test_an_idle_browser_is_signed_off_with_a_word(tmp_path, http):
    door, db, acceptor = await start(tmp_path, idle_timeout=3)
    try:
        screen = await open_app(http, door, await signed_in(http, door))
        await screen.wait_for("The poison pill")
        await screen.closed(timeout=30)
        assert "session ended: idle too long (your games are kept)" in screen.text
        with ResultsDB.open(door.hub.options.data_dir) as other:
            await wait_for_async(lambda: other.rows("SELECT end_reason FROM sessions")[0]["end_reason"] == "idle",
                                 "the session filed as ended idle")
    finally:
        acceptor.close()
        await door.hub.stop()
        db.close()


async def test_behind_a_proxy_only_pages_of_its_public_address_open_the_app(tmp_path, http):
    """--web-url: the browser's Origin is the proxy's address, not the loopback one the door listens on."""
    door, db, acceptor = await start(tmp_path, web_url="https://class.example.org")
    try:
        res = await join(http, door, origin="https://class.example.org")
        assert res.status == 303 and "Secure" in res.headers["Set-Cookie"]
        cookie = res.cookies[web_session.COOKIE].value
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await open_app(http, door, cookie)  # the loopback address's own page: not the one trainees use
        assert refused.value.status == 403
        screen = await open_app(http, door, cookie, origin="https://class.example.org")
        await screen.wait_for("The poison pill")
        await screen.ws.close()
    finally:
        acceptor.close()
        await door.hub.stop()
        db.close()


# --- a connection that never finishes asking ---------------------------------------------------------------

async def test_a_connection_that_never_finishes_its_headers_is_closed(door, monkeypatch):
    """A client that opens a connection and trickles a request's headers (or sends nothing) would hold a
    socket of the server for ever: it gets web.HEADERS_WAIT seconds, then is closed; a request that arrives
    in time is answered, and the page it gets does not depend on the wait."""
    from negtui.serve import web

    monkeypatch.setattr(web, "HEADERS_WAIT", 0.5)
    port = int(door.url.rsplit(":", 1)[1])
    silent = await asyncio.open_connection("127.0.0.1", port)
    trickle = await asyncio.open_connection("127.0.0.1", port)
    trickle[1].write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    await trickle[1].drain()
    for reader, writer in (silent, trickle):
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the server, nothing sent
        writer.close()
    prompt = await asyncio.open_connection("127.0.0.1", port)
    ask = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    async def answered() -> bytes:
        head = await asyncio.wait_for(prompt[0].readuntil(b"\r\n\r\n"), 5)
        length = int(re.search(rb"Content-Length: (\d+)", head, re.IGNORECASE).group(1))
        await asyncio.wait_for(prompt[0].readexactly(length), 5)
        return head

    prompt[1].write(ask)
    assert (await answered()).startswith(b"HTTP/1.1 401")
    await asyncio.sleep(0.8)  # past the wait: an answered connection is not cut short, and asks again
    prompt[1].write(ask)
    assert (await answered()).startswith(b"HTTP/1.1 401")
    prompt[1].close()
    assert not door.hub.web.waiting  # nothing kept of connections past their first request or their wait
