"""A small headless-Chromium driver on the DevTools protocol over ``--remote-debugging-pipe``
(standard library only: commands are JSON texts ending in a NUL byte, written to the browser's
fd 3; replies and events come back the same way on its fd 4).

    with Browser() as b:
        b.open("file:///tmp/run.html")
        b.evaluate("document.title")
        b.mouse_move(100, 200)
        png = b.screenshot()
        b.console_errors, b.exceptions, b.requests
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from typing import Any

SKIP_REASON = "chromium not installed (.ci/run installs Debian's chromium)"


def executable() -> str | None:
    """The Chromium program, or None."""
    return shutil.which("chromium")


class BrowserError(RuntimeError):
    """The browser failed a command or did not answer in time."""


class Browser:
    """One headless Chromium with one page (``width`` x ``height`` CSS pixels)."""

    def __init__(self, width: int = 1200, height: int = 900, timeout: float = 30.0) -> None:
        exe = executable()
        if exe is None:
            raise BrowserError(SKIP_REASON)
        self.timeout = timeout
        r_cmd, w_cmd = os.pipe()
        r_evt, w_evt = os.pipe()
        # keep the child's ends off 3 and 4, which dup2 overwrites
        child_r = fcntl.fcntl(r_cmd, fcntl.F_DUPFD, 10)
        child_w = fcntl.fcntl(w_evt, fcntl.F_DUPFD, 10)
        os.close(r_cmd)
        os.close(w_evt)

        def wire() -> None:
            os.dup2(child_r, 3)
            os.dup2(child_w, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--hide-scrollbars", "--disable-dev-shm-usage", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(child_r)
        os.close(child_w)
        self._w, self._r = w_cmd, r_evt
        self._buf = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.send("Target.attachToTarget",
                                     {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Runtime", "Page", "Network", "Log"):
                self.send(f"{domain}.enable")
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1,
                       "mobile": False})
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ protocol
    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._r], [], [], left)[0]:
                raise BrowserError("chromium did not answer in time")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed its DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one command; its result (events that arrive meanwhile are kept)."""
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if self.session and not method.startswith(("Target.", "Browser.")):
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method: str) -> dict[str, Any]:
        """The first event ``method`` (already received or the next to come)."""
        for ev in self.events:
            if ev["method"] == method:
                return ev
        deadline = time.monotonic() + self.timeout
        while True:
            ev = self._read(deadline)
            if "method" in ev:
                self.events.append(ev)
                if ev["method"] == method:
                    return ev

    # ------------------------------------------------------------------ the page
    def open(self, url: str) -> None:
        """Navigate to ``url`` and wait for its load event."""
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (JSON-able)."""
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": True})
        if "exceptionDetails" in res:
            raise BrowserError(f"{expression}: {res['exceptionDetails'].get('text')}")
        return res["result"].get("value")

    def mouse_move(self, x: float, y: float) -> None:
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})

    def screenshot(self) -> bytes:
        """A PNG of the viewport."""
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])

    @property
    def console_errors(self) -> list[str]:
        """Console messages of level error (``console.error``, failed loads, ...)."""
        out = []
        for ev in self.events:
            p = ev.get("params", {})
            if ev["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error",
                                                                                "assert"):
                out.append(" ".join(str(a.get("value", a.get("description")))
                                    for a in p.get("args", [])))
            elif ev["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(p["entry"].get("text", ""))
        return out

    @property
    def exceptions(self) -> list[str]:
        return [str(ev["params"]["exceptionDetails"]) for ev in self.events
                if ev["method"] == "Runtime.exceptionThrown"]

    @property
    def requests(self) -> list[str]:
        """The URL of every network request the page made."""
        return [ev["params"]["request"]["url"] for ev in self.events
                if ev["method"] == "Network.requestWillBeSent"]

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                try:
                    self.send("Browser.close")
                except (BrowserError, OSError):
                    pass
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            for fd in (self._w, self._r):
                try:
                    os.close(fd)
                except OSError:
                    pass

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
