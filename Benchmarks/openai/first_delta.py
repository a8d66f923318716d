"""How soon `stream=true` answers a long upload: the time from the upload's last byte to the
first `transcript.text.delta`, and to `transcript.text.done`, for an N-minute WAV made of
pocketsphinx-testdata's LibriVox clips. Run by hand (Benchmarks/openai/run.sh), never as a test.

  python3 Benchmarks/openai/first_delta.py --url http://127.0.0.1:8000 --minutes 10 --runs 3
"""

import argparse
import http.client
import io
import json
import os
import statistics
import sys
import time
import urllib.parse
import wave

LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox"


def long_wav(directory, minutes):
    """A 16 kHz mono WAV of `minutes` minutes: the clips in turn, 0.5 s of silence after each."""
    clips = []
    for name in sorted(os.listdir(directory)):
        if name.endswith(".wav"):
            with wave.open(os.path.join(directory, name), "rb") as clip:
                assert clip.getframerate() == 16000 and clip.getnchannels() == 1
                clips.append(clip.readframes(clip.getnframes()))
    if not clips:
        sys.exit(f"first_delta.py: no .wav clips in {directory} (install pocketsphinx-testdata)")
    gap = b"\0\0" * 8000
    target = int(minutes * 60 * 16000) * 2
    pcm = bytearray()
    index = 0
    while len(pcm) < target:
        pcm += clips[index % len(clips)] + gap
        index += 1
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(bytes(pcm[:target]))
    return buffer.getvalue()


def multipart(wav, model):
    boundary = "transcribe-benchmark-boundary"
    fields = [("model", model), ("stream", "true"), ("response_format", "json")]
    body = bytearray()
    for name, value in fields:
        body += (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        ).encode()
    body += (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="long.wav"\r\n'
        "Content-Type: audio/wav\r\n\r\n"
    ).encode()
    body += wav + f"\r\n--{boundary}--\r\n".encode()
    return bytes(body), f"multipart/form-data; boundary={boundary}"


def run_once(url, body, content_type, token):
    """(seconds to the first delta, seconds to done, deltas, the text's words) after the last
    byte of the upload went out."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    connection.putrequest("POST", "/v1/audio/transcriptions")
    connection.putheader("Content-Type", content_type)
    connection.putheader("Content-Length", str(len(body)))
    if token:
        connection.putheader("Authorization", f"Bearer {token}")
    connection.endheaders()
    view = memoryview(body)
    for start in range(0, len(view), 1 << 16):
        connection.send(view[start:start + (1 << 16)])
    sent = time.monotonic()
    response = connection.getresponse()
    if response.status != 200:
        sys.exit(f"first_delta.py: HTTP {response.status}: {response.read()[:300]!r}")
    first = None
    deltas = 0
    text = ""
    while True:
        line = response.readline()
        if not line:
            break
        line = line.strip()
        if not line.startswith(b"data:"):
            continue
        event = json.loads(line[5:])
        if event.get("type") == "transcript.text.delta":
            deltas += 1
            if first is None:
                first = time.monotonic() - sent
        elif event.get("type") == "transcript.text.done":
            text = event.get("text", "")
            break
    done = time.monotonic() - sent
    connection.close()
    return first, done, deltas, len(text.split())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", default="whisper-1")
    parser.add_argument("--token", default=os.environ.get("TRANSCRIBE_TOKEN"))
    parser.add_argument("--librivox", default=LIBRIVOX)
    options = parser.parse_args()

    wav = long_wav(options.librivox, options.minutes)
    body, content_type = multipart(wav, options.model)
    print(f"| run | upload (MiB) | first delta (s) | done (s) | deltas | words |")
    print("|---|---|---|---|---|---|")
    firsts = []
    for run in range(1, options.runs + 1):
        first, done, deltas, words = run_once(options.url, body, content_type, options.token)
        firsts.append(first if first is not None else float("inf"))
        shown = "none" if first is None else f"{first:.2f}"
        print(f"| {run} | {len(body) / 1048576:.1f} | {shown} | {done:.1f} | {deltas} | {words} |")
        sys.stdout.flush()
    print(f"\nfirst delta after the upload: median {statistics.median(firsts):.2f} s, "
          f"max {max(firsts):.2f} s (target ≤ 2 s)")


if __name__ == "__main__":
    main()
