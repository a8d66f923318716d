#!/usr/bin/env python3
"""Memory under structurally corrupt uploads (issue 29, row 10): uploads N WAV files mutated the
way a fuzzer mutates them (a header field set to 0 or 0xFFFFFFFF, the file truncated, bytes
inserted), alternating the engines, in rounds, and prints the server's RSS and descriptors after
each round. The mutations are seeded, so every round sends the same files: a bound on memory
means a later round adds (almost) nothing.

  python3 Benchmarks/serve/mutated_uploads.py --base http://127.0.0.1:PORT --pid PID \\
      --rounds 2 --count 1000

Needs the server started with both engines installed; prints one Markdown row per round.
"""

import argparse
import http.client
import random
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_process import descriptors, rss_mib  # noqa: E402

DATA = Path("/usr/share/pocketsphinx/test/data")

# Byte offsets of a canonical 44-byte WAV header's fields (RIFF size, fmt size, format, channels,
# rate, byte rate, block align, bits, data size), as 4- or 2-byte little-endian integers.
FIELDS = [(4, 4), (16, 4), (20, 2), (22, 2), (24, 4), (28, 4), (32, 2), (34, 2), (40, 4)]


def sources():
    """A few short real recordings as 16 kHz mono WAVs (sox), read into memory."""
    raw = [DATA / "goforward.raw", DATA / "numbers.raw", DATA / "something.raw"]
    files = []
    with tempfile.TemporaryDirectory() as directory:
        for index, path in enumerate(raw):
            wav = Path(directory) / f"{index}.wav"
            subprocess.run(
                ["sox", "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1",
                 str(path), str(wav)], check=True)
            files.append(wav.read_bytes())
    return files


def mutate(data, rng):
    """One structural mutation of a WAV file."""
    data = bytearray(data)
    kind = rng.randrange(4)
    if kind == 0:  # a header field to 0 or all ones
        offset, size = rng.choice(FIELDS)
        data[offset:offset + size] = (b"\0" if rng.random() < 0.5 else b"\xff") * size
    elif kind == 1:  # truncated anywhere, header included
        data = data[: rng.randrange(1, len(data))]
    elif kind == 2:  # random bytes inserted
        at = rng.randrange(len(data))
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    else:  # a field mutated and the file truncated
        offset, size = rng.choice(FIELDS)
        data[offset:offset + size] = struct.pack("<I", rng.getrandbits(32))[:size]
        data = data[: rng.randrange(44, len(data))]
    return bytes(data)


def upload(base, data, model):
    url = urllib.parse.urlparse(base)
    boundary = "mutatedboundary7f3a9c"
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n{model}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"m.wav\"\r\n"
        "Content-Type: audio/wav\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    connection.request(
        "POST", "/v1/audio/transcriptions", body=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument(
        "--fresh", action="store_true",
        help="new mutations every round (a new seed each), instead of the same files again")
    args = parser.parse_args()

    originals = sources()
    print(f"before: RSS {rss_mib(args.pid):.0f} MiB, {descriptors(args.pid)} fds", flush=True)
    print("| round | uploads so far | statuses | RSS MiB | fds | seconds |")
    print("|---|---|---|---|---|---|")
    total = 0
    for round_number in range(1, args.rounds + 1):
        rng = random.Random(args.seed + (round_number if args.fresh else 0))
        statuses = {}
        started = time.monotonic()
        for index in range(args.count):
            data = mutate(rng.choice(originals), rng)
            model = "moonshine" if index % 2 == 0 else "pocketsphinx"
            status = upload(args.base, data, model)
            statuses[status] = statuses.get(status, 0) + 1
        total += args.count
        summary = " ".join(f"{code}×{n}" for code, n in sorted(statuses.items()))
        print(
            f"| {round_number} | {total} | {summary} | {rss_mib(args.pid):.0f} | "
            f"{descriptors(args.pid)} | {time.monotonic() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
