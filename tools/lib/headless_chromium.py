"""Headless Chromium driven over the DevTools protocol through a pipe (--remote-debugging-pipe: commands in on
file descriptor 3, replies and events out on 4, each a JSON object ended by a NUL byte), so that no port is
opened and only the standard library is needed. Used by the history page's browser test and
tools/bench-history-page.

    with Browser(chromium_path(), width=1400, height=900) as browser:
        page = browser.new_page()
        page.navigate("file:///tmp/page/index.html")
        page.evaluate("document.title")
        page.errors   # console errors, uncaught exceptions and failed loads seen so far
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def chromium_path():
    """Debian's chromium (or Google's), or None where none is installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(Exception):
    pass


class Browser:
    """A headless Chromium of its own (a fresh profile in a temporary folder), ended on exit."""

    def __init__(self, executable, width=1400, height=900, timeout=60.0):
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="k25-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def child_fds():  # after fork, before exec: the pipe's ends as 3 and 4 (pass_fds keeps them open)
            os.dup2(to_browser_read, 3)
            os.dup2(from_browser_write, 4)

        args = [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--remote-debugging-pipe", f"--user-data-dir={self._profile}", f"--window-size={width},{height}",
                "about:blank"]
        self._process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, preexec_fn=child_fds,
                                         pass_fds=(3, 4))
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self.events = []  # every event received, in order: (session id, method, params)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._process.poll() is None:
            try:
                self.send("Browser.close", timeout=10)
            except (BrowserError, OSError):
                pass
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from chromium in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError(f"chromium closed its pipe (exit {self._process.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=None):
        """Sends one command and returns its result; events that arrive meanwhile are kept in self.events."""
        self._next_id += 1
        command = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            command["sessionId"] = session
        os.write(self._to_browser, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            message = self._read_message(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append((message.get("sessionId"), message["method"], message.get("params", {})))

    def wait_event(self, method, session=None, timeout=None, since=0):
        """The first event `method` (of `session`) at or after index `since` of self.events, waiting for it."""
        deadline = time.monotonic() + (timeout or self.timeout)
        index = since
        while True:
            while index < len(self.events):
                event_session, event_method, params = self.events[index]
                index += 1
                if event_method == method and (session is None or event_session == session):
                    return params
            message = self._read_message(deadline)
            if "method" in message:
                self.events.append((message.get("sessionId"), message["method"], message.get("params", {})))

    def new_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session, target)
        for domain in ("Runtime", "Log", "Page"):
            page.send(f"{domain}.enable")
        return page


class Page:
    """One tab, attached in flat mode."""

    def __init__(self, browser, session, target):
        self.browser = browser
        self.session = session
        self.target = target

    def close(self):
        self.browser.send("Target.closeTarget", {"targetId": self.target})

    def send(self, method, params=None, timeout=None):
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def navigate(self, url, timeout=None):
        """Loads `url` and waits for its load event."""
        since = len(self.browser.events)
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"{url}: {result['errorText']}")
        self.browser.wait_event("Page.loadEventFired", self.session, timeout, since)

    def evaluate(self, expression, timeout=None):
        """The value of a JavaScript expression (returned by value: JSON-able)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, timeout)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:60]}...: {result['exceptionDetails'].get('text')} "
                               f"{result['exceptionDetails'].get('exception', {}).get('description', '')}")
        return result["result"].get("value")

    def click(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def screenshot(self, path):
        """The whole page (beyond the window) as a PNG file."""
        metrics = self.send("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        data = self.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})["data"]
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))

    @property
    def errors(self):
        """Console errors, uncaught exceptions and failed loads of this page so far, one line each."""
        found = []
        for session, method, params in self.browser.events:
            if session != self.session:
                continue
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append("exception: " + details.get("exception", {}).get("description", details.get("text", "")))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                           for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                found.append(f"log: {entry.get('text')} {entry.get('url', '')}".strip())
        return found
