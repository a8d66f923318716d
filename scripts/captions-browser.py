#!/usr/bin/env python3
"""Drives transcribe's live-captions page in headless Chromium and reports what it showed.

Chromium's fake microphone plays SPEECH.wav (in a loop) into the page. The script presses Start,
records every partial line and every finished line the page shows until a finished line contains
all the --expect words (or --timeout passes), presses Stop, waits for the page to settle, and
prints one JSON object on stdout:

  {"partials": [...], "finals": [...], "status": "...", "found": true, "seconds_to_final": 3.2,
   "console": [...]}

It exits 0 when it could drive the page (whatever the page showed; the caller judges it), 2 when
selenium, Chromium or chromedriver is missing, and 1 on any other failure.

  captions-browser.py --url http://127.0.0.1:2700/ --wav speech.wav --expect forward meters
"""

import argparse
import json
import shutil
import sys
import time

# Installed by scripts/install-dependencies.sh (Debian's chromium + chromium-driver).
CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
DRIVER_CANDIDATES = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]

RECORDER = """
window.__captions = {partials: [], finals: []};
const partial = document.getElementById('partial');
const finals = document.getElementById('finals');
new MutationObserver(() => {
  const text = partial.textContent.trim();
  const seen = window.__captions.partials;
  if (text !== '' && seen[seen.length - 1] !== text) seen.push(text);
}).observe(partial, {childList: true, characterData: true, subtree: true});
new MutationObserver(() => {
  window.__captions.finals = Array.from(finals.querySelectorAll('p')).map((p) => p.textContent);
}).observe(finals, {childList: true, subtree: true});
"""


def first_existing(paths):
    for path in paths:
        if shutil.which(path):
            return path
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the page, e.g. http://127.0.0.1:2700/")
    parser.add_argument("--wav", required=True, help="the speech the fake microphone plays")
    parser.add_argument("--expect", nargs="+", default=[], help="words a finished line must hold")
    parser.add_argument("--timeout", type=float, default=60, help="seconds to wait for them")
    arguments = parser.parse_args()

    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
    except ImportError:
        print("captions-browser: selenium is missing: python3 -m pip install selenium",
              file=sys.stderr)
        return 2
    chromium = first_existing(CHROMIUM_CANDIDATES)
    driver_path = first_existing(DRIVER_CANDIDATES)
    if chromium is None or driver_path is None:
        print("captions-browser: chromium or chromedriver is missing: "
              "apt-get install chromium chromium-driver", file=sys.stderr)
        return 2

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        "--use-file-for-fake-audio-capture=" + arguments.wav,
        "--autoplay-policy=no-user-gesture-required",
    ]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path: Selenium Manager never goes to the network for one.
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        driver.set_page_load_timeout(30)
        driver.get(arguments.url)
        driver.execute_script(RECORDER)
        toggle = driver.find_element(By.ID, "toggle")
        toggle.click()
        started = time.monotonic()
        expected = [word.lower() for word in arguments.expect]
        found = False
        seconds_to_final = None
        was_running = False
        while time.monotonic() - started < arguments.timeout:
            captions = driver.execute_script("return window.__captions;")
            for line in captions["finals"]:
                words = line.lower().split()
                if all(word in words for word in expected):
                    found = True
                    break
            if found:
                seconds_to_final = round(time.monotonic() - started, 2)
                break
            was_running = was_running or toggle.text == "Stop"
            status = driver.find_element(By.ID, "status")
            if status.get_attribute("data-kind") == "error" or (
                was_running and toggle.text == "Start"
            ):
                break  # the session ended by itself (refused or closed): nothing more will come
            time.sleep(0.1)
        if toggle.text == "Stop":
            toggle.click()
        # Stop sends {"eof" : 1}; the page says "Stopped." once the server closed the stream.
        settle = time.monotonic()
        while time.monotonic() - settle < 20:
            if toggle.text == "Start" and not toggle.get_attribute("disabled"):
                break
            time.sleep(0.1)
        captions = driver.execute_script("return window.__captions;")
        status = driver.find_element(By.ID, "status").text
        console = [entry.get("message", "") for entry in driver.get_log("browser")]
        print(json.dumps({
            "partials": captions["partials"],
            "finals": captions["finals"],
            "status": status,
            "found": found,
            "seconds_to_final": seconds_to_final,
            "console": console,
        }))
        return 0
    finally:
        driver.quit()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as error:  # report any selenium failure as one line, for the test's message
        print("captions-browser: %s: %s" % (type(error).__name__, error), file=sys.stderr)
        sys.exit(1)
