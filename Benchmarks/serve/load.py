#!/usr/bin/env python3
"""Load test for `transcribe serve`: N clients stream speech at real-time pace over the
vosk-compatible WebSocket, at the same time.

For every N it prints the sessions accepted and rejected (close 1013), the word error rate of
the accepted ones against the reference transcripts, the 50th and 95th percentile latency of the
final result after the end of the audio, and (with --pid) the server's CPU use and resident
memory over the run.

    python3 Benchmarks/serve/load.py --url ws://127.0.0.1:2700/ --clients 1 2 4 6 --pid PID

Each client sends the vosk config, then 0.2 s chunks of 16-bit PCM, one every 0.2 s of wall
time (as a microphone would), reading the one reply the server gives per chunk, then
`{"eof" : 1}`; the final-result latency is the time from sending eof to the reply to it.
"""

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import wave

import websockets

LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox"
CHUNK_SECONDS = 0.2


def load_references(directory):
    references = {}
    with open(os.path.join(directory, "transcription")) as lines:
        for line in lines:
            text, _, name = line.strip().rpartition(" (")
            words = [w for w in text.split() if w not in ("<s>", "</s>")]
            references[name.rstrip(")")] = words
    return references


SPELLED = {"mr": "mister", "mrs": "missus", "10": "ten"}


def normalized(words):
    """Words as the references spell them: lower case, hyphens as spaces, no punctuation, and
    the few spellings Moonshine writes differently (Mr. → mister, 10 → ten)."""
    result = []
    for word in " ".join(words).lower().replace("-", " ").split():
        word = "".join(c for c in word if c.isalnum() or c == "'")
        if word:
            result.append(SPELLED.get(word, word))
    return result


def word_errors(reference, hypothesis):
    """Levenshtein distance between two word lists (both normalized first)."""
    reference, hypothesis = normalized(reference), normalized(hypothesis)
    previous = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        current = [i]
        for j, hyp in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (ref != hyp)))
        previous = current
    return previous[-1]


def read_clip(path):
    with wave.open(path, "rb") as clip:
        assert clip.getnchannels() == 1 and clip.getsampwidth() == 2, path
        return clip.getframerate(), clip.readframes(clip.getnframes())


def process_times(pid):
    """The CPU seconds (user + system) a process has used, and its resident and peak memory."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss = peak = 0
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    return cpu, rss, peak


async def stream(url, rate, pcm, headers):
    """Streams one clip; returns ("ok", words, latency) or ("rejected", code, None)."""
    try:
        connection = await websockets.connect(url, additional_headers=headers, max_size=None)
    except websockets.exceptions.InvalidStatus as error:
        return "rejected", error.response.status_code, None
    async with connection as ws:
        try:
            await ws.send(json.dumps({"config": {"sample_rate": rate}}))
            step = int(rate * CHUNK_SECONDS) * 2
            start = time.monotonic()
            words = []
            for index, offset in enumerate(range(0, len(pcm), step)):
                delay = start + index * CHUNK_SECONDS - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                await ws.send(pcm[offset:offset + step])
                reply = json.loads(await ws.recv())
                words += reply.get("text", "").split()
            sent = time.monotonic()
            await ws.send('{"eof" : 1}')
            reply = json.loads(await ws.recv())
            latency = time.monotonic() - sent
            words += reply.get("text", "").split()
            return "ok", words, latency
        except websockets.exceptions.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            return "rejected" if code == 1013 else "closed", code, None


async def run_level(url, clips, references, clients, headers):
    names = sorted(clips)
    jobs = []
    for index in range(clients):
        name = names[index % len(names)]
        rate, pcm = clips[name]
        jobs.append((name, stream(url, rate, pcm, headers)))
    results = await asyncio.gather(*(job for _, job in jobs))
    accepted, rejected, closed, errors, words, latencies = 0, 0, 0, 0, 0, []
    for (name, _), (status, value, latency) in zip(jobs, results):
        if status == "ok":
            accepted += 1
            errors += word_errors(references[name], value)
            words += len(references[name])
            latencies.append(latency)
        elif status == "rejected":
            rejected += 1
        else:
            closed += 1
    return accepted, rejected, closed, (errors / words if words else None), latencies


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="ws://127.0.0.1:2700/")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--pid", type=int, help="the server's process id, for CPU and memory")
    parser.add_argument("--token", default=os.environ.get("TRANSCRIBE_TOKEN"))
    parser.add_argument("--librivox", default=LIBRIVOX)
    options = parser.parse_args()

    references = load_references(options.librivox)
    clips = {name: read_clip(os.path.join(options.librivox, name + ".wav"))
             for name in references}
    headers = {"Authorization": f"Bearer {options.token}"} if options.token else {}

    print("| clients | accepted | rejected | other closes | WER | final p50 (s) | final p95 (s) "
          "| server CPU (cores) | server RSS (MiB) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for clients in options.clients:
        before = process_times(options.pid) if options.pid else None
        started = time.monotonic()
        accepted, rejected, closed, wer, latencies = asyncio.run(
            run_level(options.url, clips, references, clients, headers))
        wall = time.monotonic() - started
        cpu = rss = "–"
        if options.pid:
            after = process_times(options.pid)
            cpu = f"{(after[0] - before[0]) / wall:.2f}"
            rss = f"{after[1]:.0f} (peak {after[2]:.0f})"
        fmt = lambda value: "–" if value is None else f"{value:.2f}"
        print(f"| {clients} | {accepted} | {rejected} | {closed} | "
              f"{'–' if wer is None else f'{wer:.1%}'} | {fmt(percentile(latencies, 0.5))} | "
              f"{fmt(percentile(latencies, 0.95))} | {cpu} | {rss} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
