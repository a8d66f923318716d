"""The captions page's numbers, measured in headless Chromium against a running
`transcribe serve` (Benchmarks/page/run.sh starts one). Run by hand, never as a test.

- live: Chromium's fake microphone plays goforward (0.5 s of silence before, 1.5 s after) in a
  loop; for each of --utterances utterances, the time from the WebSocket message with its first
  words arriving in the page to the animation frame after the page shows them
  (scripts/captions-page.py's probe). Reported: each, and the p95 (nearest rank).
- file: a --minutes-minute WAV of pocketsphinx-testdata's LibriVox clips (the same file
  Benchmarks/openai/first_delta.py uploads) chosen through the page's file input. From the
  upload's last byte (XHR upload `load`, the page's `captions:file-sent` mark): when the first
  `transcript.text.delta` arrives in the browser (XHR progress, the probe) and when the frame
  showing its line is drawn; the difference is what the page adds. The file is chosen once
  Chromium has settled after starting (captions-page.py --settle), and Chromium's CPU seconds
  during the upload and decoding are reported. For reference, first_delta.py's own client on
  the same server right after (last byte sent to the first delta, no browser running).
- size: the page as served, and its three sources.

  python3 Benchmarks/page/page_numbers.py --url http://127.0.0.1:2700 --runs 3
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import urllib.request
import wave

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks", "openai"))
import first_delta  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "captions-page.py")
RESOURCES = os.path.join(ROOT, "Sources", "TranscribeServer", "Resources")
GOFORWARD = "/usr/share/pocketsphinx/test/data/goforward.raw"


def page_run(scenario, url, wav, extra):
    result = subprocess.run(
        [sys.executable, SCRIPT, scenario, "--url", url, "--wav", wav, "--timeout", "300"] + extra,
        capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        sys.exit(f"page_numbers.py: captions-page.py {scenario} failed: {result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def p95(values):
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:2700")
    parser.add_argument("--utterances", type=int, default=5)
    parser.add_argument("--minutes", type=float, default=3)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    url = options.url.rstrip("/")
    work = tempfile.mkdtemp(prefix="page-numbers-")

    # Size.
    served = urllib.request.urlopen(url + "/").read()
    sources = {name: os.path.getsize(os.path.join(RESOURCES, name))
               for name in ["captions.html", "captions.js", "captions-worklet.js"]}
    print("## size\n")
    for name, size in sources.items():
        print(f"- {name}: {size:,} bytes")
    print(f"- together: {sum(sources.values()):,} bytes; the page as served (one response, "
          f"scripts inlined, settings filled in): {len(served):,} bytes\n")

    # Live.
    speech = os.path.join(work, "goforward.wav")
    subprocess.run(["sox", "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1",
                    GOFORWARD, speech, "pad", "0.5", "1.5"], check=True)
    live = page_run("live", url + "/", speech,
                    ["--expect", "forward", "--utterances", str(options.utterances)])
    delays = live["delays"][:options.utterances]
    print("## live: first words of each utterance, message in → frame shown\n")
    print("| utterance | delay (ms) |\n|---|---|")
    for index, delay in enumerate(delays, 1):
        print(f"| {index} | {delay * 1000:.1f} |")
    if delays:
        print(f"\np95 of {len(delays)}: {p95(delays) * 1000:.1f} ms (target ≤ 500 ms); "
              f"lines: {live['lines'][:3]}…\n")

    # File.
    long_wav = os.path.join(work, "long.wav")
    with open(long_wav, "wb") as file:
        file.write(first_delta.long_wav(first_delta.LIBRIVOX, options.minutes))
    with wave.open(long_wav) as check:
        seconds = check.getnframes() / check.getframerate()
    body, content_type = first_delta.multipart(open(long_wav, "rb").read(), "whisper-1")
    print(f"## file: {seconds:.0f} s WAV, first line after the upload's last byte\n")
    print("| run | page: first delta in (s) | page: first line shown (s) | shown − delta in (ms) "
          "| page: lines | Chromium CPU (s) | client alone: first delta (s) |\n"
          "|---|---|---|---|---|---|---|")
    delays, pages, clients = [], [], []
    for run in range(1, options.runs + 1):
        # Chromium settles first: the file is chosen in a page opened a while ago, not in a
        # browser still starting up beside the server (on 2 cores that start-up took 1.5 CPU
        # seconds from the server's first pieces and delayed the first delta by roughly 0.7 s).
        report = page_run("file", url + "/", speech, ["--file", long_wav, "--settle"])
        marks = dict(report["marks"])
        sent = marks["captions:file-sent"]
        delta_in = (report["first_delta_arrived"] - sent) / 1000
        shown = (report["first_line_painted"] - sent) / 1000
        client_first, _, _, _ = first_delta.run_once(url, body, content_type, None)
        delays.append(shown - delta_in)
        pages.append(shown)
        clients.append(client_first)
        print(f"| {run} | {delta_in:.3f} | {shown:.3f} | {(shown - delta_in) * 1000:.1f} | "
              f"{len(report['lines'])} | {report['chromium_cpu']:.2f} | {client_first:.3f} |")
        sys.stdout.flush()
    print(f"\nthe page's own delay, first delta in → its line shown: max "
          f"{max(delays) * 1000:.1f} ms (target ≤ 200 ms); first line after the last byte: page "
          f"median {statistics.median(pages):.3f} s, first_delta.py's client alone median "
          f"{statistics.median(clients):.3f} s")

if __name__ == "__main__":
    main()
