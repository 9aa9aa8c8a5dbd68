"""Debian's headless chromium driven over the DevTools protocol (a websocket: aiohttp's client), no browser
download: pages opened, buttons pressed and keys typed as a person's would be, and what the browser's
terminal was sent read back as a screen.

textual.js draws the app on a canvas, so the page holds no text to read; the screen is rebuilt from the
websocket frames the browser itself received (the protocol's Network events), fed to a terminal emulator
(pyte) of the size the page asked the app for (its own `resize` frames).  A screenshot shows the canvas
really drawn."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import pyte

LISTENING = re.compile(r"DevTools listening on (ws://\S+)")
# keys as the protocol's Input.dispatchKeyEvent wants them: key, code, Windows virtual key code
KEYS = {"Enter": ("Enter", "Enter", 13, "\r"), "Escape": ("Escape", "Escape", 27, ""), "Home": ("Home", "Home", 36, ""),
        "Up": ("ArrowUp", "ArrowUp", 38, ""), "Down": ("ArrowDown", "ArrowDown", 40, ""), "Tab": ("Tab", "Tab", 9, "")}


class BrowserGone(Exception):
    pass


class Browser:
    """One headless chromium; `page` opens a tab in a context of its own (its own cookies: one trainee)."""

    def __init__(self, proc: subprocess.Popen, ws: aiohttp.ClientWebSocketResponse, http: aiohttp.ClientSession,
                 profile: str) -> None:
        self.proc, self.ws, self.http, self.profile = proc, ws, http, profile
        self.ids = itertools.count(1)
        self.replies: dict[int, asyncio.Future] = {}
        self.pages: dict[str, Page] = {}  # session id -> page
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, width: int = 1280, height: int = 800) -> Browser:
        browser = shutil.which("chromium")
        if browser is None:
            raise BrowserGone("chromium is not installed")
        profile = tempfile.mkdtemp(prefix="negtui-chromium-")
        proc = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                 "--remote-debugging-port=0", f"--user-data-dir={profile}",
                                 f"--window-size={width},{height}", "about:blank"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        url = None
        loop = asyncio.get_running_loop()
        while url is None and time.monotonic() < deadline:
            line = await loop.run_in_executor(None, proc.stderr.readline)
            if not line:
                break
            m = LISTENING.search(line)
            url = m.group(1) if m else None
        if url is None:
            proc.kill()
            raise BrowserGone("chromium did not open its DevTools port")
        http = aiohttp.ClientSession()
        ws = await http.ws_connect(url, max_msg_size=256 * 2**20)
        return cls(proc, ws, http, profile)

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(message.data)
            if "id" in data and data["id"] in self.replies:
                self.replies.pop(data["id"]).set_result(data)
            elif "sessionId" in data and data["sessionId"] in self.pages:
                self.pages[data["sessionId"]].event(data["method"], data.get("params", {}))
        for waiting in self.replies.values():
            waiting.set_exception(BrowserGone("the browser went away"))

    async def send(self, method: str, session: str | None = None, **params: Any) -> dict:
        n = next(self.ids)
        self.replies[n] = reply = asyncio.get_running_loop().create_future()
        await self.ws.send_str(json.dumps({"id": n, "method": method, "params": params}
                                          | ({"sessionId": session} if session else {})))
        answer = await asyncio.wait_for(reply, 60)
        if "error" in answer:
            raise BrowserGone(f"{method}: {answer['error']}")
        return answer.get("result", {})

    async def page(self) -> Page:
        context = (await self.send("Target.createBrowserContext"))["browserContextId"]
        target = (await self.send("Target.createTarget", url="about:blank", browserContextId=context))["targetId"]
        session = (await self.send("Target.attachToTarget", targetId=target, flatten=True))["sessionId"]
        page = self.pages[session] = Page(self, session)
        await page.call("Network.enable")
        await page.call("Page.enable")
        return page

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.send("Browser.close"), 10)
        except (BrowserGone, TimeoutError, ConnectionError):
            pass
        await self.ws.close()
        await self.http.close()
        self.reader.cancel()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser, self.session = browser, session
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.loaded = asyncio.Event()
        self.closed = asyncio.Event()  # the app's websocket closed
        self.received = 0  # bytes of screen data

    async def call(self, method: str, **params: Any) -> dict:
        return await self.browser.send(method, self.session, **params)

    def event(self, method: str, params: dict) -> None:
        if method == "Page.loadEventFired":
            self.loaded.set()
        elif method == "Network.webSocketFrameReceived" and params["response"]["opcode"] == 2:
            data = base64.b64decode(params["response"]["payloadData"])
            self.received += len(data)
            self.stream.feed(data)
        elif method == "Network.webSocketFrameSent" and params["response"]["opcode"] == 1:
            frame = json.loads(params["response"]["payloadData"])
            if frame and frame[0] == "resize":  # the size the page asked the app for: the screen's
                self.screen.resize(frame[1]["height"], frame[1]["width"])
        elif method == "Network.webSocketClosed":
            self.closed.set()

    async def go(self, url: str) -> None:
        self.loaded.clear()
        await self.call("Page.navigate", url=url)
        await asyncio.wait_for(self.loaded.wait(), 60)

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    async def click(self, selector: str) -> None:
        """Press a button of the page as a mouse would: a click at its middle."""
        box = await self.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                                  f".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
        self.loaded.clear()
        for kind in ("mousePressed", "mouseReleased"):
            await self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, *patterns: str, timeout: float = 60, step: str = "") -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.text()
            if all(re.search(p, shown) for p in patterns):
                return shown
            if time.monotonic() > deadline:
                raise TimeoutError(f"{step or patterns}: not on the browser's screen in {timeout:g} s:\n{shown}")
            await asyncio.sleep(0.1)

    async def keys(self, *keys: str) -> None:
        """Keys typed into the terminal: names of KEYS, `C-x` for ctrl+x, anything else as text."""
        await self.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
        for key in keys:
            if key in KEYS:
                name, code, vk, text = KEYS[key]
                await self._key(name, code, vk, text, 0)
            elif key.startswith("C-") and len(key) == 3:
                letter = key[2]
                await self._key(letter, f"Key{letter.upper()}", ord(letter.upper()), "", 2)
            else:
                await self.call("Input.insertText", text=key)
            await asyncio.sleep(0.05)

    async def _key(self, key: str, code: str, vk: int, text: str, modifiers: int) -> None:
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk,
                "modifiers": modifiers}
        await self.call("Input.dispatchKeyEvent", **down, **({"text": text} if text else {}))
        await self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk,
                        modifiers=modifiers)

    async def screenshot(self, path: Path) -> None:
        shot = await self.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))
