#!/usr/bin/env python3
"""What partial results cost a running `transcribe serve`: the server's CPU for a stream against
an upload of the same recording, for a real-time stream of speech and of silence, and Wyoming's
answer to a command sent all at once.

    python3 Benchmarks/partials/cost.py --url http://127.0.0.1:2700 --pid PID \
        [--wyoming tcp://127.0.0.1:10300] [--runs 3] [--streams 2 4] [--token T]

`Benchmarks/partials/run.sh` starts a server and runs this against it; see README.md next to it.
Prints one Markdown table row per measurement (with the date, the load average before it, the
binary and the serve options given by --binary and --options), then, with --streams, the table
of Benchmarks/serve/load.py. Progress goes to stderr.

The recording: pocketsphinx-testdata's five LibriVox clips (sorted by name) with 1.5 s of
digital silence before, between and after them (24.73 s of speech + 6 × 1.5 s = 33.73 s,
539,680 samples), 16 kHz mono 16-bit WAV made with sox; its reference is the clips' references
joined. The word error rate is Benchmarks/serve/load.py's (same normalization).
"""

import argparse
import asyncio
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ next to load.py
sys.path.insert(0, os.path.join(REPO, "Benchmarks", "serve"))

import load  # noqa: E402  (Benchmarks/serve/load.py: references, WER, /proc CPU)

VOSK_CLIENT = os.path.join(REPO, "scripts", "vosk_client.py")
LOAD = os.path.join(REPO, "Benchmarks", "serve", "load.py")
GOFORWARD = "/usr/share/pocketsphinx/test/data/goforward.raw"
GAP_SECONDS = 1.5
RATE = 16000


def log(message):
    print(f"cost.py: {message}", file=sys.stderr, flush=True)


# The audio


def sox(*arguments):
    subprocess.run(["sox", "-D", *arguments], check=True)


def make_audio(directory, librivox):
    """The recording (with its reference words), 10 s of digital silence and 10 s of very low
    noise, as 16 kHz mono 16-bit WAV files in `directory`."""
    references = load.load_references(librivox)
    names = sorted(references)
    gap = os.path.join(directory, "gap.wav")
    sox("-n", "-r", str(RATE), "-c", "1", "-b", "16", gap, "trim", "0", str(GAP_SECONDS))
    parts = [gap]
    for name in names:
        parts += [os.path.join(librivox, name + ".wav"), gap]
    recording = os.path.join(directory, "recording.wav")
    sox(*parts, "-r", str(RATE), "-c", "1", "-b", "16", recording)
    silence = os.path.join(directory, "silence.wav")
    sox("-n", "-r", str(RATE), "-c", "1", "-b", "16", silence, "trim", "0", "10")
    with wave.open(silence, "rb") as audio:
        assert not any(audio.readframes(audio.getnframes())), "silence.wav is not digital silence"
    # White noise peaking at -60 dBFS (-70 dBFS RMS): a quiet room through a cheap microphone.
    noise = os.path.join(directory, "noise.wav")
    subprocess.run(["sox", "-n", "-r", str(RATE), "-c", "1", "-b", "16", noise,
                    "synth", "10", "whitenoise", "vol", "0.001"], check=True)
    reference = [word for name in names for word in references[name]]
    return recording, reference, silence, noise


def seconds_of(path):
    if path.endswith(".raw"):
        return os.path.getsize(path) / (2 * RATE)
    with wave.open(path, "rb") as audio:
        return audio.getnframes() / audio.getframerate()


def samples_of(path):
    with wave.open(path, "rb") as audio:
        return audio.getnframes()


# The measurements: each returns a dict with wall, cpu (server CPU seconds), words (or None)
# and whatever else it knows.


def cpu_of(pid):
    return load.process_times(pid)[0]


def vosk(options, audio, realtime=False):
    """`scripts/vosk_client.py` on `audio`: the server's CPU while it ran, the words of the
    final results, and (real time) the client's --latency figures."""
    command = [sys.executable, VOSK_CLIENT, options.ws, audio]
    if realtime:
        command += ["--realtime", "--latency"]
    if options.token:
        command += ["--token", options.token]
    before = cpu_of(options.pid)
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - started
    cpu = cpu_of(options.pid) - before
    if done.returncode != 0:
        raise RuntimeError(f"vosk_client.py exited {done.returncode}: {done.stderr.strip()}")
    words, close, partials, results = [], None, 0, 0
    for line in done.stdout.splitlines():
        reply = json.loads(line)
        if "close" in reply:
            close = reply["close"]
        elif "partial" in reply:
            partials += bool(reply["partial"])
        elif "text" in reply:
            results += 1
            words += reply["text"].split()
    if close != 1000:
        raise RuntimeError(f"vosk stream closed with {close}: {done.stdout[-500:]}")
    latency = {}
    for line in done.stderr.splitlines():
        try:
            latency = json.loads(line)
        except ValueError:
            pass
    return {"wall": wall, "cpu": cpu, "words": words, "latency": latency,
            "partials": partials, "results": results}


def upload(options, audio):
    """`POST /v1/audio/transcriptions` with curl (multipart, model=whisper-1: the server's
    default engine, json): the server's CPU while it ran and the words of the answer."""
    command = ["curl", "-sS", "-H", "Expect:", "-o", "-", "-w", "\n%{http_code}",
               f"{options.url}/v1/audio/transcriptions",
               "-F", f"file=@{audio};type=audio/wav", "-F", "model=whisper-1",
               "-F", "response_format=json"]
    if options.token:
        command += ["-H", f"Authorization: Bearer {options.token}"]
    before = cpu_of(options.pid)
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - started
    cpu = cpu_of(options.pid) - before
    body, _, status = done.stdout.rpartition("\n")
    if done.returncode != 0 or status != "200":
        raise RuntimeError(f"upload: curl {done.returncode}, HTTP {status}: {body[:500]}"
                           f"{done.stderr.strip()}")
    return {"wall": wall, "cpu": cpu, "words": json.loads(body)["text"].split()}


async def wyoming_command(uri, pcm):
    """Home Assistant's sequence with the audio all at once: transcribe, audio-start, every
    100 ms chunk without waiting, audio-stop. Returns (seconds from audio-stop to the
    transcript, its text, whether the transcript came before audio-stop)."""
    from wyoming.asr import Transcribe, Transcript
    from wyoming.audio import AudioChunk, AudioStart, AudioStop
    from wyoming.client import AsyncClient
    from wyoming.error import Error

    async with AsyncClient.from_uri(uri) as client:
        got = {}

        async def reader():
            while True:
                event = await client.read_event()
                if event is None:
                    got["error"] = "the server closed the connection"
                    return
                if Error.is_type(event.type):
                    got["error"] = Error.from_event(event).text
                    return
                if Transcript.is_type(event.type):
                    got["at"] = time.monotonic()
                    got["text"] = Transcript.from_event(event).text
                    return

        reading = asyncio.create_task(reader())
        await client.write_event(Transcribe(language="en").event())
        await client.write_event(AudioStart(RATE, 2, 1).event())
        step = RATE * 2 // 10
        for position in range(0, len(pcm), step):
            await client.write_event(AudioChunk(RATE, 2, 1, pcm[position:position + step]).event())
        stopped = time.monotonic()
        early = reading.done()
        if not early:
            await client.write_event(AudioStop().event())
        await asyncio.wait_for(reading, 60)
        if "error" in got:
            raise RuntimeError(f"wyoming: {got['error']}")
        return max(0.0, got["at"] - stopped), got["text"], early


def wyoming_burst(options, runs):
    with open(GOFORWARD, "rb") as raw:
        pcm = raw.read()
    latencies, texts, early = [], [], 0
    before = cpu_of(options.pid)
    started = time.monotonic()
    for _ in range(runs):
        latency, text, was_early = asyncio.run(wyoming_command(options.wyoming, pcm))
        latencies.append(latency)
        texts.append(text)
        early += was_early
    wall = time.monotonic() - started
    cpu = cpu_of(options.pid) - before
    return {"latencies": latencies, "texts": texts, "early": early, "wall": wall, "cpu": cpu}


# The table


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def loadavg():
    with open("/proc/loadavg") as averages:
        return " ".join(averages.read().split()[:3])


def fmt(value, digits=2):
    return "–" if value is None else f"{value:.{digits}f}"


def wer_of(reference, words):
    if words is None:
        return None
    return load.word_errors(reference, words) / len(reference)


class Table:
    COLUMNS = ["date (UTC)", "load before", "binary", "serve options", "measurement", "runs",
               "wall (s)", "server CPU (s)", "CPU / audio s", "WER", "result"]

    def __init__(self, options):
        self.options = options
        print("| " + " | ".join(self.COLUMNS) + " |")
        print("|" + "---|" * len(self.COLUMNS), flush=True)

    def row(self, date, load_before, measurement, runs, wall, cpu, per_audio, wer, result):
        cells = [date, load_before, f"`{self.options.binary}`", f"`{self.options.options}`",
                 measurement, str(runs), fmt(wall), fmt(cpu), fmt(per_audio, 3),
                 "–" if wer is None else f"{wer:.1%}", result]
        print("| " + " | ".join(cells) + " |", flush=True)


def ratio(numerator, denominator):
    return f"{numerator / denominator:.2f}×" if denominator else "–"


def median_of(results, key):
    return statistics.median(result[key] for result in results)


def each(results, key, digits=2):
    return " / ".join(f"{result[key]:.{digits}f}" for result in results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server's http://HOST:PORT")
    parser.add_argument("--pid", type=int, required=True, help="the server's process id")
    parser.add_argument("--wyoming", help="the server's Wyoming tcp://HOST:PORT (else no burst)")
    parser.add_argument("--runs", type=int, default=3,
                        help="runs of the fast stream and of the upload (median)")
    parser.add_argument("--realtime-runs", type=int, default=1,
                        help="runs of each real-time stream (median)")
    parser.add_argument("--wyoming-runs", type=int, default=10)
    parser.add_argument("--streams", type=int, nargs="*", default=[],
                        help="then K concurrent real-time streams with Benchmarks/serve/load.py")
    parser.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                        help="skip the unreported upload and stream that load the decoders")
    parser.add_argument("--token", default=os.environ.get("TRANSCRIBE_TOKEN"))
    parser.add_argument("--librivox", default=load.LIBRIVOX)
    parser.add_argument("--binary", default="?", help="what to print as the binary")
    parser.add_argument("--options", default="?", help="what to print as the serve options")
    options = parser.parse_args()
    options.url = options.url.rstrip("/")
    options.ws = "ws://" + options.url.split("://", 1)[1] + "/"

    with tempfile.TemporaryDirectory(prefix="partials.") as directory:
        recording, reference, silence, noise = make_audio(directory, options.librivox)
        length = seconds_of(recording)
        log(f"recording: {length:.2f} s ({samples_of(recording)} samples), "
            f"{len(reference)} reference words")
        if options.warm_up:
            log("warm-up (not reported): an upload of the recording, a stream of goforward.raw")
            upload(options, recording)
            vosk(options, GOFORWARD)
        table = Table(options)
        name = f"the recording ({length:.2f} s)"

        # 2. The vosk stream, as fast as replies come.
        date, before = now(), loadavg()
        streams = []
        for run in range(options.runs):
            log(f"vosk stream as fast as replies come, run {run + 1} of {options.runs}")
            streams.append(vosk(options, recording))
        stream_wall, stream_cpu = median_of(streams, "wall"), median_of(streams, "cpu")
        table.row(date, before, f"vosk stream of {name}, each chunk when its reply came",
                  options.runs, stream_wall, stream_cpu, stream_cpu / length,
                  statistics.median(wer_of(reference, s["words"]) for s in streams),
                  f"CPU {each(streams, 'cpu')} s; wall {each(streams, 'wall')} s; "
                  f"{streams[0]['partials']} non-empty partials, {streams[0]['results']} results")

        # 3. The same recording as an upload.
        date, before = now(), loadavg()
        uploads = []
        for run in range(options.runs):
            log(f"upload, run {run + 1} of {options.runs}")
            uploads.append(upload(options, recording))
        upload_wall, upload_cpu = median_of(uploads, "wall"), median_of(uploads, "cpu")
        table.row(date, before, f"upload of {name}, `POST /v1/audio/transcriptions`",
                  options.runs, upload_wall, upload_cpu, upload_cpu / length,
                  statistics.median(wer_of(reference, u["words"]) for u in uploads),
                  f"CPU {each(uploads, 'cpu')} s; wall {each(uploads, 'wall')} s")
        table.row(date, before, "stream / upload (medians)", options.runs, None, None, None, None,
                  f"**wall {ratio(stream_wall, upload_wall)}** (issue 35's target ≤ 1.5); "
                  f"CPU {ratio(stream_cpu, upload_cpu)}")

        # 4. One real-time stream of the recording; 5. of silence and of low noise.
        for label, audio, target in (
                (f"vosk stream of {name}, real time", recording, "≤ 0.2"),
                ("vosk stream of 10 s of digital silence, real time", silence, "≈ 0"),
                ("vosk stream of 10 s of white noise at −70 dBFS RMS, real time", noise, "≈ 0")):
            date, before = now(), loadavg()
            runs = []
            for run in range(options.realtime_runs):
                log(f"{label}, run {run + 1} of {options.realtime_runs}")
                runs.append(vosk(options, audio, realtime=True))
            seconds = seconds_of(audio)
            cpu = median_of(runs, "cpu")
            final = [r["latency"].get("final_ms") for r in runs]
            result = f"**{cpu / seconds:.3f} CPU s per audio s** (target {target})"
            if None not in final:
                result += (f"; last words {statistics.median(final) / 1000:.2f} s after eof; "
                           f"replies p95 {statistics.median(r['latency']['p95_ms'] for r in runs):.0f} ms")
            if audio == recording:
                wer = statistics.median(wer_of(reference, r["words"]) for r in runs)
            else:
                wer = None
                heard = " ".join(runs[0]["words"])
                result += f"; words heard: {heard!r}" if heard else "; no words"
            table.row(date, before, label, options.realtime_runs, median_of(runs, "wall"), cpu,
                      cpu / seconds, wer, result)

        # 6. Wyoming, goforward.raw all at once.
        if options.wyoming:
            date, before = now(), loadavg()
            log(f"Wyoming burst, {options.wyoming_runs} commands")
            burst = wyoming_burst(options, options.wyoming_runs)
            latencies = burst["latencies"]
            texts = sorted(set(burst["texts"]))
            command_seconds = seconds_of(GOFORWARD)
            cpu = burst["cpu"] / options.wyoming_runs
            table.row(date, before,
                      f"Wyoming, goforward.raw ({command_seconds:.2f} s) all at once, "
                      "audio-stop → transcript", options.wyoming_runs,
                      burst["wall"] / options.wyoming_runs, cpu, cpu / command_seconds, None,
                      f"**median {statistics.median(latencies):.3f} s** (target ≤ 0.3), "
                      f"max {max(latencies):.3f} s; {burst['early']} before audio-stop; "
                      f"text: {' / '.join(repr(t) for t in texts)}")

    # 7. Concurrent real-time streams: Benchmarks/serve/load.py's own table.
    if options.streams:
        log(f"{' '.join(map(str, options.streams))} concurrent real-time streams (load.py)")
        print(f"\nConcurrent real-time streams (Benchmarks/serve/load.py), {now()}, load before "
              f"{loadavg()}, `{options.binary}`, `{options.options}`:\n", flush=True)
        command = [sys.executable, LOAD, "--url", options.ws, "--pid", str(options.pid),
                   "--librivox", options.librivox,
                   "--clients", *map(str, options.streams)]
        if options.token:
            command += ["--token", options.token]
        subprocess.run(command, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
