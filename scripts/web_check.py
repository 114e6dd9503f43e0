#!/usr/bin/env python3
"""Plays a built web page in headless Chromium and checks what it shows.

    scripts/web_check.py PAGE_DIR --expect-frame --screenshot OUT.png
    scripts/web_check.py PAGE_DIR --expect-message "needs WebGPU" --no-webgpu
    scripts/web_check.py PAGE_DIR --hold KeyW --seconds 5 --print-hud --save-recording OUT.ron
    scripts/web_check.py PAGE_DIR --path "?replay=run.ron" --expect-replay "^identical"
    scripts/web_check.py PAGE_DIR --file --expect-message "served by a web server"
    scripts/web_check.py PAGE_DIR --insecure --expect-message "HTTPS or localhost"

Serves PAGE_DIR on a free localhost port, opens it in Debian's `chromium`
(WebGPU through SwiftShader: no GPU needed) and drives it over the DevTools
protocol on a pipe (`--remote-debugging-pipe`: no WebSocket library needed).
Exits non-zero, saying why, when the page does not do what was expected,
and when the server answered a request with an error (a favicon's 404 too)
that --expect-404 does not name.
"""

import argparse
import base64
import functools
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time


class Browser:
    """Chromium driven over the DevTools protocol on fds 3 and 4."""

    def __init__(self, webgpu=True, flags_extra=()):
        to_browser_r, self._write = os.pipe()
        self._read, from_browser_w = os.pipe()
        self.profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
        flags = [
            "chromium", "--headless=new", "--remote-debugging-pipe",
            "--no-first-run", "--no-default-browser-check",
            "--no-sandbox", "--disable-gpu-watchdog", f"--user-data-dir={self.profile.name}",
            "--window-size=640,480", "--hide-scrollbars",
            "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        ]
        flags += list(flags_extra)
        flags += os.environ.get("KEEL_CHROMIUM_FLAGS", "").split()
        if webgpu:
            # WebGPU on SwiftShader's Vulkan: without it the GPU process has
            # no shared-image backing for a WebGPU canvas and loses the device.
            flags += ["--enable-unsafe-webgpu", "--enable-features=Vulkan",
                      "--use-vulkan=swiftshader"]
        else:
            flags += ["--disable-features=WebGPU", "--disable-webgpu"]

        def fds():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            flags + ["about:blank"], preexec_fn=fds, pass_fds=(3, 4),
            stdout=subprocess.DEVNULL, stderr=open(os.environ.get("KEEL_CHROMIUM_LOG", os.devnull), "w"))
        # pass_fds keeps 3 and 4 open in the child; close our copies of its ends.
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next = 0
        self._buffer = b""
        self.console = []
        self.session = None

    def close(self):
        self.process.kill()
        self.process.wait()
        self.profile.cleanup()

    def _send(self, method, params=None, session=True):
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        return self._next

    def _receive(self):
        while b"\0" not in self._buffer:
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message = json.loads(raw)
        if message.get("method") == "Runtime.consoleAPICalled":
            args = message["params"]["args"]
            self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
        if message.get("method") == "Runtime.exceptionThrown":
            self.console.append("exception: " + json.dumps(message["params"]["exceptionDetails"]))
        return message

    def call(self, method, params=None, session=True):
        wanted = self._send(method, params, session)
        while True:
            message = self._receive()
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def open(self, url):
        # The tab the browser opened with: a target made over it would be a
        # background tab, whose WebGPU canvas the browser does not present.
        targets = self.call("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        attached = self.call("Target.attachToTarget",
                             {"targetId": page["targetId"], "flatten": True}, session=False)
        self.session = attached["sessionId"]
        self.call("Runtime.enable")
        self.call("Page.enable")
        # The page's size exactly (the window's includes what headless keeps for itself).
        # A headless page is never the focused window: without this the
        # canvas gets no key events.
        self.call("Emulation.setFocusEmulationEnabled", {"enabled": True})
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 640, "height": 360, "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description", details.get("text")))
        return result.get("result", {}).get("value")

    def wait_for(self, expression, seconds):
        end = time.time() + seconds
        while time.time() < end:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.25)
        return None

    def key(self, code, down):
        key = code[3:].lower() if code.startswith("Key") else code
        self.call("Input.dispatchKeyEvent", {
            "type": "keyDown" if down else "keyUp", "code": code, "key": key,
            "windowsVirtualKeyCode": ord(key.upper()) if len(key) == 1 else 0,
        })

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def log_request(self, code="-", size="-"):
        # Every answer's status, for the errors check (server.statuses).
        self.server.statuses.append((self.path.split("?")[0], int(code)))


def read_png(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG."""
    import struct
    import zlib
    with open(path, "rb") as f:
        data = f.read()
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            if depth != 8 or color not in (2, 6):
                raise ValueError(f"{path}: only 8-bit RGB or RGBA PNGs")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        previous = line
        rgb = bytearray()
        for x in range(width):
            rgb += line[x * channels:x * channels + 3]
        rows.append(rgb)
    return width, height, rows


def compare(a_path, b_path):
    """Mean absolute difference per channel (0-255) and the share of pixels
    differing by more than 32 in some channel."""
    wa, ha, a = read_png(a_path)
    wb, hb, b = read_png(b_path)
    if (wa, ha) != (wb, hb):
        raise ValueError(f"sizes differ: {wa}x{ha} against {wb}x{hb}")
    total, far = 0, 0
    for ra, rb in zip(a, b):
        for x in range(0, len(ra), 3):
            d = [abs(ra[x + k] - rb[x + k]) for k in range(3)]
            total += sum(d)
            far += max(d) > 32
    return total / (wa * ha * 3), far / (wa * ha)


def serve(folder):
    handler = functools.partial(QuietHandler, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.statuses = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


MESSAGE = "(() => { const m = document.getElementById('message');" \
          " return m && m.className === 'shown' ? m.innerText : ''; })()"
FRAMES = "window.__keelFrames || 0"
SAVE_SHOWN = "!document.getElementById('save').hidden"
# An address that is not localhost, mapped to the local server: a page there
# is no secure context, as a plain-HTTP page on a LAN address is not.
INSECURE_HOST = "keel.test"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("page", nargs="?", help="the built page's folder")
    parser.add_argument("--images", nargs=2, metavar="PNG",
                        help="only compare two images (--mean, --far), no browser")
    parser.add_argument("--path", default="", help="what to open under the page's URL")
    parser.add_argument("--no-webgpu", action="store_true")
    parser.add_argument("--file", action="store_true",
                        help="open the page from file:// instead of serving it")
    parser.add_argument("--insecure", action="store_true",
                        help=f"open it over plain HTTP as http://{INSECURE_HOST}/, no secure context")
    parser.add_argument("--expect-404", action="append", default=[], metavar="PATH",
                        help="a path the server may answer 404 (any other error fails)")
    parser.add_argument("--expect-save-hidden", action="store_true",
                        help="fail if the Save recording button is shown (no step ran)")
    parser.add_argument("--expect-frame", action="store_true",
                        help="fail unless the page draws frames and shows no message")
    parser.add_argument("--expect-message", help="fail unless the page's message holds this")
    parser.add_argument("--screenshot")
    parser.add_argument("--hold", help="a key code held (KeyW) for --seconds")
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("--print-hud", action="store_true")
    parser.add_argument("--expect-hud", help="fail unless the HUD's text matches this regex")
    parser.add_argument("--save-recording",
                        help="write the run as the page's Save button would (with the HUD beside it)")
    parser.add_argument("--expect-replay", action="append", default=[],
                        help="(may be repeated) "
                        "fail unless the page's replay verdict (?replay=FILE) matches this regex")
    parser.add_argument("--expect-replay-hud",
                        help="fail unless the replay's verdict ends with this HUD line")
    parser.add_argument("--timeout", type=float, default=90.0)
    parser.add_argument("--compare", help="a PNG the screenshot must match (the native viewer's)")
    parser.add_argument("--mean", type=float, default=4.0,
                        help="most mean difference per channel (0-255) for --compare")
    parser.add_argument("--far", type=float, default=0.02,
                        help="most share of pixels off by more than 32 for --compare")
    args = parser.parse_args()
    if args.images:
        mean, far = compare(*args.images)
        print(f"{args.images[0]} against {args.images[1]}: mean difference {mean:.2f}, "
              f"{far * 100:.2f}% of pixels off by more than 32")
        if mean > args.mean or far > args.far:
            print("FAILED: the images differ", file=sys.stderr)
            sys.exit(1)
        return
    if not args.page:
        parser.error("a page folder, or --images")

    server = serve(args.page)
    port = server.server_address[1]
    url = f"http://127.0.0.1:{port}/{args.path}"
    extra = []
    if args.file:
        url = "file://" + os.path.abspath(os.path.join(args.page, "index.html")) + args.path
    elif args.insecure:
        url = f"http://{INSECURE_HOST}:{port}/{args.path}"
        # Kept on plain HTTP (no try of HTTPS first).
        extra += [f"--host-resolver-rules=MAP {INSECURE_HOST} 127.0.0.1",
                  "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable"]
    browser = Browser(webgpu=not args.no_webgpu, flags_extra=extra)
    failed = None
    try:
        browser.open(url)
        start = time.time()
        if args.expect_message:
            shown = browser.wait_for(
                f"(() => {{ const t = {MESSAGE}; return t && t !== 'Loading…' ? t : ''; }})()",
                args.timeout)
            print(f"message: {shown!r}")
            if not shown or args.expect_message not in shown:
                failed = f"expected a message holding {args.expect_message!r}, found {shown!r}"
            elif args.expect_save_hidden and browser.evaluate(SAVE_SHOWN):
                failed = "the page offers Save recording, though the game never ran a step"
        if args.expect_frame:
            drawn = browser.wait_for(f"{FRAMES} >= 3", args.timeout)
            message = browser.evaluate(MESSAGE)
            print(f"first frames after {time.time() - start:.1f} s")
            if not drawn or message:
                failed = f"no frames drawn (message: {message!r})"
        if args.hold and not failed:
            browser.key(args.hold, True)
            time.sleep(args.seconds)
            browser.key(args.hold, False)
        elif args.seconds and not failed:
            time.sleep(args.seconds)
        if args.expect_replay and not failed:
            verdict = browser.wait_for(
                f"(() => {{ const t = {MESSAGE}; return window.__keelReplay"
                f" || (t && t !== 'Loading…' ? t : ''); }})()", args.timeout)
            print("replay in the page:", verdict)
            unmatched = [r for r in args.expect_replay if not re.search(r, verdict or "", re.MULTILINE)]
            if unmatched:
                failed = f"the page's replay says {verdict!r}, not {unmatched[0]!r}"
            elif args.expect_replay_hud and args.expect_replay_hud not in (verdict or "").splitlines():
                failed = f"the page's replay ended without the HUD {args.expect_replay_hud!r}"
        # The HUD and the recording read in one evaluation: between two frames,
        # so the recording ends where the HUD's text was made.
        hud, recording = browser.evaluate(
            "[document.getElementById('hud').innerText,"
            f" {'window.__keelRecording()' if args.save_recording else 'null'}]")
        if args.print_hud or args.expect_hud:
            print("hud:", hud)
        if args.save_recording and not failed and not browser.evaluate(SAVE_SHOWN):
            failed = "the page played but does not show its Save recording button"
        if args.save_recording and not failed:
            with open(args.save_recording, "w") as f:
                f.write(recording)
            print(f"wrote {args.save_recording} ({len(recording)} bytes)")
        if args.expect_hud and not failed and not re.search(args.expect_hud, hud or ""):
            failed = f"the HUD shows {hud!r}, not {args.expect_hud!r}"
        if args.screenshot:
            browser.screenshot(args.screenshot)
            print(f"wrote {args.screenshot}")
        if args.compare and args.screenshot and not failed:
            mean, far = compare(args.screenshot, args.compare)
            print(f"against {args.compare}: mean difference {mean:.2f}, "
                  f"{far * 100:.2f}% of pixels off by more than 32")
            if mean > args.mean or far > args.far:
                failed = f"the page's pixels differ from {args.compare}"
    finally:
        for line in browser.console:
            print("console:", line)
        browser.close()
        server.shutdown()
    errors = [f"{path} (HTTP {code})" for path, code in server.statuses
              if code >= 400 and not (code == 404 and path.lstrip("/") in args.expect_404)]
    if errors and not failed:
        failed = "the server refused " + ", ".join(errors)
    if failed:
        print("FAILED:", failed, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
