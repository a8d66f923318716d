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
import sys
import tempfile
import time

CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
DRIVER_CANDIDATES = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]

# Runs before the page's own script: notes when each WebSocket text message arrives, when the
# first transcript.text.delta of an upload arrives, when the captions change, and the frame after
# each change (when the words are on the screen).
PROBE = """
window.__probe = {messages: [], changes: []};
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(...args) {
    super(...args);
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
document.addEventListener('DOMContentLoaded', () => {
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
});
"""

READ_PAGE = """
const lines = Array.from(document.querySelectorAll('#finals .line')).map((row) => ({
  time: row.querySelector('time').textContent, text: row.querySelector('p').textContent,
  shown: getComputedStyle(row).display !== 'none'}));
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
    def __init__(self, arguments, webdriver, service_type, by, keys):
        self.arguments = arguments
        self.by = by
        self.keys = keys
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
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name in os.listdir(self.downloads):
                if name.endswith("." + extension):
                    with open(os.path.join(self.downloads, name), encoding="utf-8") as file:
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
    page.driver.find_element(page.by.ID, "file").send_keys("\n".join(arguments.file))
    started = time.monotonic()
    progress = []
    statuses = []
    deadline = started + arguments.timeout
    state = page.read()
    while time.monotonic() < deadline:
        state = page.read()
        if state["progress"] is not None and (not progress or progress[-1] != state["progress"]):
            progress.append(state["progress"])
        if state["fileStatus"] and (not statuses or statuses[-1] != state["fileStatus"]):
            statuses.append(state["fileStatus"])
        items = state["fileItems"]
        if state["files"] == "idle" and len(items) == len(arguments.file) and all(
                ": done," in item or state["fileStatusKind"] == "error" for item in items):
            break
        time.sleep(0.02)
    marks = page.driver.execute_script(
        "return performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]);")
    probe = page.driver.execute_script("return window.__probe;")
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


SCENARIOS = {
    "live": scenario_live, "file": scenario_file, "reconnect": scenario_reconnect,
    "overlay": scenario_overlay, "subtitles": scenario_subtitles, "refused": scenario_refused,
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
    parser.add_argument("--transcript", help="a stored transcript to load (subtitles scenario)")
    arguments = parser.parse_args()
    arguments.expect = [word.lower() for word in arguments.expect]

    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
    except ImportError:
        print("captions-page: selenium is missing: python3 -m pip install selenium",
              file=sys.stderr)
        return 2
    if first_existing(CHROMIUM_CANDIDATES) is None or first_existing(DRIVER_CANDIDATES) is None:
        print("captions-page: chromium or chromedriver is missing: "
              "apt-get install chromium chromium-driver", file=sys.stderr)
        return 2

    page = Page(arguments, webdriver, Service, By, Keys)
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
