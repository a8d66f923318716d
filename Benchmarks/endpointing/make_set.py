#!/usr/bin/env python3
"""Build the endpointing set (issue 36) from pocketsphinx-testdata, the same bytes every run.

    make_set.py [OUT]          default OUT: /tmp/endpointing-set (or $OUT)

Clips: the five LibriVox clips (librivox/*.wav, references in `transcription`), goforward.raw,
numbers.raw and something.raw, and the five `cards/*.wav` commands (an extra: more utterance
ends). Each is aligned with `pocketsphinx_continuous -infile F -time yes` (Debian's compiled-in
en-us model and dictionary): forced to its reference with a one-sentence JSGF grammar where the
reference is known, else with the default language model (numbers.raw, whose words pocketsphinx
hears as "thirty three four or six ninety two"; only its boundaries are used).

The cuts, written to OUT/cuts/ with 0.3 s of digital silence (signals.py builds the other
paddings in memory with the same code):

  inside  every word boundary of a clip at least 0.5 s after its first word starts and 0.5 s
          before its last word ends: the audio up to the end of the word, then the pad
          ("a pause inside a sentence")
  end     the whole clip's speech: the audio up to the end of its last word, then the pad
          ("a sentence end"; what the clip's end is in the book is in `end_kind`)
  whole   the whole clip as it is (its own 0.14-0.88 s of silence after the last word), then
          the pad: a check on the end cuts, not counted with them

The end of a word is where its sound ends: pocketsphinx's end of the word, moved back to the
last 10 ms frame at least 12 dB above the clip's noise floor (the quietest 100 ms) plus 20 ms,
so a pause the aligner gave to the word is not heard twice. A 5 ms fade ends the audio.

Paddings (`pad_audio`): "zeros" (digital silence) or "room" (the clip's own noise: white
noise shaped to the spectrum of its quietest 100 ms, at that window's level, seeded by the
clip's name).

Pauses, written to OUT/pauses/ with OUT/pauses.json: each clip whole, with a 0.8 s and a 1.2 s
pause of room noise inserted at one inside boundary (the one nearest the middle of its speech;
for -0930 the issue's example, after "made"), for end-to-end runs such as
`transcribe -i OUT/pauses/sense_and_sensibility_01_austen_64kb-0930-pause0.8.wav`.

OUT/set.json: the clips (words and times), the cuts and the pauses.
Needs pocketsphinx (pocketsphinx_continuous), pocketsphinx-testdata and numpy.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import wave
import zlib
from pathlib import Path

import numpy

RATE = 16000
DATA = Path(os.environ.get("DATA", "/usr/share/pocketsphinx/test/data"))
PAD_SECONDS = 0.3          # what the recognizer transcribes after the last speech
EDGE_SECONDS = 0.5         # no inside cut this close to the speech's start or end
PAUSES = (0.8, 1.2)        # the inserted pauses
FADE = int(0.005 * RATE)
FLOOR_MARGIN_DB = 12.0     # a frame is sound if this far above the noise floor
RELEASE = 0.02             # kept after a word's last loud frame

# What each clip's end is in its source. LibriVox: Sense and Sensibility, chapter 1:
#   "...in his power to do for them."                         0870 ends a sentence
#   "He was not an ill-disposed young man, unless ..."        0880 ends at a comma
#   "... is to be ill-disposed: but he was, in general, ..."  0890 ends at a colon
#   "... than he was:—he might even have been made ..."       0920 ends at a colon and dash
#   "... made amiable himself; for he was very young ..."     0930 ends at a semicolon
# The others are whole commands or lists read alone.
END_KINDS = {
    "sense_and_sensibility_01_austen_64kb-0870": "sentence",
    "sense_and_sensibility_01_austen_64kb-0880": "comma",
    "sense_and_sensibility_01_austen_64kb-0890": "colon",
    "sense_and_sensibility_01_austen_64kb-0920": "colon",
    "sense_and_sensibility_01_austen_64kb-0930": "semicolon",
}

# Inside cuts whose words so far make a complete sentence on their own (judged by hand; the
# number is how many words come before the cut). The rest end mid-phrase ("to consider how
# much there"), where a period is plainly wrong. Which boundaries exist depends on the
# alignment; make_set.py warns about entries that match no cut.
COMPLETE_PREFIXES = {
    "sense_and_sensibility_01_austen_64kb-0870": set(),
    "sense_and_sensibility_01_austen_64kb-0880": {3},          # "he was not"
    "sense_and_sensibility_01_austen_64kb-0890": set(),
    "sense_and_sensibility_01_austen_64kb-0920": {8, 13, 16},  # "had he married a more amiable
                                                               # woman" (a question), "... he might
                                                               # have been made (still more
                                                               # respectable)"
    "sense_and_sensibility_01_austen_64kb-0930": {6, 7},       # "he might even have been made
                                                               # (amiable)"
    "goforward": {2, 3},                                       # "go forward (ten)"
    "numbers": {2, 3, 4, 5, 6},                                # a list of numbers may stop
                                                               # after any number
    "something": {2},                                          # "go somewhere"
    "cards-005": {3, 6},                                       # "eight of spades (four of
                                                               # clubs)"; a rank alone is not a
                                                               # command in cards.gram
}
PAUSE_AT = {"sense_and_sensibility_01_austen_64kb-0930": 6}  # after "made", the example


def clip_sources() -> list[dict]:
    """Name, source file, reference words (None: align with the language model), group."""
    clips = []
    for line in (DATA / "librivox" / "transcription").read_text().splitlines():
        match = re.match(r"\s*<s>(.*?)</s>\s*\(([^)]+)\)\s*$", line)
        if match:
            clips.append({"name": match.group(2), "source": f"librivox/{match.group(2)}.wav",
                          "reference": match.group(1).split(), "group": "librivox"})
    for name, words in [("goforward", "go forward ten meters"), ("numbers", None),
                        ("something", "go somewhere and do something")]:
        clips.append({"name": name, "source": f"{name}.raw",
                      "reference": words.split() if words else None, "group": "commands"})
    for line in (DATA / "cards" / "cards.transcription").read_text().splitlines():
        match = re.match(r"\s*<s>(.*?)</s>\s*\(([^)]+)\)\s*$", line)
        if match:
            clips.append({"name": f"cards-{match.group(2)}",
                          "source": f"cards/{match.group(2)}.wav",
                          "reference": match.group(1).split(), "group": "cards"})
    return clips


# ------------------------------------------------------------------------------------------
# Audio
# ------------------------------------------------------------------------------------------


def read_audio(path: Path) -> numpy.ndarray:
    """16 kHz mono 16-bit WAV or headerless little-endian raw -> float32 in [-1, 1]."""
    if path.suffix == ".raw":
        return numpy.fromfile(path, "<i2").astype(numpy.float32) / 32768.0
    with wave.open(str(path), "rb") as file:
        if (file.getnchannels(), file.getsampwidth(), file.getframerate()) != (1, 2, RATE):
            raise SystemExit(f"{path}: not 16-bit mono 16 kHz")
        frames = file.readframes(file.getnframes())
    return numpy.frombuffer(frames, "<i2").astype(numpy.float32) / 32768.0


def write_wav(path: Path, samples: numpy.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = numpy.clip(numpy.round(samples * 32768.0), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(data.tobytes())


def frame_db(samples: numpy.ndarray, length: int, hop: int = 160) -> numpy.ndarray:
    """RMS in dB of windows of `length` samples every `hop` samples."""
    count = max(1, 1 + (len(samples) - length) // hop)
    frames = numpy.stack([samples[i * hop:i * hop + length] for i in range(count)])
    return 20 * numpy.log10(numpy.sqrt(numpy.mean(frames ** 2, axis=1)) + 1e-9)


def quietest_window(samples: numpy.ndarray) -> tuple[int, float]:
    """Start and RMS (dB) of the quietest 100 ms."""
    levels = frame_db(samples, RATE // 10)
    index = int(numpy.argmin(levels))
    return index * 160, float(levels[index])


def room_noise(samples: numpy.ndarray, seconds: float, seed_name: str) -> numpy.ndarray:
    """White noise shaped like the clip's quietest 100 ms, at its RMS; seeded by name."""
    start, level_db = quietest_window(samples)
    window = samples[start:start + RATE // 10].astype(numpy.float64)
    size = 400
    hann = numpy.hanning(size)
    power = numpy.mean([numpy.abs(numpy.fft.rfft(hann * window[i:i + size])) ** 2
                        for i in range(0, len(window) - size + 1, size // 2)], axis=0)
    impulse = numpy.fft.fftshift(numpy.fft.irfft(numpy.sqrt(power))) * hann
    rng = numpy.random.default_rng(zlib.crc32(seed_name.encode()))
    count = int(round(seconds * RATE))
    noise = numpy.convolve(rng.standard_normal(count + size), impulse, "same")[size // 2:]
    noise = noise[:count]
    target = 10 ** (level_db / 20)
    noise *= target / (numpy.sqrt(numpy.mean(noise ** 2)) + 1e-12)
    return noise.astype(numpy.float32)


def fade_out(samples: numpy.ndarray) -> numpy.ndarray:
    samples = samples.copy()
    n = min(FADE, len(samples))
    samples[len(samples) - n:] *= numpy.cos(numpy.linspace(0, numpy.pi / 2, n)) ** 2
    return samples


def fade_in(samples: numpy.ndarray) -> numpy.ndarray:
    samples = samples.copy()
    n = min(FADE, len(samples))
    samples[:n] *= numpy.sin(numpy.linspace(0, numpy.pi / 2, n)) ** 2
    return samples


def pad_audio(samples: numpy.ndarray, cut: int, pad: str, seconds: float,
              seed_name: str) -> numpy.ndarray:
    """samples[:cut] faded out, then `seconds` of "zeros" or "room" noise (faded in)."""
    head = fade_out(samples[:cut])
    count = int(round(seconds * RATE))
    if pad == "zeros":
        tail = numpy.zeros(count, numpy.float32)
    elif pad == "room":
        tail = fade_in(room_noise(samples, seconds, seed_name))
    else:
        raise ValueError(pad)
    return numpy.concatenate([head, tail]).astype(numpy.float32)


# ------------------------------------------------------------------------------------------
# Alignment
# ------------------------------------------------------------------------------------------

FILLERS = {"<s>", "</s>", "<sil>", "[SPEECH]", "[NOISE]"}


def pocketsphinx_words(wav: Path, reference: list[str] | None) -> tuple[list, str]:
    """[(word, start, end)] in seconds, and "forced" or "language model"."""
    def run(extra: list[str]) -> list:
        command = ["pocketsphinx_continuous", "-infile", str(wav), "-time", "yes"] + extra
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        words = []
        for line in output.splitlines():
            parts = line.split()
            if len(parts) == 4 and re.fullmatch(r"[\d.]+", parts[1]):
                word = re.sub(r"\(\d+\)$", "", parts[0])
                if word not in FILLERS and not word.startswith("++"):
                    words.append((word, float(parts[1]), float(parts[2])))
        return words

    if reference:
        with tempfile.NamedTemporaryFile("w", suffix=".jsgf", delete=False) as grammar:
            grammar.write(f"#JSGF V1.0;\ngrammar g;\npublic <s> = {' '.join(reference)};\n")
        try:
            words = run(["-jsgf", grammar.name])
        finally:
            os.unlink(grammar.name)
        if [w for w, _, _ in words] == reference:
            return words, "forced"
        print(f"make_set: {wav.name}: forced alignment failed, using the language model",
              file=sys.stderr)
    return run([]), "language model"


def sound_end(samples: numpy.ndarray, start: float, end: float, floor_db: float) -> float:
    """Where the word [start, end] stops sounding (see the header), in seconds."""
    first, last = int(start * 100), int(end * 100) + 1      # 10 ms frames
    levels = frame_db(samples, 160)
    loud = [i for i in range(first, min(last, len(levels)))
            if levels[i] >= floor_db + FLOOR_MARGIN_DB]
    if not loud:
        return end + 0.01
    return min(end + 0.01, (loud[-1] + 1) / 100 + RELEASE)


# ------------------------------------------------------------------------------------------
# The set
# ------------------------------------------------------------------------------------------


def build(out: Path) -> dict:
    for tool in ("pocketsphinx_continuous",):
        if subprocess.run(["which", tool], capture_output=True).returncode:
            raise SystemExit(f"make_set: {tool} is missing (apt-get install pocketsphinx)")
    if not (DATA / "librivox" / "transcription").is_file():
        raise SystemExit(f"make_set: {DATA} has no librivox/ (apt-get install "
                         "pocketsphinx-testdata)")
    out.mkdir(parents=True, exist_ok=True)
    clips, cuts, pauses = [], [], []
    unmatched = {name: set(ks) for name, ks in COMPLETE_PREFIXES.items()}
    for clip in clip_sources():
        name = clip["name"]
        samples = read_audio(DATA / clip["source"])
        wav = out / "clips" / f"{name}.wav"
        write_wav(wav, samples)
        words, alignment = pocketsphinx_words(wav, clip["reference"])
        _, floor_db = quietest_window(samples)
        ends = [sound_end(samples, s, e, floor_db) for _, s, e in words]
        speech_start, speech_end = words[0][1], ends[-1]
        clips.append({"name": name, "group": clip["group"], "source": clip["source"],
                      "seconds": round(len(samples) / RATE, 3),
                      "reference": " ".join(clip["reference"] or [w for w, _, _ in words]),
                      "alignment": alignment, "noise_floor_db": round(floor_db, 1),
                      "end_kind": END_KINDS.get(name, "utterance"),
                      "words": [[w, s, e, round(x, 3)] for (w, s, e), x in zip(words, ends)]})

        def add_cut(kind: str, k: int, cut_seconds: float) -> None:
            ident = {"end": f"{name}-end", "whole": f"{name}-whole"}.get(kind, f"{name}-w{k:02d}")
            cut = int(round(cut_seconds * RATE))
            audio = pad_audio(samples, cut, "zeros", PAD_SECONDS, name)
            write_wav(out / "cuts" / f"{ident}.wav", audio)
            complete = None
            if kind == "inside":
                complete = k in COMPLETE_PREFIXES.get(name, set())
                unmatched.get(name, set()).discard(k)
            cuts.append({"id": ident, "clip": name, "group": clip["group"], "class": kind,
                         "words_before": k, "cut_seconds": round(cut / RATE, 3),
                         "prefix": " ".join(w for w, _, _ in words[:k]),
                         "next": " ".join(w for w, _, _ in words[k:k + 3]),
                         "complete_prefix": complete,
                         "end_kind": (END_KINDS.get(name, "utterance")
                                      if kind in ("end", "whole") else None),
                         "wav": f"cuts/{ident}.wav"})

        eligible = []
        for k in range(1, len(words)):
            cut_seconds = ends[k - 1]
            if cut_seconds - speech_start >= EDGE_SECONDS and speech_end - cut_seconds >= EDGE_SECONDS:
                eligible.append(k)
                add_cut("inside", k, cut_seconds)
        add_cut("end", len(words), speech_end)
        add_cut("whole", len(words), len(samples) / RATE)

        if eligible:
            middle = (speech_start + speech_end) / 2
            k = PAUSE_AT.get(name) or min(eligible, key=lambda j: abs(ends[j - 1] - middle))
            at = int(round(ends[k - 1] * RATE))
            resume = int(round(words[k][1] * RATE))   # the next word's start per pocketsphinx
            resume = max(resume, at)
            for pause in PAUSES:
                file = f"pauses/{name}-pause{pause}.wav"
                noise = fade_in(fade_out(room_noise(samples, pause, f"{name}/{pause}")))
                audio = numpy.concatenate([fade_out(samples[:at]), noise,
                                           fade_in(samples[resume:])])
                write_wav(out / file, audio)
                pauses.append({"wav": file, "clip": name, "pause_seconds": pause,
                               "pause_start": round(at / RATE, 3),
                               "pause_end": round(at / RATE + pause, 3),
                               "removed_seconds": round((resume - at) / RATE, 3),
                               "words_before": k,
                               "before": " ".join(w for w, _, _ in words[:k]),
                               "after": " ".join(w for w, _, _ in words[k:]),
                               "reference": clips[-1]["reference"],
                               "complete_prefix": k in COMPLETE_PREFIXES.get(name, set())})

    for name, ks in unmatched.items():
        if ks:
            print(f"make_set: warning: {name}: no inside cut after word(s) {sorted(ks)}",
                  file=sys.stderr)
    manifest = {"made": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "data": str(DATA), "pad_seconds": PAD_SECONDS, "edge_seconds": EDGE_SECONDS,
                "clips": clips, "cuts": cuts, "pauses": pauses}
    (out / "set.json").write_text(json.dumps(manifest, indent=1) + "\n")
    (out / "pauses.json").write_text(json.dumps(pauses, indent=1) + "\n")
    inside = sum(c["class"] == "inside" for c in cuts)
    ends = sum(c["class"] == "end" for c in cuts)
    print(f"make_set: {len(clips)} clips, {inside} inside cuts "
          f"({sum(bool(c['complete_prefix']) for c in cuts)} complete prefixes), "
          f"{ends} ends (and as many whole clips), {len(pauses)} pause files in {out}",
          file=sys.stderr)
    return manifest


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else os.environ.get("OUT", "/tmp/endpointing-set"))
    build(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
