#!/usr/bin/env python3
"""Opens HTML pages in headless Chromium through the DevTools protocol and fails on any console
error, uncaught exception or failed resource; optionally drives the report's A/B control once
(keyboard: the split slider and the F key) and zooms its first crop (Enter), and checks that the
page's state changed; saves a screenshot of each page.

    check_page.py --chromium chromium --out DIR PAGE[@ab] ...

PAGE@ab also drives the A/B control and the crop zoom, and checks that the report's sections
that tell both sides are drawn (budget line, baselines, labelled crops, where-each-wins map,
rate-distortion plot, metric definitions, the codecs' images) and that the page is under 10 MB. Standard library only: the WebSocket client is below.
Exit 0 when every page is clean, 1 otherwise (each problem printed), 2 on a usage error.
"""
import argparse
import base64
import json
import os
import pathlib
import re
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse

TIMEOUT = 60.0  # seconds for any one wait; a loaded 2-core machine is slow, but never this slow


class WebSocket:
    """The client side of RFC 6455, as much as the DevTools protocol needs: text frames, masked
    writes, fragmented and large reads, ping/pong and close."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                   "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("DevTools closed the connection during the handshake")
            head += chunk
        head, self.buffer = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError("DevTools refused the WebSocket: " + head.decode(errors="replace"))

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def receive(self):
        """The next whole text message."""
        message = b""
        while True:
            first, second = self._read(2)
            opcode, n = first & 0x0F, second & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if second & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x9:  # ping
                self._send_frame(0xA, payload)
                continue
            if opcode == 0x8:
                raise RuntimeError("DevTools closed the WebSocket")
            if opcode in (0x0, 0x1, 0x2):
                message += payload
                if first & 0x80:
                    return message.decode()


class Page:
    """One tab: commands by id, events kept in order."""

    def __init__(self, url):
        self.ws = WebSocket(url)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            message = json.loads(self.ws.receive())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)
        raise RuntimeError(f"no answer to {method} within {TIMEOUT} s")

    def wait_for(self, method):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            for event in self.events:
                if event["method"] == method:
                    return event
            message = json.loads(self.ws.receive())
            if "method" in message:
                self.events.append(message)
        raise RuntimeError(f"no {method} within {TIMEOUT} s")

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluating {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def key(self, key, code, key_code):
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=code,
                      windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code,
                      text=key if kind == "keyDown" and len(key) == 1 else "")


def start_chromium(binary, profile, window):
    """Chromium with DevTools on a free port; returns (process, browser WebSocket URL) once it
    prints the URL (the sign that it is listening)."""
    process = subprocess.Popen(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-extensions", "--disable-background-networking", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", f"--window-size={window}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + TIMEOUT
    seen = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 1.0)
        if not ready:
            if process.poll() is not None:
                break
            continue
        line = process.stderr.readline()
        if not line:
            break
        seen.append(line)
        match = re.search(r"DevTools listening on (ws://\S+)", line)
        if match:
            return process, match.group(1)
    process.kill()
    raise RuntimeError("Chromium did not start its DevTools server:\n" + "".join(seen[-20:]))


def problems_in(events):
    """Console errors, uncaught exceptions and failed loads among the page's events."""
    out = []
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            out.append(f"uncaught exception: {text}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            out.append(f"console.{params['type']}: {args}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            out.append(f"console error ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}")
        elif method == "Network.loadingFailed":
            out.append(f"failed resource: {params.get('errorText')} ({params.get('type', '')})")
        elif method == "Network.responseReceived" and params.get("response", {}).get("status", 200) >= 400:
            out.append(f"failed resource: HTTP {params['response']['status']} {params['response'].get('url')}")
    return out


def drive_ab(page):
    """Moves the split with the keyboard and flips the sides; returns problems."""
    before = page.evaluate("document.body.dataset.abState || ''")
    if not before:
        return ["the A/B control did not start (no body[data-ab-state])"]
    page.evaluate("document.getElementById('ab-split').focus()")
    page.key("ArrowLeft", "ArrowLeft", 37)
    moved = page.evaluate("document.body.dataset.abState")
    page.key("f", "KeyF", 70)
    flipped = page.evaluate("document.body.dataset.abState")
    out = []
    split = lambda state: re.search(r"split=(\d+)", state).group(1)
    sides = lambda state: re.search(r"a=(\d+);b=(\d+)", state).groups()
    if int(split(moved)) >= int(split(before)):
        out.append(f"ArrowLeft on the slider did not move the split: {before} -> {moved}")
    if sides(flipped) != tuple(reversed(sides(moved))):
        out.append(f"F did not swap A and B: {moved} -> {flipped}")
    print(f"  A/B: {before} -> {moved} -> {flipped}")
    return out


def drive_crops(page):
    """Zooms the first crop region with Enter on it; returns problems."""
    if not page.evaluate("!!document.querySelector('.crop-images')"):
        return ["the report has no crops (.crop-images)"]
    width = "document.querySelector('.crop-images img').getBoundingClientRect().width"
    before = page.evaluate(width)
    page.evaluate("document.querySelector('.crop-images').focus()")
    page.key("Enter", "Enter", 13)
    zoom = page.evaluate("document.querySelector('.crop-images').dataset.zoom")
    after = page.evaluate(width)
    print(f"  crop zoom: {before:.0f} px -> {after:.0f} px (zoom {zoom})")
    if zoom != "2" or abs(after - 2 * before) > 1:
        return [f"Enter on a crop did not zoom it to 2x: {before} px -> {after} px, zoom {zoom}"]
    return []


def check_sections(page):
    """The report's sections that tell both sides: each must be there and drawn (a size on screen);
    returns problems."""
    wanted = {
        "the budget line": ".run-notes .explain",
        "the baselines' explanation": ".baseline-notes .explain",
        "a crop labelled with its winner": ".crop[data-winner] .crop-verdict",
        "the full-size where-each-wins map": "img[alt='where each wins']",
        "the rate-distortion plot's curves": ".rate-plot svg polyline",
        "the rate-distortion plot's model point": ".rate-plot svg g[data-name='learned model'] circle",
        "the metric definitions": ".metric-notes .explain",
    }
    out = []
    for name, selector in wanted.items():
        box = page.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                            "if (!e) return null; const r = e.getBoundingClientRect(); "
                            "return [r.width, r.height]; })()")
        if not box:
            out.append(f"missing: {name} ({selector})")
        elif box[0] <= 0 or box[1] <= 0:
            out.append(f"not drawn: {name} ({selector}, {box[0]}x{box[1]})")
    # Which model ran and what the other encoding would cost: a run note of its own.
    model_line = page.evaluate("Array.from(document.querySelectorAll('.run-notes .explain'))"
                               ".some(e => e.textContent.trim().startsWith('Model:') && "
                               "e.textContent.includes('The other encoding') && e.getBoundingClientRect().height > 0)")
    if not model_line:
        out.append("missing: the model line with the other encoding's cost (.run-notes, 'Model:')")
    codecs = page.evaluate("Array.from(document.querySelectorAll('.side-by-side img')).map(i => i.alt)"
                           ".filter(a => a.includes(\"at the model's bytes\")).length")
    if codecs < 2:
        out.append(f"the JPEG and WebP at the model's bytes are not both shown ({codecs} found)")
    print(f"  sections: {len(wanted) + 1 - len(out)} of {len(wanted) + 1} drawn, {codecs} codec images")
    return out


def check(browser_ws, path, drive, out_dir):
    url = pathlib.Path(path).resolve().as_uri()
    target = Page(browser_ws)
    target_id = target.call("Target.createTarget", url="about:blank")["targetId"]
    port = urllib.parse.urlsplit(browser_ws).port
    page = Page(f"ws://127.0.0.1:{port}/devtools/page/{target_id}")
    for domain in ("Page", "Runtime", "Log", "Network"):
        page.call(f"{domain}.enable")
    page.call("Page.navigate", url=url)
    page.wait_for("Page.loadEventFired")
    # Images decode after load: wait until every image has its pixels (or has failed).
    deadline = time.monotonic() + TIMEOUT
    while not page.evaluate("Array.from(document.images).every(i => i.complete)"):
        if time.monotonic() > deadline:
            return ["images still loading after the time limit"]
        time.sleep(0.1)
    broken = page.evaluate("Array.from(document.images).filter(i => i.getAttribute('src') && "
                           "!i.naturalWidth).map(i => i.alt || i.src.slice(0, 60))")
    problems = [f"image failed to decode: {b}" for b in broken]
    if drive:
        problems += drive_ab(page)
        problems += drive_crops(page)
        problems += check_sections(page)
        size = os.path.getsize(path)
        if size > 10_000_000:
            problems.append(f"the page is {size} bytes, over 10 MB")
    shot = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    name = pathlib.Path(path).parent.name + "_" + pathlib.Path(path).stem + ".png"
    (pathlib.Path(out_dir) / name).write_bytes(base64.b64decode(shot["data"]))
    problems += problems_in(page.events)
    target.call("Target.closeTarget", targetId=target_id)
    print(f"  screenshot: {pathlib.Path(out_dir) / name}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--out", required=True, help="folder for the screenshots")
    parser.add_argument("--window", default="1400,1000", help="window size W,H (the screenshot's)")
    parser.add_argument("pages", nargs="+", help="HTML files; PAGE@ab also drives the A/B control")
    args = parser.parse_args()
    pathlib.Path(args.out).mkdir(parents=True, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="ff-chromium-")
    failed = False
    process = None
    try:
        process, browser_ws = start_chromium(args.chromium, profile, args.window)
        for spec in args.pages:
            path, _, mode = spec.partition("@")
            if not os.path.isfile(path):
                print(f"{path}: no such file")
                failed = True
                continue
            print(f"{path}:")
            problems = check(browser_ws, path, mode == "ab", args.out)
            for p in problems:
                print(f"  FAIL {p}")
            failed |= bool(problems)
            if not problems:
                print("  ok: no console errors, no failed resources")
    finally:
        if process:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(profile, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
