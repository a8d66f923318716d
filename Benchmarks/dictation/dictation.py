#!/usr/bin/env python3
"""Dictation as a user has it: speech into the virtual microphone, text typed into a window.

  dictation.py latency --runs 20    last word spoken -> its utterance typed (goforward)
  dictation.py wer [--pause 0.8] [--engine whisper]
                                    the five LibriVox sentences, a 1.5 s pause inside each
  dictation.py cpu                  CPU while paused (speech playing) and while listening

Each run starts a private PulseAudio server with a virtual microphone (scripts/virtual-mic.sh),
an X server (Xvfb) with an xterm that writes what it receives to a file
(scripts/typing-targets.sh), and `transcribe dictate --typer xdotool` (TRANSCRIBE, default .build/release/transcribe). Needs
xvfb, xterm, xdotool, sox, pulseaudio (scripts/install-dependencies.sh). Prints one JSON line per
measurement and a summary. Run on a quiet machine (or say it was not).
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path("/usr/share/pocketsphinx/test/data")
RATE = 16000
# Where each LibriVox clip gets its pause: the end of a word near its middle (the same places as
# Tests/Support/LiveTestSupport/ThinkingPauses.swift).
BOUNDARIES = [("0870", 3.45), ("0880", 1.48), ("0890", 2.78), ("0920", 2.98), ("0930", 1.68)]


def run(*command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs).stdout


class Desktop:
    """A virtual microphone, and an xterm under Xvfb that writes what it receives to a file
    (scripts/typing-targets.sh)."""

    def __init__(self, directory: Path):
        self.directory = directory
        exports = run(str(ROOT / "scripts/virtual-mic.sh"), "start")
        self.env = dict(os.environ)
        for name, value in re.findall(r"export (\w+)=['\"]?([^'\"\n]*)", exports):
            self.env[name] = value
        self.targets = directory / "targets"
        self.targets.mkdir()
        values = dict(line.split("=", 1) for line in run(
            str(ROOT / "scripts/typing-targets.sh"), "x11", str(self.targets),
            str(os.getpid())).splitlines() if "=" in line)
        self.typed = Path(values.pop("TYPED"))
        for name in ("WAYLAND_DISPLAY", "DISPLAY"):
            self.env.pop(name, None)
        self.env.update(values)

    def play(self, path: Path):
        """Plays a file into the virtual microphone, returning when it was started."""
        started = time.monotonic()
        process = subprocess.Popen([str(ROOT / "scripts/virtual-mic.sh"), "play", str(path)],
                                   env=self.env, stdout=subprocess.DEVNULL)
        return started, process

    def text(self) -> str:
        raw = self.typed.read_bytes().decode("utf-8", "replace") if self.typed.exists() else ""
        text = ""
        for character in raw:
            if character in "\x7f\x08":
                text = text[:-1]
            else:
                text += character
        return text.replace("\r", "\n")

    def close(self):
        subprocess.run([str(ROOT / "scripts/typing-targets.sh"), "stop", str(self.targets)],
                       capture_output=True)
        subprocess.run([str(ROOT / "scripts/virtual-mic.sh"), "stop"], capture_output=True)


def dictate(desktop: Desktop, binary: str, *options: str,
            engine: str = "moonshine") -> subprocess.Popen:
    env = dict(desktop.env)
    env["XDG_RUNTIME_DIR"] = str(desktop.directory)
    process = subprocess.Popen([binary, "dictate", "--typer", "xdotool", "--engine", engine,
                                *options], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    time.sleep(4)  # the model loads and the microphone opens
    if process.poll() is not None:
        raise SystemExit(f"transcribe dictate ended: {process.stderr.read()}")
    return process


# Where goforward's last word ("meters") ends, in seconds: pocketsphinx's forced alignment, as
# Benchmarks/endpointing/make_set.py makes it (words[-1][3]).
GOFORWARD_LAST_WORD_END = 2.12


def summary(values):
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"n": len(values), "median_s": round(statistics.median(values), 3),
            "p95_s": round(p95, 3), "min_s": round(min(values), 3), "max_s": round(max(values), 3)}


def latency(arguments):
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        clip = directory / "goforward.wav"
        run("sox", "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1",
            str(DATA / "goforward.raw"), str(clip))
        end = GOFORWARD_LAST_WORD_END
        desktop = Desktop(directory)
        process = dictate(desktop, arguments.binary)
        values = []
        try:
            for index in range(arguments.runs):
                before = desktop.text().count(".")
                started, player = desktop.play(clip)
                due = started + end
                typed_at = None
                deadline = started + 15
                while time.monotonic() < deadline:
                    if desktop.text().count(".") > before:
                        typed_at = time.monotonic()
                        break
                    time.sleep(0.005)
                player.wait()
                if typed_at is None:
                    print(json.dumps({"run": index, "error": "nothing typed"}), flush=True)
                    continue
                values.append(typed_at - due)
                print(json.dumps({"run": index, "latency_s": round(typed_at - due, 3)}), flush=True)
                time.sleep(1.5)
            print(json.dumps({"summary": summary(values), "typed": desktop.text()[-200:]}))
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=20)
            desktop.close()


# The references spell titles out, the model abbreviates them (as the Swift tests' own
# normalization has it).
SPELLED_OUT = {"mr": "mister", "mrs": "missus"}


def normalized(text):
    words = re.sub(r"[^a-z0-9' ]", " ", text.lower().replace("-", " ")).split()
    return [SPELLED_OUT.get(word, word) for word in words]


def distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def wer(arguments):
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        references, pieces = [], []
        gap = directory / "gap.wav"
        run("sox", "-n", "-r", "16000", "-c", "1", "-b", "16", str(gap), "trim", "0", "2")
        transcription = (DATA / "librivox" / "transcription").read_text()
        for clip, seconds in BOUNDARIES:
            name = f"sense_and_sensibility_01_austen_64kb-{clip}"
            source = DATA / "librivox" / f"{name}.wav"
            line = next(line for line in transcription.splitlines() if f"({name})" in line)
            references.append(line.split("(")[0].replace("<s>", "").replace("</s>", "").strip())
            out = directory / f"{clip}.wav"
            run("sox", str(source), "-r", "16000", "-c", "1", str(out), "pad",
                f"{arguments.pause}@{seconds}")
            pieces += [str(out), str(gap)]
        recording = directory / "sentences.wav"
        run("sox", str(gap), *pieces, str(recording))
        desktop = Desktop(directory)
        process = dictate(desktop, arguments.binary, engine=arguments.engine)
        try:
            _, player = desktop.play(recording)
            player.wait()
            time.sleep(3 if arguments.engine == "moonshine" else 8)
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)
        typed = desktop.text()
        desktop.close()
        reference = normalized(" ".join(references))
        rate = distance(reference, normalized(typed)) / len(reference)
        last_words = {normalized(r)[-1] for r in references}
        ends = [w for w in typed.split() if w[-1:] in ".?!" and w.lower() not in ("mr.", "mrs.")]
        wrong_ends = [w for w in ends if normalized(w)[-1] not in last_words]
        print(json.dumps({"engine": arguments.engine, "pause_s": arguments.pause,
                          "wer": round(rate, 3),
                          "sentence_ends": len(ends), "ends_inside_a_sentence": wrong_ends,
                          "typed": typed}))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu(arguments):
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        speech = directory / "speech.wav"
        clips = sorted((DATA / "librivox").glob("*.wav"))
        run("sox", *map(str, clips), "-r", "16000", "-c", "1", str(speech))
        length = float(run("soxi", "-D", str(speech)))
        desktop = Desktop(directory)
        env = dict(desktop.env)
        env["XDG_RUNTIME_DIR"] = str(directory)
        process = dictate(desktop, arguments.binary, "--start-paused")
        results = {}
        try:
            for state in ("paused", "listening"):
                if state == "listening":
                    run(arguments.binary, "dictate", "--resume", env=env)
                    time.sleep(1)
                before = cpu_seconds(process.pid)
                _, player = desktop.play(speech)
                player.wait()
                used = cpu_seconds(process.pid) - before
                results[state] = {"audio_s": round(length, 1), "cpu_s": round(used, 2),
                                  "cores": round(used / length, 3)}
                time.sleep(3)
            print(json.dumps(results))
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)
            desktop.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.environ.get(
        "TRANSCRIBE", str(ROOT / ".build/release/transcribe")))
    commands = parser.add_subparsers(dest="command", required=True)
    latency_parser = commands.add_parser("latency")
    latency_parser.add_argument("--runs", type=int, default=20)
    wer_parser = commands.add_parser("wer")
    wer_parser.add_argument("--pause", type=float, default=1.5)
    wer_parser.add_argument("--engine", default="moonshine",
                            help="the engine dictate uses: moonshine (default) or whisper")
    commands.add_parser("cpu")
    arguments = parser.parse_args()
    for tool in ("Xvfb", "xterm", "xdotool", "sox"):
        if not shutil.which(tool):
            sys.exit(f"dictation.py: {tool} is missing: ./scripts/install-dependencies.sh")
    {"latency": latency, "wer": wer, "cpu": cpu}[arguments.command](arguments)


if __name__ == "__main__":
    main()
