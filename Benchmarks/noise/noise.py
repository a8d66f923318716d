#!/usr/bin/env python3
"""Helpers for Benchmarks/noise/run.sh: build the noisy set, run each side, score, report.

    noise.py build OUT                      build the set into OUT/set (sox -R, espeak-ng)
    noise.py model OUT                      the Moonshine model alone on every whole file
    noise.py file OUT LABEL ENGINE -- CMD   `CMD --engine ENGINE --format json -i FILE`, per file
    noise.py live OUT LABEL ENGINE -- CMD   the room recordings through the virtual microphone
    noise.py report OUT                     the table (stdout) and OUT/results.{md,json}

Every side writes OUT/runs/<side>.json: for each file its utterances (text, and for live the
second on the played file's clock at which the line arrived). `report` scores them all.
Only the standard library is used here (numpy only inside moonshine_reference.py).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import wave
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DATA = Path(os.environ.get("DATA", "/usr/share/pocketsphinx/test/data"))
LIBRIVOX = DATA / "librivox"
RATE = 16000

LEAD, GAP, TAIL = 1.5, 1.5, 3.0      # room recording: silence before, between, after clips
ROOM_NOISES = [("pink", 10), ("pink", 5), ("brown", 10), ("babble", 10)]
CLIP_SNR = 10
REVERB = ["reverb", "50", "50", "80"]

# Babble: six espeak-ng voices reading different text, each looped and started elsewhere.
BABBLE_VOICES = [("en-us+m1", 150), ("en-us+f2", 165), ("en-gb+m3", 140),
                 ("en-us+f4", 175), ("en-gb+m7", 160), ("en-us+f5", 150)]
BABBLE_TEXT = [
    "The market opens early on Saturdays, and the farmers bring apples, honey and bread from "
    "the hills. By nine the square is full and nobody can find a place to park.",
    "Our train was delayed twice this morning, first by a signal fault near the bridge and "
    "then by a crew change at the junction, so we missed the meeting entirely.",
    "Please remember to water the tomatoes while I am away, and keep the back gate closed "
    "because the neighbour's dog has learned how to open the latch.",
    "The committee will review the proposal next week, although several members have "
    "already said that the budget looks far too optimistic for a project of this size.",
    "She painted the kitchen a pale shade of green, hung new curtains and moved the table "
    "under the window where the light is best in the afternoon.",
    "If the weather holds we could walk along the coast to the lighthouse, have lunch at the "
    "harbour and take the last bus back before it gets dark.",
]


# --------------------------------------------------------------------------------------------
# Words and alignment
# --------------------------------------------------------------------------------------------

ABBREVIATIONS = {"mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint"}
ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen").split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> list[str]:
    """Numbers as the LibriVox references spell them (ten, twenty one, one hundred and five)."""
    if n < 20:
        return [ONES[n]]
    if n < 100:
        return [TENS[n // 10]] + ([ONES[n % 10]] if n % 10 else [])
    if n < 1000:
        rest = number_words(n % 100) if n % 100 else []
        return [ONES[n // 100], "hundred"] + (["and"] + rest if rest else [])
    if n < 1_000_000:
        rest = number_words(n % 1000) if n % 1000 else []
        return number_words(n // 1000) + ["thousand"] + rest
    return [str(n)]


def normalize(text: str) -> list[str]:
    """Lower case, hyphens as spaces, punctuation dropped, Mr./Mrs. and digits spelled out."""
    text = text.lower().replace("-", " ")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)           # 1,000 -> 1000
    words = []
    for word in re.sub(r"[^a-z0-9' ]+", " ", text).split():
        word = word.strip("'")
        if not word:
            continue
        if word.isdigit():
            words.extend(number_words(int(word)))
        else:
            words.append(ABBREVIATIONS.get(word, word))
    return words


def align(reference: list[str], hypothesis: list[str]):
    """Levenshtein over words. Returns (errors, pairs): pairs are (ref index or None, hyp index
    or None) along one cheapest path (a match or substitution has both)."""
    n, m = len(reference), len(hypothesis)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        d[i][0] = i
    for j in range(m + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (reference[i - 1] != hypothesis[j - 1]))
    pairs = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and d[i][j] == d[i - 1][j - 1] + (reference[i - 1] != hypothesis[j - 1]):
            pairs.append((i - 1, j - 1)); i -= 1; j -= 1
        elif i > 0 and d[i][j] == d[i - 1][j] + 1:
            pairs.append((i - 1, None)); i -= 1
        else:
            pairs.append((None, j - 1)); j -= 1
    return d[n][m], pairs[::-1]


def word_times(utterance: dict) -> list[tuple[str, float | None]]:
    """An utterance's normalized words, each with the midpoint of its time in the audio (from
    the JSON segments; evenly spread over the utterance without them; None without times)."""
    segments = utterance.get("segments") or []
    if segments:
        return [(word, (seg["start"] + seg["end"]) / 2)
                for seg in segments for word in normalize(seg.get("word", ""))]
    words = normalize(utterance["text"])
    start, end = utterance.get("start"), utterance.get("end")
    if start is None or end is None:
        return [(word, None) for word in words]
    return [(word, start + (end - start) * (k + 0.5) / len(words)) for k, word in enumerate(words)]


def score(clip_words: list[list[str]], utterances: list[dict], clip_spans=None, offset=0.0):
    """Scores one file: its reference (words per clip) against its utterances.

    WER: one alignment of all the file's words against all the reference's. Which clip a word
    belongs to is decided by its time (offset + its time in the utterance; the clip whose span,
    widened to the middle of the pauses, holds it) when the utterances have times and the file
    has several clips, else by that alignment. Each clip's words are then aligned to the clip.
    An utterance "has words of" a clip when one of its words matches one of the clip's in that
    alignment (babble heard in a pause, or a garbled word, does not count).
    Returns, besides errors and words: per clip the last utterance with words of it (None: the
    clip is lost), whether it carries the clip to its end (reaches_end), the utterance holding
    the clip's last word (an exact match; None when it never appears); and the
    utterances that end inside a sentence: the clip of their last matched word has words in a
    later utterance too (a split), or they do not carry that clip to its end (the rest of the
    sentence was dropped or garbled; one missing last word counts only as a word error)."""
    reference = [word for words in clip_words for word in words]
    hypothesis, hyp_utt, hyp_time = [], [], []
    for u, utterance in enumerate(utterances):
        for word, at in word_times(utterance):
            hypothesis.append(word); hyp_utt.append(u)
            hyp_time.append(None if at is None else at + offset)
    errors, pairs = align(reference, hypothesis)
    n_clips = len(clip_words)
    timed = clip_spans is not None and n_clips > 1 and all(t is not None for t in hyp_time)
    # hyp word index -> clip
    if timed:
        bounds = [(clip_spans[k][1] + clip_spans[k + 1][0]) / 2 for k in range(n_clips - 1)]
        hyp_clip = [sum(1 for b in bounds if t >= b) for t in hyp_time]
    else:
        ref_clip = [c for c, words in enumerate(clip_words) for _ in words]
        hyp_clip, last = [0] * len(hypothesis), 0
        for r, h in pairs:
            if r is not None:
                last = ref_clip[r]
            if h is not None:
                hyp_clip[h] = last
    utt_refs: dict[int, list[tuple[int, int]]] = {}     # utterance -> [(clip, position)]
    utt_matches: dict[int, list[tuple[int, int]]] = {}  # the same, exact matches only
    for c, words in enumerate(clip_words):
        mine = [h for h in range(len(hypothesis)) if hyp_clip[h] == c]
        _, clip_pairs = align(words, [hypothesis[h] for h in mine])
        for r, k in clip_pairs:
            if r is not None and k is not None:
                utt_refs.setdefault(hyp_utt[mine[k]], []).append((c, r))
                if words[r] == hypothesis[mine[k]]:
                    utt_matches.setdefault(hyp_utt[mine[k]], []).append((c, r))
    def reaches_end(u: int, c: int) -> bool:
        """Utterance u carries clip c to its end: its last word aligned to the clip is among the
        clip's last two and its last exact match among the last four ("Cold cold cold" for
        "cold hearted and ... ill disposed" does not; "made inhibulin" for "made amiable
        himself" does)."""
        aligned = [p for c2, p in utt_refs.get(u, []) if c2 == c]
        matched = [p for c2, p in utt_matches.get(u, []) if c2 == c]
        size = len(clip_words[c])
        return bool(matched) and size - 1 - max(aligned) < 2 and size - 1 - max(matched) < 4

    last_utt = [None] * n_clips
    for u in sorted(utt_matches):
        for c, _ in utt_matches[u]:
            last_utt[c] = u
    inside = []
    for u, refs in sorted(utt_matches.items()):
        c = refs[-1][0]
        later = any(c2 == c for v, xs in utt_matches.items() if v > u for c2, _ in xs)
        if later or not reaches_end(u, c):
            inside.append(u)
    reached = [u is not None and reaches_end(u, c) for c, u in enumerate(last_utt)]
    last_word = [next((u for u, xs in utt_matches.items() if (c, len(words) - 1) in xs), None)
                 for c, words in enumerate(clip_words)]
    return {"errors": errors, "words": len(reference), "utterances": len(utterances),
            "clip_last_utterance": last_utt, "clip_reached_end": reached, "inside": inside,
            "clip_last_word_utterance": last_word,
            "attribution": "time" if timed else "alignment",
            "noise_only": [u for u in range(len(utterances)) if u not in utt_matches]}


# --------------------------------------------------------------------------------------------
# Building the set
# --------------------------------------------------------------------------------------------

def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise SystemExit(f"noise.py: {' '.join(map(str, command))} failed:\n{result.stderr}")
    if "clip" in result.stderr.lower():
        print(f"noise.py: warning from {command[0]}: {result.stderr.strip()}", file=sys.stderr)
    return result


def sox(*arguments) -> None:
    run(["sox", "-R", "-q", "-V2", *map(str, arguments)])


def rms(*paths) -> float:
    """RMS amplitude over the files (concatenated), as `sox ... -n stat` prints it."""
    result = subprocess.run(["sox", "-R", *map(str, paths), "-n", "stat"], capture_output=True,
                            text=True, check=True)
    match = re.search(r"RMS\s+amplitude:\s+([0-9.eE+-]+)", result.stderr)
    return float(match.group(1))


def samples(path: Path) -> int:
    return int(run(["soxi", "-s", str(path)]).stdout.strip())


def read_pcm(path: Path) -> list[int]:
    with wave.open(str(path), "rb") as file:
        assert (file.getnchannels(), file.getsampwidth(), file.getframerate()) == (1, 2, RATE)
        data = file.readframes(file.getnframes())
    import array
    values = array.array("h"); values.frombytes(data)
    return values.tolist()


def speech_end(path: Path) -> float:
    """Where speech ends in a clean clip, in seconds: the last 10 ms frame whose pre-emphasized
    energy (30 ms average) is 10 dB above the clip's floor (its 10th-percentile frame). On these
    clips it lands within 0.03 s of pocketsphinx's end of the last word, except where
    pocketsphinx stretches a misrecognized last word over the breath after it."""
    x = read_pcm(path)
    mean = sum(x) / len(x)
    y = [x[0] - mean] + [(x[i] - mean) - 0.97 * (x[i - 1] - mean) for i in range(1, len(x))]
    frames = [sum(v * v for v in y[k:k + 160]) / 160 for k in range(0, len(y) - 159, 160)]
    smooth = [sum(frames[max(0, k - 1):k + 2]) / len(frames[max(0, k - 1):k + 2])
              for k in range(len(frames))]
    db = [10 * math.log10(e + 1e-6) for e in smooth]
    floor = sorted(db)[len(db) // 10]
    last = max(k for k, v in enumerate(db) if v > floor + 10)
    return (last + 1) / 100


def first_nonzero(path: Path) -> float:
    for k, v in enumerate(read_pcm(path)):
        if v != 0:
            return k / RATE
    return 0.0


def librivox_clips() -> list[tuple[Path, str]]:
    clips = []
    for line in (LIBRIVOX / "transcription").read_text().splitlines():
        match = re.match(r"\s*(.*?)\s*\(([^)]+)\)\s*$", line)
        if match:
            words = match.group(1).replace("<s>", "").replace("</s>", "").strip()
            clips.append((LIBRIVOX / f"{match.group(2)}.wav", words))
    return clips


def noise_file(kind: str, seconds: float, path: Path, work: Path) -> None:
    """Noise of one colour (sox synth, -R: the same every run) or babble, as 32-bit float."""
    if kind in ("pink", "brown", "white"):
        sox("-n", "-r", RATE, "-c", 1, "-e", "floating-point", "-b", 32, path,
            "synth", f"{seconds:.4f}", f"{kind}noise")
        return
    assert kind == "babble"
    voices = []
    for k, (voice, speed) in enumerate(BABBLE_VOICES):
        raw = work / f"babble-{k}.raw.wav"
        run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), BABBLE_TEXT[k]])
        one = work / f"babble-{k}.wav"
        sox(raw, "-c", 1, "-e", "floating-point", "-b", 32, one, "vol", 0.5, "rate", RATE)
        length = samples(one) / RATE
        looped = work / f"babble-{k}.loop.wav"
        offset = (k * 1.7) % length
        sox(one, looped, "repeat", math.ceil((seconds + offset) / length),
            "trim", f"{offset:.4f}", f"{seconds:.4f}")
        voices.append((looped, rms(looped)))
    mix = ["-m"]
    for looped, level in voices:
        mix += ["-v", f"{0.05 / level:.6f}", looped]
    sox(*mix, "-e", "floating-point", "-b", 32, path)


def mix(speech: Path, noise: Path, snr: float, speech_rms: float, out: Path) -> dict:
    noise_rms = rms(noise)
    gain = speech_rms / (noise_rms * 10 ** (snr / 20))
    sox("-m", "-v", 1, speech, "-v", f"{gain:.6f}", noise, "-e", "signed", "-b", 16, out)
    return {"snr_db": snr, "noise_gain": round(gain, 6)}


def command_build(out: Path) -> int:
    clips = librivox_clips()
    if len(clips) != 5 or not all(path.is_file() for path, _ in clips):
        raise SystemExit(f"noise.py: {LIBRIVOX} is missing or incomplete "
                         f"(apt-get install pocketsphinx-testdata)")
    root = out / "set"
    if root.exists():
        shutil.rmtree(root)
    work = root / "tmp"
    work.mkdir(parents=True)
    ends = [speech_end(path) for path, _ in clips]
    references = [normalize(text) for _, text in clips]
    cases = {}

    # (a) and (c): the room recording, clean and with noise under all of it.
    silence = {}
    for seconds in {LEAD, GAP, TAIL}:
        silence[seconds] = work / f"silence-{seconds}.wav"
        sox("-n", "-r", RATE, "-c", 1, "-b", 16, silence[seconds], "trim", 0, seconds)
    parts, starts, position = [silence[LEAD]], [], round(LEAD * RATE)
    for k, (path, _) in enumerate(clips):
        starts.append(position / RATE)
        parts.append(path)
        position += samples(path)
        parts.append(silence[GAP] if k < len(clips) - 1 else silence[TAIL])
        position += round((GAP if k < len(clips) - 1 else TAIL) * RATE)
    clean_room = root / "room-clean.wav"
    sox(*parts, clean_room)
    assert samples(clean_room) == position, (samples(clean_room), position)
    duration = position / RATE
    speech_rms = rms(*[path for path, _ in clips])
    room = {"clips": references, "duration": duration, "clip_starts": starts,
            "clip_ends": [round(s + e, 3) for s, e in zip(starts, ends)],
            "speech_rms": speech_rms}
    cases["room-clean"] = {"kind": "room", "noise": "none",
                           "files": [{"path": str(clean_room), **room}]}
    for kind, snr in ROOM_NOISES:
        noise = work / f"{kind}-room.wav"
        noise_file(kind, duration, noise, work)
        name = f"room-{kind}{snr}"
        path = root / f"{name}.wav"
        info = mix(clean_room, noise, snr, speech_rms, path)
        cases[name] = {"kind": "room", "noise": f"{kind} noise, SNR {snr} dB", **info,
                       "files": [{"path": str(path), **room}]}
    for name, file in ((n, f) for n, c in cases.items() for f in c["files"]):
        file["first_sound"] = first_nonzero(Path(file["path"]))

    # (b) and (c): the clips one by one, clean, with pink noise, with reverberation.
    for name in (f"clips-pink{CLIP_SNR}", "clips-reverb"):
        (root / name).mkdir()
    files = {"clips-clean": [], f"clips-pink{CLIP_SNR}": [], "clips-reverb": []}
    for (path, _), words in zip(clips, references):
        one = {"clips": [words], "duration": samples(path) / RATE}
        files["clips-clean"].append({"path": str(path), **one})
        noise = work / f"pink-{path.stem}.wav"
        noise_file("pink", samples(path) / RATE, noise, work)
        noisy = root / f"clips-pink{CLIP_SNR}" / path.name
        mix(path, noise, CLIP_SNR, rms(path), noisy)
        files[f"clips-pink{CLIP_SNR}"].append({"path": str(noisy), **one})
        reverberant = root / "clips-reverb" / path.name
        sox(path, reverberant, *REVERB)
        files["clips-reverb"].append({"path": str(reverberant), **one})
    cases["clips-clean"] = {"kind": "clips", "noise": "none", "files": files["clips-clean"]}
    cases[f"clips-pink{CLIP_SNR}"] = {"kind": "clips", "noise": f"pink noise, SNR {CLIP_SNR} dB "
                                      "(from each clip's RMS)",
                                      "files": files[f"clips-pink{CLIP_SNR}"]}
    cases["clips-reverb"] = {"kind": "clips", "noise": "sox " + " ".join(REVERB),
                             "files": files["clips-reverb"]}
    shutil.rmtree(work)
    manifest = {"cases": cases, "clip_names": [path.stem for path, _ in clips],
                "clip_speech_ends": ends, "lead": LEAD, "gap": GAP, "tail": TAIL}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1))
    for name, case in cases.items():
        print(f"  {name:14} {len(case['files'])} file(s), {case['noise']}", file=sys.stderr)
    print(f"  room recording {duration:.2f} s; speech ends at "
          + ", ".join(f"{e:.2f}" for e in room["clip_ends"]) + " s", file=sys.stderr)
    return 0


def manifest(out: Path) -> dict:
    return json.loads((out / "set" / "manifest.json").read_text())


def selected_cases(out: Path, kind: str | None = None) -> dict:
    wanted = os.environ.get("CASES", "").split()
    cases = manifest(out)["cases"]
    return {name: case for name, case in cases.items()
            if (not wanted or name in wanted) and (kind is None or case["kind"] == kind)}


def save_run(out: Path, side: str, record: dict) -> None:
    (out / "runs").mkdir(exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.+-]+", "_", side)
    (out / "runs" / f"{safe}.json").write_text(json.dumps(record, indent=1))


# --------------------------------------------------------------------------------------------
# Sides
# --------------------------------------------------------------------------------------------

def command_model(out: Path) -> int:
    cases = selected_cases(out)
    paths = [f["path"] for case in cases.values() for f in case["files"]]
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "moonshine_reference.py"),
                             "transcribe", *paths], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"noise.py: moonshine_reference.py failed:\n{result.stderr}")
    texts = {}
    for line in result.stdout.splitlines():
        for path in paths:
            if line.startswith(path + ": "):
                texts[path] = line[len(path) + 2:]
    record = {"side": "model alone", "engine": "moonshine", "mode": "model",
              "command": "scripts/moonshine_reference.py transcribe FILE (whole file at once)",
              "seconds": round(time.monotonic() - started, 2), "cases": {}}
    for name, case in cases.items():
        record["cases"][name] = [{"path": f["path"],
                                  "utterances": [{"text": texts.get(f["path"], "")}]}
                                 for f in case["files"]]
    save_run(out, "model", record)
    return 0


def parse_output(lines: list[tuple[float, str]]):
    """transcribe's stdout: JSON utterance lines (or plain text lines from a build without
    --format json). Returns [(arrival, utterance)] (text, start, end, segments) and the final
    line's transcript, if any."""
    utterances, final = [], None
    for arrival, line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except ValueError:
            utterances.append((arrival, {"text": line})); continue
        if not isinstance(value, dict):
            continue
        if value.get("type") == "utterance":
            utterances.append((arrival, {
                "text": value.get("text", ""), "start": value.get("start"),
                "end": value.get("end"),
                "segments": [{"word": seg.get("word", ""), "start": seg.get("start"),
                              "end": seg.get("end")} for seg in value.get("segments") or []
                             if seg.get("start") is not None and seg.get("end") is not None]}))
        elif value.get("type") == "final":
            final = value.get("transcript")
    return utterances, final


def command_file(out: Path, label: str, engine: str, command: list[str]) -> int:
    cases = selected_cases(out)
    record = {"side": f"-i {engine}", "label": label, "engine": engine, "mode": "file",
              "command": " ".join(command + ["--engine", engine, "--format", "json", "-i",
                                             "FILE"]), "cases": {}}
    started = time.monotonic()
    log = open(out / "logs" / f"file-{re.sub(r'[^A-Za-z0-9]+', '_', label)}-{engine}.log", "a")
    for name, case in cases.items():
        results = []
        for f in case["files"]:
            argv = command + ["--engine", engine, "--format", "json", "-i", f["path"]]
            t0 = time.monotonic()
            result = subprocess.run(argv, capture_output=True, text=True)
            seconds = time.monotonic() - t0
            log.write(f"$ {' '.join(argv)}\n# status {result.returncode}, {seconds:.2f} s\n"
                      f"{result.stdout}{result.stderr}\n")
            utterances, _ = parse_output([(0.0, l) for l in result.stdout.splitlines()])
            results.append({"path": f["path"], "status": result.returncode,
                            "seconds": round(seconds, 2),
                            "utterances": [u for _, u in utterances]})
            if result.returncode != 0:
                print(f"noise.py: {' '.join(argv)}: status {result.returncode}: "
                      f"{result.stderr.strip()[-300:]}", file=sys.stderr)
        record["cases"][name] = results
    record["seconds"] = round(time.monotonic() - started, 2)
    save_run(out, f"file-{label}-{engine}", record)
    return 0


def pulse_outputs() -> int:
    result = subprocess.run(["pactl", "list", "short", "source-outputs"], capture_output=True,
                            text=True, timeout=10)
    return len([l for l in result.stdout.splitlines() if l.strip()])


class Reader(threading.Thread):
    """Timestamps each line of a process's stdout as it arrives."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.lines = stream, []

    def run(self):
        for line in iter(self.stream.readline, b""):
            self.lines.append((time.monotonic(), line.decode("utf-8", "replace")))


class Monitor(threading.Thread):
    """Records the virtual microphone itself (parec, 10 ms latency) to find when the played file's
    first sound was heard: the clock every latency is measured on, free of paplay's start-up."""

    def __init__(self, source: str):
        super().__init__(daemon=True)
        self.process = subprocess.Popen(
            ["parec", f"--device={source}", "--raw", "--format=s16le", f"--rate={RATE}",
             "--channels=1", "--latency-msec=10"], stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        self.received = 0
        self.first_index = None          # stream index of the first non-zero sample
        self.origin = math.inf           # monotonic time at which stream sample 0 was heard

    def run(self):
        import array
        while True:
            data = self.process.stdout.read1(4096)
            if not data:
                return
            now = time.monotonic()
            if len(data) % 2:
                data += self.process.stdout.read(1)
            values = array.array("h"); values.frombytes(data)
            if self.first_index is None:
                for k, v in enumerate(values):
                    if v != 0:
                        self.first_index = self.received + k
                        break
            self.received += len(values)
            # The stream's sample 0 was heard at most this long before now (the backlog of a
            # late read only makes it later): the smallest value over the run is the clock.
            self.origin = min(self.origin, now - self.received / RATE)

    @property
    def first_sound(self):
        """Monotonic time at which the first non-zero sample was heard (within ~10-20 ms: the
        null sink renders, and parec delivers, in blocks of about its requested latency)."""
        return None if self.first_index is None else self.origin + self.first_index / RATE

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def stop_process(process: subprocess.Popen, grace: float) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill(); process.wait()


def live_once(path: str, duration: float, command: list[str], engine: str, source: str,
              sink: str, log) -> dict:
    settle = float(os.environ.get("LIVE_SETTLE", "1.0"))
    after = float(os.environ.get("LIVE_AFTER", "5.0"))
    monitor = Monitor(source)
    monitor.start()
    argv = command + ["--engine", engine, "--device", source, "--format", "json",
                      "--duration", f"{duration + settle + after + 60:.0f}"]
    stderr_path = log.name + ".stderr"
    with open(stderr_path, "ab") as stderr:
        started = time.monotonic()
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr,
                                   stdin=subprocess.DEVNULL)
        reader = Reader(process.stdout)
        reader.start()
        # Ready when transcribe's record stream exists beside parec's (the model is loaded by
        # then); then a moment for its detector to learn the (digital) silence.
        ready = None
        while time.monotonic() - started < 60 and process.poll() is None:
            if pulse_outputs() >= 2:
                ready = time.monotonic(); break
            time.sleep(0.05)
        if ready is None:
            stop_process(process, 5); monitor.stop()
            return {"path": path, "status": process.returncode, "error": "never started capturing",
                    "utterances": [], "arrivals": []}
        time.sleep(settle)
        play_started = time.monotonic()
        player = subprocess.run(["paplay", f"--device={sink}", path], capture_output=True,
                                text=True)
        play_ended = time.monotonic()
        time.sleep(after)
        stop_process(process, 15)
        reader.join(5)
    monitor.stop()
    monitor.join(2)
    if monitor.first_sound is None:
        zero = play_started
        clock = "paplay start (no sound seen on the monitor)"
    else:
        zero = monitor.first_sound - first_nonzero(Path(path))
        clock = "monitor"
    utterances, final = parse_output(reader.lines)
    log.write(f"$ {' '.join(argv)}\n# status {process.returncode}; capture ready "
              f"{ready - started:.2f} s after start; paplay status {player.returncode} "
              f"{player.stderr.strip()}; played {play_ended - play_started:.2f} s; file second 0 "
              f"heard {zero - play_started:+.3f} s after paplay started ({clock})\n")
    for arrival, line in reader.lines:
        log.write(f"{arrival - zero:8.3f}  {line.rstrip()}\n")
    log.write("\n"); log.flush()
    return {"path": path, "status": process.returncode, "clock": clock,
            "paplay_offset": round(zero - play_started, 3),
            "capture_offset": round(ready - zero, 3),
            "utterances": [u for _, u in utterances],
            "arrivals": [round(arrival - zero, 3) for arrival, _ in utterances],
            "final": final}


def command_live(out: Path, label: str, engine: str, command: list[str]) -> int:
    source = os.environ.get("PULSE_SOURCE", "virtual_mic")
    sink = os.environ.get("PULSE_SINK", "virtual_speaker")
    cases = selected_cases(out, "room")
    record = {"side": f"live {engine}", "label": label, "engine": engine, "mode": "live",
              "command": " ".join(command + ["--engine", engine, "--device", source,
                                             "--format", "json", "--duration", "N"]),
              "cases": {}}
    started = time.monotonic()
    with open(out / "logs" / f"live-{re.sub(r'[^A-Za-z0-9]+', '_', label)}-{engine}.log",
              "a") as log:
        for name, case in cases.items():
            print(f"  live {engine} {label}: {name}", file=sys.stderr)
            record["cases"][name] = [live_once(f["path"], f["duration"], command, engine,
                                               source, sink, log) for f in case["files"]]
    record["seconds"] = round(time.monotonic() - started, 2)
    save_run(out, f"live-{label}-{engine}", record)
    return 0


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------

def command_report(out: Path) -> int:
    info = manifest(out)
    cases = info["cases"]
    runs = [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))]
    order = {"model": 0, "file": 1, "live": 2}
    runs.sort(key=lambda r: (order[r["mode"]], r["engine"] != "moonshine", r.get("label", "")))
    labels = {r.get("label") for r in runs if r.get("label")}
    rows, details = [], []
    for name in cases:
        for r in runs:
            if name not in r["cases"]:
                continue
            errors = words = utts = inside = noise_only = lost = 0
            latencies, failures = [], 0
            for result, f in zip(r["cases"][name], cases[name]["files"]):
                spans = (list(zip(f["clip_starts"], f["clip_ends"]))
                         if "clip_starts" in f else None)
                s = score(f["clips"], result["utterances"], spans,
                          result.get("capture_offset", 0.0))
                errors += s["errors"]; words += s["words"]; utts += s["utterances"]
                inside += len(s["inside"]); noise_only += len(s["noise_only"])
                lost += sum(1 for u in s["clip_last_utterance"] if u is None)
                failures += 1 if result.get("status", 0) not in (0, None) else 0
                detail = {"case": name, "side": r["side"], "label": r.get("label"),
                          "file": Path(f["path"]).name, "errors": s["errors"],
                          "words": s["words"], "attribution": s["attribution"],
                          "utterances": [u["text"] for u in result["utterances"]],
                          "spans": [None if u.get("start") is None else
                                    (round(u["start"] + result.get("capture_offset", 0.0), 2),
                                     round(u["end"] + result.get("capture_offset", 0.0), 2))
                                    for u in result["utterances"]],
                          "inside": s["inside"], "lost_clips": [
                              k for k, u in enumerate(s["clip_last_utterance"]) if u is None]}
                if r["mode"] == "live":
                    clip_latency = []
                    for k, u in enumerate(s["clip_last_word_utterance"]):
                        if u is None:
                            clip_latency.append(None); continue
                        value = result["arrivals"][u] - f["clip_ends"][k]
                        clip_latency.append(round(value, 2)); latencies.append(value)
                    detail["arrivals"] = result["arrivals"]
                    detail["clip_latency"] = clip_latency
                    detail["clock"] = result.get("clock")
                details.append(detail)
            side = r["side"] + (f" [{r['label']}]" if labels != {"default"} and r.get("label") else "")
            row = {"case": name, "side": side, "words": words, "errors": errors,
                   "wer": errors / words if words else float("nan"),
                   "utterances": utts if r["mode"] != "model" else None,
                   "inside": inside if r["mode"] != "model" else None,
                   "noise_only": noise_only if r["mode"] != "model" else None,
                   "lost": lost, "failures": failures}
            if r["mode"] == "live":
                row["latency_median"] = statistics.median(latencies) if latencies else None
                row["latency_max"] = max(latencies) if latencies else None
                row["latency_n"] = len(latencies)
            rows.append(row)

    def cell(value, fmt):
        return "—" if value is None else format(value, fmt)

    header = ("| case | side | WER | errors/words | utterances | ends inside a sentence | "
              "lost clips | final after speech ends: median / max (s) |")
    lines = [header, "|---|---|---:|---:|---:|---:|---:|---|"]
    for row in rows:
        latency = ""
        if "latency_median" in row:
            latency = (f"{cell(row['latency_median'], '.2f')} / {cell(row['latency_max'], '.2f')}"
                       f" (n={row['latency_n']})")
        failed = f" ({row['failures']} failed)" if row["failures"] else ""
        lines.append(f"| {row['case']} | {row['side']} | {row['wer']:.3f}{failed} | "
                     f"{row['errors']}/{row['words']} | {cell(row['utterances'], 'd')} | "
                     f"{cell(row['inside'], 'd')} | {row['lost']} | {latency} |")
    table = "\n".join(lines)
    print(table)
    commands = "\n".join(f"- {r['side']}{' [' + r['label'] + ']' if r.get('label') else ''}: "
                         f"`{r['command']}` ({r.get('seconds', 0):.0f} s)" for r in runs)
    (out / "results.md").write_text(table + "\n\n" + commands + "\n")
    (out / "results.json").write_text(json.dumps({"rows": rows, "details": details,
                                                  "runs": [{k: v for k, v in r.items()
                                                            if k != "cases"} for r in runs]},
                                                 indent=1))
    with open(out / "transcripts.txt", "w") as file:
        for d in details:
            file.write(f"== {d['case']} / {d['side']}"
                       f"{' [' + d['label'] + ']' if d.get('label') else ''} / {d['file']}: "
                       f"{d['errors']}/{d['words']} errors")
            if d["inside"]:
                file.write(f"; ends inside a sentence: utterance(s) {d['inside']}")
            if d["lost_clips"]:
                file.write(f"; clips lost: {d['lost_clips']}")
            if "clip_latency" in d:
                file.write(f"; final after speech end per clip: {d['clip_latency']}")
            file.write("\n")
            for k, text in enumerate(d["utterances"]):
                at = f"arrives {d['arrivals'][k]:6.2f} s  " if "arrivals" in d else ""
                if d["spans"][k] is not None and len(d["spans"]) > 0:
                    at = f"[{d['spans'][k][0]:6.2f}-{d['spans'][k][1]:6.2f}] " + at
                file.write(f"  {k}: {at}{text}\n")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr); return 64
    command, out = argv[0], Path(argv[1])
    (out / "logs").mkdir(parents=True, exist_ok=True)
    if command == "build":
        return command_build(out)
    if command == "model":
        return command_model(out)
    if command in ("file", "live"):
        label, engine = argv[2], argv[3]
        rest = argv[4:]
        if rest[:1] == ["--"]:
            rest = rest[1:]
        return (command_file if command == "file" else command_live)(out, label, engine, rest)
    if command == "report":
        return command_report(out)
    print(__doc__, file=sys.stderr); return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
