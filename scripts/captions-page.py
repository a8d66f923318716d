#!/usr/bin/env python3
"""Drives transcribe's captions page in headless Chromium through one scenario and reports what
the page did, as one JSON object on stdout (the caller judges it).

Chromium's fake microphone plays --wav (in a loop). Scenarios:

  live       Start; wait until a finished line holds the --expect words; read the microphone
             list, the engine line and the level meter; stop with the Space key; reload and read
             the lines again; screenshots of the page, of the caption view (the F key) and of
             the page in dark mode.
             Reports the page's delay: from each utterance's first words arriving on the
             WebSocket to the frame that shows them.
  file       Choose the --file files through the file input; follow the progress bar and the
             lines until every file is done; download the .srt; reload and read the lines again.
  reconnect  Start; once a finished line holds the words, print {"phase": "connected"} and wait
             for the caller to restart the server: the page must say it reconnects, connect by
             itself and show new lines below the earlier ones.
  overlay    Open ?view=overlay (which starts listening by itself) and wait for a line; report
             the background and the lines that show.
  refused    Start, and choose the --file files, on a server that refuses them (a token the
             page lacks): report what the page says.
  subtitles  Put --transcript (the page's stored form) in the browser's storage, reload, and
             download the .srt, .vtt and .txt the page makes of it.

  captions-page.py live --url http://127.0.0.1:2700/ --wav speech.wav --expect forward ten \
      --screenshots DIR

It exits 0 when it could drive the page, 2 when selenium, Chromium or chromedriver is missing,
and 1 on any other failure (one line on stderr).
"""

import argparse
import json
import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
import urllib.parse

CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
DRIVER_CANDIDATES = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]

# Runs before the page's own script: notes when each WebSocket text message arrives, when the
# first transcript.text.delta of an upload arrives, when the captions change, and the frame after
# each change (when the words are on the screen).
PROBE = """
window.__probe = {messages: [], changes: [], sockets: 0, sent: [], microphones: [],
  fileClicks: 0};
window.__tracks = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(...args) {
    super(...args);
    const socket = window.__probe.sockets;
    window.__probe.sockets += 1;
    const nativeSocketSend = this.send;
    this.send = (data) => {
      if (typeof data === 'string') window.__probe.sent.push({socket, data});
      return nativeSocketSend.call(this, data);
    };
    this.addEventListener('message', (event) => {
      if (typeof event.data === 'string') {
        window.__probe.messages.push({at: event.timeStamp, data: event.data});
      }
    });
  }
};
const nativeSend = XMLHttpRequest.prototype.send;
XMLHttpRequest.prototype.send = function (...args) {
  this.addEventListener('progress', (event) => {
    if (window.__probe.firstDelta === undefined
        && this.responseText.includes('transcript.text.delta')) {
      window.__probe.firstDelta = event.timeStamp;
    }
  });
  return nativeSend.apply(this, args);
};
// Each microphone the page opens: the device it asked for, the one it got, and its track.
if (navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
  const nativeGetUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = async (constraints) => {
    const stream = await nativeGetUserMedia(constraints);
    const track = stream.getAudioTracks()[0];
    const asked = constraints && constraints.audio && constraints.audio.deviceId;
    window.__probe.microphones.push({
      asked: asked ? asked.exact || null : null, got: track ? track.getSettings().deviceId : null,
      label: track ? track.label : null});
    window.__tracks.push(track);
    return stream;
  };
}
document.addEventListener('DOMContentLoaded', () => {
  const fileInput = document.getElementById('file');
  if (fileInput) fileInput.addEventListener('click', () => { window.__probe.fileClicks += 1; });
  const partial = document.getElementById('partial');
  const finals = document.getElementById('finals');
  const note = () => {
    const change = {
      at: performance.now(), partial: partial.textContent,
      finals: finals.querySelectorAll('.line').length, painted: null,
    };
    window.__probe.changes.push(change);
    requestAnimationFrame(() => { change.painted = performance.now(); });
  };
  new MutationObserver(note).observe(partial, {childList: true, characterData: true, subtree: true});
  new MutationObserver(note).observe(finals, {childList: true, subtree: true});
  // Every value the files' progress bar and status line take, as they change (the harness
  // need not poll the page for them, which would take CPU from the server it measures).
  const progress = document.getElementById('file-progress');
  const fileStatus = document.getElementById('file-status');
  window.__probe.progress = [];
  window.__probe.fileStatuses = [];
  const noteProgress = () => {
    const list = window.__probe.progress;
    if (progress.hasAttribute('value') && !progress.hidden
        && list[list.length - 1] !== progress.value) {
      list.push(progress.value);
    }
  };
  const noteStatus = () => {
    const list = window.__probe.fileStatuses;
    const text = fileStatus.textContent;
    if (text && list[list.length - 1] !== text) list.push(text);
  };
  new MutationObserver(noteProgress).observe(progress, {attributes: true});
  new MutationObserver(noteStatus).observe(
    fileStatus, {childList: true, characterData: true, subtree: true});
});
"""

READ_PAGE = """
const lines = Array.from(document.querySelectorAll('#finals .line')).map((row) => ({
  time: row.querySelector('time').textContent, text: row.querySelector('p').textContent,
  shown: getComputedStyle(row).display !== 'none', title: row.title}));
const progress = document.getElementById('file-progress');
return {
  lines,
  partial: document.getElementById('partial').textContent,
  status: document.getElementById('status').textContent,
  statusKind: document.getElementById('status').dataset.kind || '',
  live: document.body.dataset.live || '',
  files: document.body.dataset.files || '',
  fileStatus: document.getElementById('file-status').textContent,
  fileStatusKind: document.getElementById('file-status').dataset.kind || '',
  fileItems: Array.from(document.querySelectorAll('#file-list li')).map((item) => item.textContent),
  progress: progress.hasAttribute('value') && !progress.hidden ? progress.value : null,
  toggle: document.getElementById('toggle').textContent,
  device: document.getElementById('device').value,
  sizeValue: document.getElementById('size').value,
  captionSize: document.documentElement.style.getPropertyValue('--caption-size'),
  storedTranscript: localStorage.getItem('transcribe.captions.transcript'),
  storedDevice: localStorage.getItem('transcribe.captions.device'),
  focused: document.activeElement ? document.activeElement.id || document.activeElement.tagName : '',
  dropOver: document.getElementById('drop').dataset.over || '',
  devices: Array.from(document.getElementById('device').options).map((option) => option.textContent),
  languages: document.getElementById('language-choice').hidden ? [] :
    Array.from(document.getElementById('language').options).map((option) => option.value),
  engine: document.getElementById('engine').textContent,
  level: Number(document.getElementById('level').value),
  view: document.body.dataset.view || '',
  htmlBackground: getComputedStyle(document.documentElement).backgroundColor,
  bodyBackground: getComputedStyle(document.body).backgroundColor,
};
"""


class PrefixProxy:
    """A reverse proxy that serves the server under a path prefix, as nginx's
    `location /captions/ { proxy_pass http://127.0.0.1:2700/; }` would: a request for
    PREFIX/rest goes to the server as /rest (PREFIX alone as /), WebSocket upgrades included;
    anything outside PREFIX gets 404 and is noted, so a page address that escapes the prefix
    shows. The Host header is passed on as the browser sent it (nginx's
    `proxy_set_header Host $host`)."""

    def __init__(self, upstream, prefix):
        self.upstream = upstream
        self.prefix = prefix.rstrip("/")
        self.seen = []
        self.outside = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    @staticmethod
    def _read_head(connection):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                return None, b""
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        return head.decode("latin-1").split("\r\n"), rest

    @staticmethod
    def _pipe(source, target):
        try:
            while True:
                chunk = source.recv(65536)
                if not chunk:
                    break
                target.sendall(chunk)
        except OSError:
            pass
        for connection, how in ((target, socket.SHUT_WR), (source, socket.SHUT_RD)):
            try:
                connection.shutdown(how)
            except OSError:
                pass

    def _serve(self, client):
        lines, rest = self._read_head(client)
        if not lines:
            client.close()
            return
        method, target, version = lines[0].split(" ", 2)
        path, mark, query = target.partition("?")
        headers = lines[1:]
        upgrade = any(line.lower().startswith("upgrade:") for line in headers)
        self.seen.append({"method": method, "path": path, "upgrade": upgrade})
        if path != self.prefix and not path.startswith(self.prefix + "/"):
            self.outside.append(method + " " + path)
            client.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
                           b"Connection: close\r\n\r\n")
            client.close()
            return
        inner = path[len(self.prefix):] or "/"
        if not upgrade:
            # One request per connection: the server closes it after answering.
            headers = [line for line in headers
                       if line.split(":", 1)[0].strip().lower() not in ("connection", "keep-alive")]
            headers.append("Connection: close")
        head = "\r\n".join([f"{method} {inner}{mark}{query} {version}"] + headers) + "\r\n\r\n"
        upstream = socket.create_connection(self.upstream)
        upstream.sendall(head.encode("latin-1") + rest)
        threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
        if not upgrade:
            # The answer's head says the connection closes, so the browser opens a new one.
            response, body = self._read_head(upstream)
            if response is None:
                client.close()
                upstream.close()
                return
            response = [line for line in response
                        if line.split(":", 1)[0].strip().lower() not in ("connection", "keep-alive")]
            client.sendall(("\r\n".join(response + ["Connection: close"]) + "\r\n\r\n")
                           .encode("latin-1") + body)
        self._pipe(upstream, client)
        client.close()
        upstream.close()

    def report(self):
        return {"requests": list(self.seen), "outside": list(self.outside)}


# The control with the focus, and whether a person can see which it is: the outline of the
# control (or of the drop zone around the file input, which is hidden itself).
FOCUSED = """
const element = document.activeElement;
if (!element || element === document.body) return {id: 'BODY'};
const shown = element.closest('.drop') || element;
const style = getComputedStyle(shown);
const box = shown.getBoundingClientRect();
return {
  id: element.id || element.tagName, focusVisible: element.matches(':focus-visible'),
  outlineStyle: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth) || 0,
  visible: box.width >= 8 && box.height >= 8 && style.visibility !== 'hidden',
};
"""


def words(text):
    return re.findall(r"[a-z0-9']+", text.lower())


def holds(lines, expected):
    return any(all(word in words(line["text"]) for word in expected) for line in lines)


def first_existing(paths):
    for path in paths:
        if shutil.which(path):
            return path
    return None


class Page:
    def __init__(self, arguments, webdriver, service_type, by, keys, action_chains, select):
        self.arguments = arguments
        self.by = by
        self.keys = keys
        self.action_chains = action_chains
        self.select = select
        self.proxy = None
        self.downloads = tempfile.mkdtemp(prefix="captions-downloads-")
        options = webdriver.ChromeOptions()
        options.binary_location = first_existing(CHROMIUM_CANDIDATES)
        for flag in [
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--window-size=1200,900",
            "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream",
            "--use-file-for-fake-audio-capture=" + arguments.wav,
            "--autoplay-policy=no-user-gesture-required",
        ]:
            options.add_argument(flag)
        options.add_experimental_option("prefs", {
            "download.default_directory": self.downloads,
            "download.prompt_for_download": False,
        })
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # An explicit driver path: Selenium Manager never goes to the network for one.
        self.driver = webdriver.Chrome(
            options=options,
            service=service_type(executable_path=first_existing(DRIVER_CANDIDATES)))
        self.driver.set_page_load_timeout(30)
        self.driver.execute_cdp_cmd(
            "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": self.downloads})
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
        # The asynchronous clipboard, as a person allows it; a file chooser opened from the
        # keyboard is noted by the page's probe and never shown.
        self.driver.execute_cdp_cmd("Browser.grantPermissions", {
            "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        self.driver.execute_cdp_cmd("Page.setInterceptFileChooserDialog", {"enabled": True})

    def open(self, url):
        self.driver.get(url)

    def read(self):
        return self.driver.execute_script(READ_PAGE)

    def wait(self, condition, timeout, step=0.05):
        """Polls the page until condition(state) holds or timeout passes; returns the last state."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.read()
            if condition(state) or time.monotonic() > deadline:
                return state
            time.sleep(step)

    def click(self, element_id):
        self.driver.find_element(self.by.ID, element_id).click()

    def key(self, key):
        """Presses a key with the focus on the page itself, not on a control."""
        self.driver.execute_script("document.activeElement && document.activeElement.blur();")
        self.driver.find_element(self.by.TAG_NAME, "body").send_keys(key)

    def chromium_cpu(self):
        """CPU seconds Chromium's processes (chromedriver's descendants) have used so far."""
        parents, times = {}, {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % name, encoding="utf-8") as file:
                    fields = file.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(name)] = int(fields[1])
            times[int(name)] = int(fields[11]) + int(fields[12])
        mine = {self.driver.service.process.pid}
        grew = True
        while grew:
            found = {pid for pid, parent in parents.items() if parent in mine} - mine
            grew = bool(found)
            mine |= found
        return sum(times.get(pid, 0) for pid in mine) / os.sysconf("SC_CLK_TCK")

    def settle(self, quiet=0.05, timeout=30):
        """Waits until Chromium has finished starting up (its processes use less than `quiet`
        CPU seconds in a second), as for a page a person opened a while ago; returns the
        seconds waited. A freshly started Chromium works for several seconds after the page
        has loaded, and on a small machine takes that from the server."""
        started = time.monotonic()
        used = self.chromium_cpu()
        while time.monotonic() - started < timeout:
            time.sleep(1)
            now = self.chromium_cpu()
            if now - used < quiet:
                break
            used = now
        return round(time.monotonic() - started, 1)

    def press(self, key):
        """Presses a key where the focus is, as a person at the keyboard would."""
        self.action_chains(self.driver).send_keys(key).perform()

    def focused(self):
        return self.driver.execute_script(FOCUSED)

    def tab_to(self, element_id, limit=40):
        """Presses Tab until the control `element_id` has the focus; False if it never does."""
        for _ in range(limit):
            if self.focused()["id"] == element_id:
                return True
            self.press(self.keys.TAB)
        return self.focused()["id"] == element_id

    def drag_file(self, element_id, path):
        """Drags the file at `path` from outside the browser onto the middle of `element_id`
        and drops it there (Chromium's own drag events, as a file manager's drag makes them).
        Returns the drop zone's `data-over` while the file was held over the page."""
        x, y = self.driver.execute_script(
            "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return [r.x + r.width / 2, r.y + r.height / 2];", element_id)
        data = {"items": [], "files": [path], "dragOperationsMask": 1}
        for kind in ("dragEnter", "dragOver"):
            self.driver.execute_cdp_cmd(
                "Input.dispatchDragEvent", {"type": kind, "x": x, "y": y, "data": data})
        over = self.read()["dropOver"]
        self.driver.execute_cdp_cmd(
            "Input.dispatchDragEvent", {"type": "drop", "x": x, "y": y, "data": data})
        return over

    def clipboard(self):
        return self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "navigator.clipboard.readText().then(done, (error) => done('error: ' + error));")

    def store_transcript(self, path):
        """Puts a stored transcript (the page's own form) in the browser's storage and
        reloads."""
        with open(path, encoding="utf-8") as file:
            stored = file.read()
        self.driver.execute_script(
            "localStorage.setItem('transcribe.captions.transcript', arguments[0]);", stored)
        self.open(self.arguments.url)
        return self.wait(lambda s: len(s["lines"]) > 0, 10)

    def screenshot(self, name):
        if self.arguments.screenshots:
            os.makedirs(self.arguments.screenshots, exist_ok=True)
            path = os.path.join(self.arguments.screenshots, name + ".png")
            self.driver.save_screenshot(path)
            return path
        return None

    def console(self):
        return [entry.get("message", "") for entry in self.driver.get_log("browser")]

    def downloaded(self, extension, timeout=10):
        # Chromium reserves the final name with an empty file while it writes to a
        # `.crdownload` beside it and renames that over the reservation when done: a file is
        # downloaded once it has bytes and no partial download is left.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            names = os.listdir(self.downloads)
            if not any(name.endswith(".crdownload") for name in names):
                for name in names:
                    path = os.path.join(self.downloads, name)
                    if name.endswith("." + extension) and os.path.getsize(path) > 0:
                        with open(path, encoding="utf-8") as file:
                            return name, file.read()
            time.sleep(0.05)
        return None, None

    def utterance_delays(self):
        """Seconds from each utterance's first words arriving to the frame that showed them."""
        probe = self.driver.execute_script("return window.__probe;")
        delays = []
        in_utterance = False
        for message in probe["messages"]:
            try:
                reply = json.loads(message["data"])
            except ValueError:
                continue
            text = reply.get("partial", reply.get("text"))
            if not isinstance(text, str):
                continue
            if "text" in reply:
                # A finished line ends the utterance; one that starts a line (no partial came
                # first) is its own first words.
                if not in_utterance and text.strip():
                    delays.append(self._shown_after(probe, message["at"], final=True))
                in_utterance = False
            elif text.strip() and not in_utterance:
                in_utterance = True
                delays.append(self._shown_after(probe, message["at"], final=False))
        return [delay for delay in delays if delay is not None]

    @staticmethod
    def _shown_after(probe, arrived, final):
        for change in probe["changes"]:
            if change["at"] < arrived or change["painted"] is None:
                continue
            if final or change["partial"].strip():
                return round((change["painted"] - arrived) / 1000, 4)
        return None

    def quit(self):
        self.driver.quit()
        shutil.rmtree(self.downloads, ignore_errors=True)


def start_and_wait(page, expected, timeout):
    page.click("toggle")
    started = time.monotonic()
    state = page.wait(
        lambda s: holds(s["lines"], expected) or s["statusKind"] == "error" and s["live"] == "idle",
        timeout)
    return state, round(time.monotonic() - started, 2)


def scenario_live(page, arguments):
    page.open(arguments.url)
    before = page.read()
    state, seconds = start_and_wait(page, arguments.expect, arguments.timeout)
    found = holds(state["lines"], arguments.expect)
    # More utterances, for the delays (the file plays in a loop).
    if found and arguments.utterances > 1:
        page.wait(lambda s: len(s["lines"]) >= arguments.utterances, arguments.timeout)
    listening = page.read()
    level = page.wait(lambda s: s["level"] > 0.05, 5)["level"]
    page.screenshot("page-live")
    # Space stops, as the Start button says.
    page.key(" ")
    stopped = page.wait(lambda s: s["live"] == "idle", 30)
    delays = page.utterance_delays()
    page.key("f")
    caption_view = page.wait(lambda s: s["view"] == "captions", 5)
    page.screenshot("caption-view")
    page.key(page.keys.ESCAPE)
    left = page.wait(lambda s: s["view"] == "", 5)
    page.open(arguments.url)
    reloaded = page.wait(lambda s: len(s["lines"]) >= len(stopped["lines"]), 10)
    # Dark, as a system set to dark asks for it.
    colour = "return getComputedStyle(document.body).color;"
    light_text = page.driver.execute_script(colour)
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    dark_text = page.driver.execute_script(colour)
    page.screenshot("page-dark")
    return {
        "text_colour_light": light_text, "text_colour_dark": dark_text,
        "found": found, "seconds_to_final": seconds if found else None,
        "devices_before_start": before["devices"], "devices": listening["devices"],
        "engine": listening["engine"], "languages": listening["languages"],
        "level": level, "status_listening": listening["status"],
        "lines": [line["text"] for line in stopped["lines"]],
        "times": [line["time"] for line in stopped["lines"]],
        "status": stopped["status"], "toggle": stopped["toggle"],
        "caption_view": caption_view["view"], "left_caption_view": left["view"] == "",
        "lines_after_reload": [line["text"] for line in reloaded["lines"]],
        "delays": delays,
    }


def scenario_file(page, arguments):
    page.open(arguments.url)
    settled = page.settle() if arguments.settle else None
    cpu = page.chromium_cpu()
    page.driver.find_element(page.by.ID, "file").send_keys("\n".join(arguments.file))
    # The probe notes the progress and the times; a look twice a second is enough to know
    # when the files are done.
    state = page.wait(lambda s: s["files"] == "idle" and len(s["fileItems"]) == len(arguments.file)
                      and all(": done," in item or s["fileStatusKind"] == "error"
                              for item in s["fileItems"]), arguments.timeout, step=0.5)
    cpu = round(page.chromium_cpu() - cpu, 2)
    marks = page.driver.execute_script(
        "return performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]);")
    probe = page.driver.execute_script("return window.__probe;")
    progress = probe["progress"]
    statuses = probe["fileStatuses"]
    first_delta = probe.get("firstDelta")
    shown = next((change["painted"] for change in probe["changes"]
                  if first_delta is not None and change["finals"] > 0
                  and change["painted"] is not None and change["at"] >= first_delta), None)
    page.screenshot("page-file")
    page.click("download-srt")
    name, srt = page.downloaded("srt")
    page.click("download-vtt")
    vtt_name, vtt = page.downloaded("vtt")
    page.open(arguments.url)
    reloaded = page.wait(lambda s: len(s["lines"]) >= len(state["lines"]), 10)
    return {
        "lines": [line["text"] for line in state["lines"]],
        "times": [line["time"] for line in state["lines"]],
        "progress": progress, "statuses": statuses, "files": state["files"],
        "file_items": state["fileItems"],
        "file_status_kind": state["fileStatusKind"],
        "srt_name": name, "srt": srt, "vtt_name": vtt_name, "vtt": vtt,
        "marks": marks,
        # The first delta's bytes arriving in the browser, and the frame showing its line (ms).
        "first_delta_arrived": first_delta, "first_line_painted": shown,
        # Seconds waited for Chromium to settle (--settle), and its CPU seconds while the files
        # were sent and decoded.
        "settled_after": settled, "chromium_cpu": cpu,
        "lines_after_reload": [line["text"] for line in reloaded["lines"]],
    }


def scenario_reconnect(page, arguments):
    page.open(arguments.url)
    state, _ = start_and_wait(page, arguments.expect, arguments.timeout)
    before = [line["text"] for line in state["lines"]]
    if not holds(state["lines"], arguments.expect):
        return {"connected": False, "before": before, "status": state["status"]}
    print(json.dumps({"phase": "connected"}), flush=True)
    dropped = page.wait(lambda s: s["live"] == "reconnecting", arguments.timeout)
    dropped_status = dropped["status"]
    count = len(dropped["lines"])
    back = page.wait(
        lambda s: s["live"] == "listening" and len(s["lines"]) > count
        and holds(s["lines"][count:], arguments.expect), arguments.timeout)
    page.screenshot("page-reconnected")
    page.click("toggle")
    stopped = page.wait(lambda s: s["live"] == "idle", 30)
    return {
        "connected": True, "before": before, "reconnecting": dropped["live"] == "reconnecting",
        "reconnecting_status": dropped_status, "back": back["live"] == "listening",
        "after": [line["text"] for line in back["lines"]],
        "new_lines": [line["text"] for line in back["lines"][count:]],
        "status": stopped["status"],
    }


def scenario_overlay(page, arguments):
    separator = "&" if "?" in arguments.url else "?"
    page.open(arguments.url + separator + "view=overlay")
    state = page.wait(lambda s: len(s["lines"]) >= 3, arguments.timeout)
    page.screenshot("overlay")
    shown = [line["text"] for line in state["lines"] if line["shown"]]
    return {
        "view": state["view"], "live": state["live"], "lines": len(state["lines"]),
        "shown": shown, "partial": state["partial"],
        "html_background": state["htmlBackground"], "body_background": state["bodyBackground"],
        "found": holds(state["lines"], arguments.expect),
    }


def scenario_refused(page, arguments):
    page.open(arguments.url)
    page.click("toggle")
    live = page.wait(lambda s: s["live"] == "idle" and s["statusKind"] == "error", arguments.timeout)
    page.driver.find_element(page.by.ID, "file").send_keys("\n".join(arguments.file))
    files = page.wait(lambda s: s["files"] == "idle" and s["fileItems"]
                      and s["fileStatusKind"] == "error", arguments.timeout)
    page.screenshot("page-refused")
    return {"status": live["status"], "status_kind": live["statusKind"], "live": live["live"],
            "toggle": live["toggle"], "file_items": files["fileItems"],
            "file_status_kind": files["fileStatusKind"]}


def scenario_subtitles(page, arguments):
    page.open(arguments.url)
    with open(arguments.transcript, encoding="utf-8") as file:
        stored = file.read()
    page.driver.execute_script(
        "localStorage.setItem('transcribe.captions.transcript', arguments[0]);", stored)
    page.open(arguments.url)
    state = page.wait(lambda s: len(s["lines"]) > 0, 10)
    page.click("download-srt")
    _, srt = page.downloaded("srt")
    page.click("download-vtt")
    _, vtt = page.downloaded("vtt")
    page.click("download-txt")
    _, txt = page.downloaded("txt")
    return {"lines": [line["text"] for line in state["lines"]], "srt": srt, "vtt": vtt, "txt": txt}


def wait_for_files(page, count, timeout):
    """Waits until `count` files are listed and none is waiting or being decoded."""
    return page.wait(lambda s: s["files"] == "idle" and len(s["fileItems"]) >= count and all(
        ": done," in item or s["fileStatusKind"] == "error" for item in s["fileItems"]), timeout)


def scenario_prefixed(page, arguments):
    # The page at the prefix itself (`/captions`, no slash): live words, through the proxy.
    page.open(arguments.url)
    state, _ = start_and_wait(page, arguments.expect, arguments.timeout)
    found = holds(state["lines"], arguments.expect)
    page.key(" ")
    stopped = page.wait(lambda s: s["live"] == "idle", 30)
    # And at the prefix with its slash (`/captions/`): a file.
    page.open(arguments.url + "/")
    page.driver.find_element(page.by.ID, "file").send_keys("\n".join(arguments.file))
    files = wait_for_files(page, len(arguments.file), arguments.timeout)
    page.screenshot("page-prefixed")
    return {
        "found": found, "lines": [line["text"] for line in stopped["lines"]],
        "status": stopped["status"], "engine": state["engine"],
        "file_items": files["fileItems"],
        "file_lines": [line["text"] for line in files["lines"]],
        "requests": page.proxy.report()["requests"], "outside": page.proxy.report()["outside"],
    }


def scenario_drop(page, arguments):
    page.open(arguments.url)
    # The first file onto the drop zone, the second onto the transcript.
    over_zone = page.drag_file("drop", arguments.file[0])
    first = wait_for_files(page, 1, arguments.timeout)
    over_elsewhere = page.drag_file("captions", arguments.file[1])
    both = wait_for_files(page, 2, arguments.timeout)
    page.screenshot("page-dropped")
    return {
        "over_zone": over_zone, "over_elsewhere": over_elsewhere,
        "over_after": both["dropOver"], "address": page.driver.current_url,
        "first_items": first["fileItems"], "file_items": both["fileItems"],
        "lines": [line["text"] for line in both["lines"]],
    }


def scenario_device(page, arguments):
    page.open(arguments.url)
    state, _ = start_and_wait(page, arguments.expect, arguments.timeout)
    if not holds(state["lines"], arguments.expect):
        return {"found": False, "status": state["status"]}
    choice = page.driver.find_element(page.by.ID, "device")
    options = [(option.get_attribute("value"), option.text)
               for option in page.select(choice).options]
    chosen = next(value for value, text in options if text == arguments.device)
    count = len(state["lines"])
    page.select(choice).select_by_value(chosen)
    switched = page.wait(
        lambda s: len(s["lines"]) > count and holds(s["lines"][count:], arguments.expect),
        arguments.timeout)
    probe = page.driver.execute_script("return window.__probe;")
    tracks = page.driver.execute_script("return window.__tracks.map((t) => t.readyState);")
    page.click("toggle")
    stopped = page.wait(lambda s: s["live"] == "idle", 30)
    page.open(arguments.url)
    reloaded = page.wait(lambda s: len(s["devices"]) > 1, 10)
    return {
        "found": True, "chosen": chosen, "options": [text for _, text in options],
        "live_after_switch": switched["live"],
        "new_lines": [line["text"] for line in switched["lines"][count:]],
        "microphones": probe["microphones"], "track_states": tracks,
        "sockets": probe["sockets"], "stored_device": stopped["storedDevice"],
        "status": stopped["status"], "device_after_reload": reloaded["device"],
    }


def scenario_language(page, arguments):
    page.open(arguments.url)
    state, _ = start_and_wait(page, arguments.expect, arguments.timeout)
    if not holds(state["lines"], arguments.expect):
        return {"found": False, "status": state["status"], "engine": state["engine"]}
    engine_before = state["engine"]
    count = len(state["lines"])
    page.select(page.driver.find_element(page.by.ID, "language")).select_by_value(
        arguments.language)
    switched = page.wait(
        lambda s: any(holds([line], arguments.expect_after)
                      for line in s["lines"][count:]), arguments.timeout)
    probe = page.driver.execute_script("return window.__probe;")
    page.click("toggle")
    stopped = page.wait(lambda s: s["live"] == "idle", 60)
    page.screenshot("page-language")
    return {
        "found": True, "engine_before": engine_before, "engine_after": switched["engine"],
        "live_after_switch": switched["live"],
        "new_lines": [{"text": line["text"], "title": line["title"]}
                      for line in switched["lines"][count:]],
        "sent": [{"socket": message["socket"], "data": message["data"]}
                 for message in probe["sent"]],
        "sockets": probe["sockets"], "status": stopped["status"],
        "stored_language": page.driver.execute_script(
            "return localStorage.getItem('transcribe.captions.language');"),
    }


def scenario_transcript(page, arguments):
    page.open(arguments.url)
    loaded = page.store_transcript(arguments.transcript)
    page.click("copy")
    copied = page.wait(lambda s: s["status"].startswith("Copied"), 10)
    clipboard = page.clipboard()
    page.click("download-txt")
    _, txt = page.downloaded("txt")
    # Clear asks first: refused, nothing goes; accepted, everything does.
    page.click("clear")
    alert = page.driver.switch_to.alert
    question = alert.text
    alert.dismiss()
    kept = page.read()
    page.click("clear")
    page.driver.switch_to.alert.accept()
    cleared = page.wait(lambda s: not s["lines"], 10)
    page.open(arguments.url)
    reloaded = page.wait(lambda s: s["lines"], 3)
    # With nothing to clear, Clear asks nothing.
    page.click("clear")
    try:
        asked_when_empty = page.driver.switch_to.alert.text
        page.driver.switch_to.alert.dismiss()
    except Exception:  # selenium's NoAlertPresentException: nothing asked
        asked_when_empty = None
    return {
        "lines": [line["text"] for line in loaded["lines"]], "copied_status": copied["status"],
        "clipboard": clipboard, "txt": txt, "question": question,
        "lines_after_refusal": len(kept["lines"]),
        "stored_after_refusal": kept["storedTranscript"] is not None,
        "lines_after_clear": len(cleared["lines"]), "status_after_clear": cleared["status"],
        "stored_after_clear": cleared["storedTranscript"],
        "lines_after_reload": len(reloaded["lines"]),
        "stored_after_reload": reloaded["storedTranscript"],
        "asked_when_empty": asked_when_empty,
    }


def scenario_keyboard(page, arguments):
    page.open(arguments.url)
    page.store_transcript(arguments.transcript)
    # Tab from the top of the page through every control, and round again.
    page.driver.execute_script("document.activeElement && document.activeElement.blur();")
    order = []
    for _ in range(40):
        page.press(page.keys.TAB)
        focus = page.focused()
        # Past the last control the focus leaves the page (to the browser's own controls).
        if focus["id"] == "BODY" or order and focus["id"] == order[0]["id"]:
            break
        order.append(focus)
    outcome = {"order": order}
    # Space on Start starts and, with the focus still there, stops; F there shows the
    # captions alone, with the focus on the way back.
    page.tab_to("toggle")
    count = len(page.read()["lines"])
    page.press(" ")
    listening = page.wait(lambda s: s["live"] == "listening"
                          and holds(s["lines"][count:], arguments.expect), arguments.timeout)
    outcome["listening"] = holds(listening["lines"][count:], arguments.expect)
    outcome["focus_while_listening"] = listening["focused"]
    page.press("f")
    view = page.wait(lambda s: s["view"] == "captions", 5)
    outcome["view_from_toggle"] = view["view"]
    outcome["focus_in_view"] = view["focused"]
    page.press(page.keys.ENTER)
    left = page.wait(lambda s: s["view"] == "", 5)
    outcome["view_after_leave"] = left["view"]
    outcome["focus_after_leave"] = left["focused"]
    page.tab_to("toggle")
    page.press(" ")
    stopped = page.wait(lambda s: s["live"] == "idle", 30)
    outcome["status_after_space"] = stopped["status"]
    outcome["focus_after_stop"] = stopped["focused"]
    # The size, with the arrow keys.
    page.tab_to("size")
    before = page.read()["sizeValue"]
    page.press(page.keys.ARROW_RIGHT)
    sized = page.wait(lambda s: s["sizeValue"] != before, 5)
    outcome["size"] = [before, sized["sizeValue"], sized["captionSize"]]
    # Another microphone, with the arrow keys.
    page.tab_to("device")
    before = page.read()["device"]
    page.press(page.keys.ARROW_DOWN)
    chosen = page.wait(lambda s: s["device"] != before, 5)
    outcome["device"] = [before, chosen["device"], chosen["storedDevice"]]
    # Enter on Copy all, Space on Download .txt.
    page.tab_to("copy")
    page.press(page.keys.ENTER)
    outcome["copy_status"] = page.wait(lambda s: s["status"].startswith("Copied"), 5)["status"]
    outcome["clipboard"] = page.clipboard()
    page.tab_to("download-txt")
    page.press(" ")
    outcome["txt_downloaded"] = page.downloaded("txt")[1] is not None
    # Space and Enter on the file input open the file chooser.
    page.tab_to("file")
    clicks = page.driver.execute_script("return window.__probe.fileClicks;")
    page.press(" ")
    page.press(page.keys.ENTER)
    time.sleep(0.3)
    outcome["file_chooser_opened"] = page.driver.execute_script(
        "return window.__probe.fileClicks;") - clicks
    # Enter on Full screen, Escape back.
    page.tab_to("full-screen")
    page.press(page.keys.ENTER)
    outcome["view_from_button"] = page.wait(lambda s: s["view"] == "captions", 5)["view"]
    page.press(page.keys.ESCAPE)
    escaped = page.wait(lambda s: s["view"] == "", 5)
    outcome["view_after_escape"] = escaped["view"]
    outcome["focus_after_escape"] = escaped["focused"]
    # Enter on Clear, and Enter again to confirm.
    page.tab_to("clear")
    page.press(page.keys.ENTER)
    alert = page.driver.switch_to.alert
    outcome["clear_question"] = alert.text
    alert.accept()
    outcome["lines_after_clear"] = len(page.wait(lambda s: not s["lines"], 5)["lines"])
    page.screenshot("page-keyboard")
    return outcome


SCENARIOS = {
    "live": scenario_live, "file": scenario_file, "reconnect": scenario_reconnect,
    "overlay": scenario_overlay, "subtitles": scenario_subtitles, "refused": scenario_refused,
    "prefixed": scenario_prefixed, "drop": scenario_drop, "device": scenario_device,
    "language": scenario_language, "transcript": scenario_transcript,
    "keyboard": scenario_keyboard,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--url", required=True, help="the page, e.g. http://127.0.0.1:2700/")
    parser.add_argument("--wav", required=True, help="the speech the fake microphone plays")
    parser.add_argument("--file", nargs="*", default=[], help="files to choose (file scenario)")
    parser.add_argument("--expect", nargs="*", default=[], help="words a finished line must hold")
    parser.add_argument("--utterances", type=int, default=1,
                        help="finished lines to wait for in the live scenario")
    parser.add_argument("--timeout", type=float, default=60, help="seconds to wait for each step")
    parser.add_argument("--screenshots", help="a directory for the screenshots")
    parser.add_argument("--transcript",
                        help="a stored transcript to load (subtitles, transcript, keyboard)")
    parser.add_argument("--prefix",
                        help="serve the page through a proxy under this path, e.g. /captions")
    parser.add_argument("--settle", action="store_true",
                        help="file scenario: let Chromium finish starting before choosing files")
    parser.add_argument("--device", help="the microphone to switch to (device scenario)")
    parser.add_argument("--language", help="the language to switch to (language scenario)")
    parser.add_argument("--expect-after", nargs="*", default=[],
                        help="words a line after the switch must hold (language scenario)")
    arguments = parser.parse_args()
    arguments.expect = [word.lower() for word in arguments.expect]
    arguments.expect_after = [word.lower() for word in arguments.expect_after]

    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.support.select import Select
    except ImportError:
        print("captions-page: selenium is missing: python3 -m pip install selenium",
              file=sys.stderr)
        return 2
    if first_existing(CHROMIUM_CANDIDATES) is None or first_existing(DRIVER_CANDIDATES) is None:
        print("captions-page: chromium or chromedriver is missing: "
              "apt-get install chromium chromium-driver", file=sys.stderr)
        return 2

    proxy = None
    if arguments.prefix:
        parts = urllib.parse.urlsplit(arguments.url)
        proxy = PrefixProxy((parts.hostname, parts.port), arguments.prefix)
        arguments.url = "http://127.0.0.1:%d%s" % (proxy.port, proxy.prefix)
    page = Page(arguments, webdriver, Service, By, Keys, ActionChains, Select)
    page.proxy = proxy
    try:
        report = SCENARIOS[arguments.scenario](page, arguments)
        report["console"] = page.console()
        print(json.dumps(report), flush=True)
        return 0
    finally:
        page.quit()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as error:  # report any selenium failure as one line, for the test's message
        print("captions-page: %s: %s" % (type(error).__name__, error), file=sys.stderr)
        sys.exit(1)
