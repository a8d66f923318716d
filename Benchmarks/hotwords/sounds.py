#!/usr/bin/env python3
"""Hotwords matched by sound after decoding: a prototype, measured before (or instead of) Swift.

    sounds.py decode [CACHE]           decode what the matching works on and keep it in CACHE
                                       (default ~/.cache/transcribe-hotwords/sounds.json): the
                                       32 commands of commands.txt spoken by espeak-ng (as
                                       names.py does) and by flite's slt and rms voices, each
                                       without hotwords and with the 33 names (the greedy
                                       decoder with bonus, second look and second spelling, as
                                       in Swift: search.py's port); the LibriVox clips, clean
                                       and under pink noise (10 dB), without hotwords and with
                                       the benchmark's 50 names
    sounds.py match [CACHE] [OPTIONS]  the sound matching over the cached transcripts, at
                                       several thresholds: names right, names heard but not
                                       said, commands without names changed, per voice, and the
                                       LibriVox WER; OPTIONS is a Python dict literal of
                                       `Matcher`'s keyword arguments
    sounds.py distances [CACHE]        per voice, each missed name's closest span, and the
                                       spans closest to a name where none was said
    sounds.py verify [CACHE]           asks the model about every candidate (threshold 0.4):
                                       how far below the transcript it scores the transcript
                                       with the hotword in place (forced decoding); kept beside
                                       CACHE (.verify.json)
    sounds.py grid [CACHE] [OPTIONS]   the figures for thresholds, the rare-word guard and model
                                       bounds (OPTIONS may hold 'show': (rare, threshold, bound)
                                       to print what that setting changes)
    sounds.py lexicon [OPTIONS]        dictionary words (wamerican) the matcher would turn into a
                                       name wherever they are said
    sounds.py probe                    sentences without names but with words that sound like
                                       one, through the decoder and the matching
    sounds.py cost [OPTIONS]           the matching's time for 500 phrases on the LibriVox
                                       transcripts against the Python model's time

Needs what search.py needs, and flite (`apt-get install flite`) for the second voices,
wamerican for `lexicon`.

How it matches: every word is turned into phonemes by espeak-ng (`-x`, its ASCII phoneme
names, stress marks dropped), each word on its own (cached); a span of one to four
consecutive words of a transcript is compared with each hotword by a weighted edit distance
over phonemes (substitutions cost less between similar sounds: vowels with vowels, consonants
that differ only in voicing, place or manner), divided by the longer of the two; spans closer
than a threshold are replaced by the hotword, the closest first, spans not overlapping. Spans
that already are a hotword, or hold a number, are left alone; with the rare-word guard, so are
spans whose words are each one token of the model's vocabulary (its most common words). A
prototype: figures only (Benchmarks/hotwords/README.md).
"""
import ast
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "scripts"))
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / \
    "transcribe-hotwords" / "sounds.json"

# The benchmark's 50 unrelated names for LibriVox (HotwordBenchmarkTests.fifty), and its 500.
EXTRA_NAMES = ["Lifx", "Hue Gradient", "Aqara", "Shelly", "Zigbee", "Ecobee", "Lutron", "Wiz",
               "Tapo", "Kasa", "Yeelight", "Arlo", "Ring", "Netatmo", "Fibaro", "Sengled", "Wemo"]
THINGS = ["lamp", "light", "room", "speaker", "blinds", "plug", "fan", "camera", "heater",
          "door"]


def commands():
    for line in open(HERE / "commands.txt", encoding="utf-8"):
        line = line.rstrip("\n")
        if line and not line.startswith("#"):
            text, names = line.split("|")
            yield text, [name for name in names.split(",") if name]


def every_name():
    return sorted({name for _, names in commands() for name in names})


def fifty():
    return every_name() + EXTRA_NAMES


def five_hundred():
    return [f"{name} {thing}" for name in fifty() for thing in THINGS]


def words_of(text):
    return {re.sub(r"'s$", "", word.strip(".,!?\"'").lower()) for word in text.split()}


# ------------------------------------------------------------------------------------------
# Decoding (search.py's port of the Swift decoder), cached
# ------------------------------------------------------------------------------------------

VOICES = {
    "espeak-ng": lambda text, wav: ["espeak-ng", "-v", "en-us", "-s", "150", "-w", wav, text],
    "flite-slt": lambda text, wav: ["flite", "-voice", "slt", "-t", text, "-o", wav],
    "flite-rms": lambda text, wav: ["flite", "-voice", "rms", "-t", text, "-o", wav],
}


def speak(voice, text, work):
    import moonshine_reference as reference

    raw, wav = f"{work}/voice.wav", f"{work}/speech.wav"
    subprocess.run(VOICES[voice](text, raw), check=True)
    subprocess.run(["sox", raw, "-r", "16000", "-c", "1", "-b", "16", "-D", wav], check=True)
    return reference.read_wav(Path(wav))


def noisy(path, work):
    """The clip under pink noise 10 dB below its speech, as NoisySpeech.mix makes it."""
    import numpy as np
    import moonshine_reference as reference

    speech = reference.read_wav(path)
    noise_file, mixed = f"{work}/noise.wav", f"{work}/mixed.wav"
    subprocess.run(["sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", noise_file,
                    "synth", str(len(speech) / 16000), "pinknoise", "vol", "0.5"], check=True)
    frames = [speech[start:start + 320] for start in range(0, len(speech) - 319, 320)]
    energies = sorted(float(np.sum((frame * 32768.0) ** 2)) for frame in frames)
    loud = energies[-max(1, len(energies) // 2):]
    speech_level = math.sqrt(sum(loud) / (len(loud) * 320))
    noise = reference.read_wav(Path(noise_file)) * 32768.0
    noise_level = math.sqrt(float(np.mean(noise.astype(np.float64) ** 2)))
    gain = speech_level / max(noise_level, 1) / 10 ** (10 / 20)
    subprocess.run(["sox", "-m", "-v", "1", str(path), "-v", f"{gain:.6f}", noise_file, mixed],
                   check=True)
    return reference.read_wav(Path(mixed))


def decode(cache):
    import search
    import moonshine_reference as reference

    chosen = dict(respell="further", second_look=True)
    names = search.Tree(every_name())
    empty = search.Tree([])
    result = {"commands": {}, "librivox": []}
    with tempfile.TemporaryDirectory() as work:
        for voice in VOICES:
            rows = []
            for text, said in commands():
                samples = speak(voice, text, work)
                plain, _ = search.greedy(samples, empty)
                started = time.perf_counter()
                biased, _ = search.greedy(samples, names, **chosen)
                rows.append(dict(text=text, names=said, plain=plain, biased=biased,
                                 seconds=time.perf_counter() - started))
                print(f"{voice}: {text} -> {plain} | {biased}", flush=True)
            result["commands"][voice] = rows
        tree50 = search.Tree(fifty())
        for path, text in reference.librivox_clips():
            for label, samples in [("clean", reference.read_wav(path)),
                                   ("noisy", noisy(path, work))]:
                started = time.perf_counter()
                plain, _ = search.greedy(samples, empty)
                seconds = time.perf_counter() - started
                biased, _ = search.greedy(samples, tree50, **chosen)
                result["librivox"].append(dict(clip=path.stem, audio=label, reference=text,
                                               plain=plain, biased=biased,
                                               decoder_seconds=seconds))
                print(f"librivox {label}: {plain} | {biased}", flush=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(result, indent=1))
    print(f"kept in {cache}")



# ------------------------------------------------------------------------------------------
# Phonemes and their distance
# ------------------------------------------------------------------------------------------

_PHONEMES = {}


def phonemize(words):
    """Each word's phonemes (espeak-ng -x, en-us, the word alone), as a tuple of names."""
    missing = sorted({word for word in words if word not in _PHONEMES})
    if missing:
        lines = subprocess.run(["espeak-ng", "-q", "-v", "en-us", "-x", "--sep=_", "-l", "1000"],
                               input="\n".join(missing), capture_output=True, text=True,
                               check=True).stdout.splitlines()
        if len(lines) != len(missing):  # one word a call, then
            lines = [subprocess.run(["espeak-ng", "-q", "-v", "en-us", "-x", "--sep=_", word],
                                    capture_output=True, text=True, check=True).stdout.strip()
                     for word in missing]
        for word, line in zip(missing, lines):
            _PHONEMES[word] = tuple(
                phoneme for phoneme in re.split(r"[_ ]+", re.sub(r"[',%=;]", "", line))
                if phoneme)
    return [_PHONEMES[word] for word in words]


# Consonants: voiced, place (bilabial 0 ... glottal 7), manner.
CONSONANTS = {
    "p": (0, 0, "stop"), "b": (1, 0, "stop"), "t": (0, 3, "stop"), "d": (1, 3, "stop"),
    "t#": (1, 3, "stop"), "t2": (0, 3, "stop"), "k": (0, 6, "stop"), "g": (1, 6, "stop"),
    "?": (0, 7, "stop"), "f": (0, 1, "fricative"), "v": (1, 1, "fricative"),
    "T": (0, 2, "fricative"), "D": (1, 2, "fricative"), "s": (0, 3, "fricative"),
    "z": (1, 3, "fricative"), "S": (0, 4, "fricative"), "Z": (1, 4, "fricative"),
    "h": (0, 7, "fricative"), "x": (0, 6, "fricative"), "tS": (0, 4, "affricate"),
    "dZ": (1, 4, "affricate"), "m": (1, 0, "nasal"), "n": (1, 3, "nasal"),
    "N": (1, 6, "nasal"), "l": (1, 3, "lateral"), "r": (1, 4, "approximant"),
    "w": (1, 0, "approximant"), "j": (1, 5, "approximant"),
}
MANNERS = {frozenset(["stop", "affricate"]): 0.5, frozenset(["affricate", "fricative"]): 0.5,
           frozenset(["lateral", "approximant"]): 0.5}
# Vowels: the nucleus's height (close 0 ... open 3) and backness (front 0 ... back 2), and
# where a diphthong glides to ("" for none).
VOWELS = {
    "i:": (0, 0, ""), "i": (0.3, 0.2, ""), "I": (0.5, 0.3, ""), "I2": (0.5, 0.3, ""),
    "I#": (0.5, 0.6, ""), "i@": (0, 0, "@"), "i@3": (0, 0, "@"), "eI": (1, 0, "i"),
    "e@": (1.5, 0, "@"), "E": (2, 0, ""), "a": (2.7, 0, ""), "aa": (2.7, 0.3, ""),
    "a#": (2, 1, ""), "aI": (3, 0.7, "i"), "aU": (3, 0.7, "u"), "A:": (3, 2, ""),
    "A@": (3, 2, "@"), "0": (3, 2, ""), "O:": (2, 2, ""), "O2": (2, 2, ""), "O@": (2, 2, "@"),
    "OI": (2, 2, "i"), "oU": (1, 2, "u"), "o@": (1, 2, "@"), "u:": (0, 2, ""),
    "U": (0.5, 1.7, ""), "U@": (0.5, 1.7, "@"), "V": (2, 1.3, ""), "@": (1.5, 1, ""),
    "@2": (1.5, 1, ""), "@-": (1.5, 1, ""), "3": (1.5, 1, "r"), "3:": (1.5, 1, "r"),
    "@L": (1.5, 1, "l"),
}


def is_vowel(phoneme):
    return phoneme in VOWELS or phoneme[:1] in "aAeEiIoOuUV@30"


def substitution(a, b):
    if a == b:
        return 0.0
    if is_vowel(a) and is_vowel(b):
        (h1, b1, g1), (h2, b2, g2) = VOWELS.get(a, (1.5, 1, "")), VOWELS.get(b, (1.5, 1, ""))
        return min(0.8, 0.15 + 0.1 * (abs(h1 - h2) + abs(b1 - b2)) + (0.15 if g1 != g2 else 0))
    if a in CONSONANTS and b in CONSONANTS:
        (v1, p1, m1), (v2, p2, m2) = CONSONANTS[a], CONSONANTS[b]
        manner = 0.0 if m1 == m2 else MANNERS.get(frozenset([m1, m2]), 1.0)
        return min(1.0, 0.25 * (v1 != v2) + 0.35 * min(1.0, abs(p1 - p2) / 3) + 0.5 * manner)
    return 1.0


def indel(phoneme):
    if phoneme in ("@", "@2", "@-", "h", "?", "I2", "a#"):
        return 0.5
    return 1.0


CELLS = [0]


def distance(a, b):
    """The weighted edit distance between two phoneme sequences, over the longer's length."""
    CELLS[0] += len(a) * len(b)
    previous = [0.0]
    for phoneme in b:
        previous.append(previous[-1] + indel(phoneme))
    for x in a:
        current = [previous[0] + indel(x)]
        for j, y in enumerate(b):
            current.append(min(previous[j + 1] + indel(x), current[j] + indel(y),
                               previous[j] + substitution(x, y)))
        previous = current
    return previous[-1] / max(len(a), len(b), 1)


# ------------------------------------------------------------------------------------------
# The matcher
# ------------------------------------------------------------------------------------------

WORD = re.compile(r"[A-Za-z0-9']+")


_WHOLE = None


def is_whole_token(word):
    """Whether the model's vocabulary has the word as one token (a space, then the word, in
    lower case or capitalised): the words it knows best, which a misheard name rarely is."""
    global _WHOLE
    if _WHOLE is None:
        import moonshine_reference as reference

        tokenizer = reference.Tokenizer(reference.installed_model_dir() / "tokenizer.bin")
        _WHOLE = {piece.replace("\u2581".encode(), b" ").decode("utf-8", "replace")
                  for piece in tokenizer.pieces}
    return any(f" {form}" in _WHOLE for form in (word, word.lower(), word.capitalize()))


class Matcher:
    """Replaces spans of a transcript that sound like a hotword (see the header).

    threshold: the most a span's distance may be; longest: the most words a span has;
    ratio: the most the span's phonemes and the hotword's may differ in number, as a fraction
    of the longer."""

    def __init__(self, phrases, threshold=0.3, longest=4, ratio=0.35, rare=False,
                 shortest=0):
        self.phrases = [" ".join(phrase.split()) for phrase in phrases if phrase.strip()]
        self.threshold, self.longest, self.ratio = threshold, longest, ratio
        self.rare, self.shortest = rare, shortest
        self.sounds = [sum(phonemize([word.lower() for word in WORD.findall(phrase)]), ())
                       for phrase in self.phrases]
        self.lowered = {phrase.lower() for phrase in self.phrases}

    def candidates(self, text):
        """Every (distance, first word, last word, phrase) within the threshold."""
        spans = [(m.start(), m.end(), m.group(0)) for m in WORD.finditer(text)]
        bare = [re.sub(r"'s$", "", word.lower()) for _, _, word in spans]
        sounds = phonemize(bare) if bare else []
        out = []
        for first in range(len(spans)):
            for last in range(first, min(len(spans), first + self.longest)):
                said = " ".join(bare[first:last + 1])
                if said in self.lowered or any(word in self.lowered
                                               for word in bare[first:last + 1]):
                    continue
                if any(any(c.isdigit() for c in word) for word in bare[first:last + 1]):
                    continue
                if self.rare and all(is_whole_token(word) for word in bare[first:last + 1]):
                    continue
                sound = sum(sounds[first:last + 1], ())
                for index, phrase in enumerate(self.phrases):
                    target = self.sounds[index]
                    if len(target) < self.shortest:
                        continue
                    longer = max(len(sound), len(target))
                    if abs(len(sound) - len(target)) > self.ratio * longer:
                        continue
                    d = distance(sound, target)
                    if d <= self.threshold:
                        out.append((d, first, last, phrase))
        return out, spans

    def apply(self, text):
        found, spans = self.candidates(text)
        return self.replace_closest(text, spans, found)

    @staticmethod
    def replace_closest(text, spans, found):
        """Replaces the closest matches first, none overlapping one already taken."""
        taken, chosen = set(), []
        for d, first, last, phrase in sorted(found):
            if taken & set(range(first, last + 1)):
                continue
            taken |= set(range(first, last + 1))
            chosen.append((first, last, phrase))
        for first, last, phrase in sorted(chosen, reverse=True):
            text = replaced(text, spans, first, last, phrase)
        return text



# ------------------------------------------------------------------------------------------
# Reports
# ------------------------------------------------------------------------------------------


def distances(data, options):
    """Where a threshold could lie: the distance of each missed name's closest span, and the
    closest spans of texts where no name was said."""
    loose = Matcher(every_name(), **{**options, "threshold": 1.0})
    for voice, rows in data["commands"].items():
        print(f"## {voice}: names missed after decoding with hotwords, their closest span")
        for row in rows:
            got = words_of(row["biased"])
            for name in row["names"]:
                if name.lower() in got:
                    continue
                found, spans = loose.candidates(row["biased"])
                best = min(((d, first, last) for d, first, last, phrase in found
                            if phrase == name), default=None)
                if best is None:
                    print(f"  {name:14s}   -    (no span of a similar length)  {row['biased']}")
                    continue
                d, first, last = best
                span = " ".join(spans[index][2] for index in range(first, last + 1))
                print(f"  {name:14s} {d:.2f} {span!r:28s} {row['biased']}")
        impostors = []
        for row in rows:
            found, spans = loose.candidates(row["biased"])
            for d, first, last, phrase in found:
                if phrase not in row["names"]:
                    span = " ".join(spans[index][2] for index in range(first, last + 1))
                    impostors.append((d, phrase, span))
        impostors.sort()
        print(f"## {voice}: the closest spans to a name not said there")
        for d, phrase, span in impostors[:12]:
            print(f"  {d:.2f} {phrase:12s} {span!r}")
    loose = Matcher(fifty(), **{**options, "threshold": 1.0})
    impostors = []
    for row in data["librivox"]:
        found, spans = loose.candidates(row["biased"])
        impostors += [(d, phrase, " ".join(spans[index][2] for index in range(first, last + 1)))
                      for d, first, last, phrase in found]
    impostors.sort()
    print("## LibriVox (clean and noisy), 50 names: the closest spans")
    for d, phrase, span in impostors[:12]:
        print(f"  {d:.2f} {phrase:12s} {span!r}")


def librivox_wer(data, key, matcher=None):
    import moonshine_reference as reference

    result = {}
    for audio in ("clean", "noisy"):
        errors = count = 0
        for row in data["librivox"]:
            if row["audio"] != audio:
                continue
            text = row[key] if matcher is None else matcher.apply(row[key])
            expected = reference.normalize(row["reference"])
            errors += reference.word_errors(expected, reference.normalize(text))
            count += len(expected)
        result[audio] = (errors, count)
    return result


def score(rows, texts, every):
    right = said = invented = changed = 0
    for row, text in zip(rows, texts):
        got, expected = words_of(text), {name.lower() for name in row["names"]}
        right += len(expected & got)
        said += len(expected)
        invented += len({name.lower() for name in every} & got - expected
                        - words_of(row["plain"]))
        changed += not row["names"] and text != row["plain"]
    return right, said, invented, changed


def match(data, options, thresholds=(0.15, 0.2, 0.25, 0.3, 0.35, 0.4), show=None):
    every = every_name()
    print("| voice | decoding | threshold | names right | invented | no-name changed |")
    print("|---|---|---|---|---|---|")
    for voice, rows in data["commands"].items():
        for key in ("plain", "biased"):
            right, said, invented, changed = score(rows, [row[key] for row in rows], every)
            label = "without hotwords" if key == "plain" else "hotwords (decoder)"
            print(f"| {voice} | {label} | – | {right}/{said} | {invented} | {changed} |")
        for threshold in thresholds:
            for key in ("plain", "biased"):
                matcher = Matcher(every, **{**options, "threshold": threshold})
                texts = [matcher.apply(row[key]) for row in rows]
                right, said, invented, changed = score(rows, texts, every)
                label = "sounds only" if key == "plain" else "decoder + sounds"
                print(f"| {voice} | {label} | {threshold} | {right}/{said} | {invented} | "
                      f"{changed} |")
                if show is not None and threshold == show and key == "biased":
                    for row, text in zip(rows, texts):
                        if text != row["biased"]:
                            print(f"    {row['text']}: {row['biased']} -> {text}")
    plain = librivox_wer(data, "plain")
    print("| LibriVox | threshold | WER clean | WER noisy |")
    print("|---|---|---|---|")
    for label, wer in [("none", plain), ("50 names, decoder", librivox_wer(data, "biased"))] + [
            (f"50 names, decoder + sounds {threshold}",
             librivox_wer(data, "biased", Matcher(fifty(), **{**options,
                                                                "threshold": threshold})))
            for threshold in thresholds]:
        print(f"| {label} | {wer['clean'][0] / wer['clean'][1]:.4f} ({wer['clean'][0]}) | "
              f"{wer['noisy'][0] / wer['noisy'][1]:.4f} ({wer['noisy'][0]}) |")



def forced(samples, text):
    """The model's log-probability of `text` (then the end) for the audio: each step takes the
    likeliest token that spells on along the text (search.py's gaps)."""
    import numpy as np
    import search

    decoder = search.Decoder(search.with_lead_in(samples))
    row, past = decoder.first()
    target, position, total = (" " + " ".join(text.split())).encode(), 0, 0.0
    while True:
        logp = search.log_softmax(row)
        if position >= len(target):
            return total + float(logp[search.END])
        token = next((int(token) for token in np.argsort(-logp)
                      if search.END < token < len(search.PIECES) and search.PIECES[token]
                      and target.startswith(search.PIECES[token], position)), None)
        if token is None:
            return -1e9
        total += float(logp[token])
        position += len(search.PIECES[token])
        row, past = decoder.step(token, past)


def replaced(text, spans, first, last, phrase):
    start, end = spans[first][0], spans[last][1]
    suffix = "'s" if spans[last][2].lower().endswith("'s") else ""
    return text[:start] + phrase + suffix + text[end:]


def verify(data, options, cache):
    """Scores every candidate the matcher finds (at its loosest: threshold 0.4, no guard) with
    the model: how far below the transcript it replaces the model finds the transcript with the
    hotword in its place (natural log of the probability, forced decoding). Kept in CACHE with
    `.verify` before the suffix, for `grid`."""
    import moonshine_reference as reference

    loose = {**options, "threshold": 0.4, "rare": False}
    out = {"commands": {}, "librivox": []}
    with tempfile.TemporaryDirectory() as work:
        for voice, rows in data["commands"].items():
            matcher = Matcher(every_name(), **loose)
            out["commands"][voice] = []
            for row in rows:
                found, spans = matcher.candidates(row["biased"])
                costs = {}
                if found:
                    samples = speak(voice, row["text"], work)
                    base = forced(samples, row["biased"])
                    for d, first, last, phrase in found:
                        text = replaced(row["biased"], spans, first, last, phrase)
                        costs[text] = base - forced(samples, text)
                out["commands"][voice].append(costs)
                print(voice, row["text"], len(costs), flush=True)
        clips = {path.stem: path for path, _ in reference.librivox_clips()}
        matcher = Matcher(fifty(), **loose)
        for row in data["librivox"]:
            found, spans = matcher.candidates(row["biased"])
            costs = {}
            if found:
                path = clips[row["clip"]]
                samples = reference.read_wav(path) if row["audio"] == "clean" \
                    else noisy(path, work)
                base = forced(samples, row["biased"])
                for d, first, last, phrase in found:
                    text = replaced(row["biased"], spans, first, last, phrase)
                    costs[text] = base - forced(samples, text)
            out["librivox"].append(costs)
            print(row["clip"], row["audio"], len(costs), flush=True)
    path = cache.with_suffix(".verify.json")
    path.write_text(json.dumps(out, indent=1))
    print(f"kept in {path}")


class Verified(Matcher):
    """A matcher that also asks the model: a candidate is kept when the model scores the text
    with the hotword in its place at most `bound` below the text it replaces (the costs cached
    by `verify`)."""

    def __init__(self, phrases, costs=None, bound=None, **options):
        super().__init__(phrases, **options)
        self.costs, self.bound = costs or {}, bound

    def apply(self, text):
        found, spans = self.candidates(text)
        if self.bound is not None:
            found = [(d, first, last, phrase) for d, first, last, phrase in found
                     if self.costs.get(replaced(text, spans, first, last, phrase), 1e9)
                     <= self.bound]
        return self.replace_closest(text, spans, found)


def grid(data, options, cache, thresholds=(0.25, 0.3, 0.35, 0.4),
         bounds=(None, 5.0, 7.5, 10.0, 12.5, 15.0, 20.0), show=None):
    """Names right / invented / no-name commands changed per voice, and LibriVox's errors, for
    sound thresholds and model bounds; decoder + sounds (the transcript decoded with the
    hotwords, then matched)."""
    import moonshine_reference as reference

    costs = json.loads(cache.with_suffix(".verify.json").read_text())
    every = every_name()
    voices = list(data["commands"])
    print("| guard | threshold | model bound (nats) | " + " | ".join(voices)
          + " | LibriVox errors clean, noisy (of 71) |")
    print("|---|---|---|" + "---|" * len(voices) + "---|")
    for rare in (False, True):
        for threshold in thresholds:
            for bound in bounds:
                cells = []
                for voice in voices:
                    rows = data["commands"][voice]
                    texts = []
                    for row, cost in zip(rows, costs["commands"][voice]):
                        matcher = Verified(every, cost, bound, **{
                            **options, "threshold": threshold, "rare": rare})
                        texts.append(matcher.apply(row["biased"]))
                        if show == (rare, threshold, bound) and texts[-1] != row["biased"]:
                            print(f"    {voice}: {row['biased']} -> {texts[-1]}")
                    right, said, invented, changed = score(rows, texts, every)
                    cells.append(f"{right}/{said}, {invented}, {changed}")
                errors = {"clean": 0, "noisy": 0}
                for row, cost in zip(data["librivox"], costs["librivox"]):
                    matcher = Verified(fifty(), cost, bound, **{
                        **options, "threshold": threshold, "rare": rare})
                    errors[row["audio"]] += reference.word_errors(
                        reference.normalize(row["reference"]),
                        reference.normalize(matcher.apply(row["biased"])))
                guard = "rare word" if rare else "–"
                print(f"| {guard} | {threshold} | {bound or '–'} | " + " | ".join(cells)
                      + f" | {errors['clean']}, {errors['noisy']} |")



def cost(data, options):
    """The matching's time with 500 phrases on the LibriVox transcripts (clean), against the
    Python decoder's: compiling the list (phonemes of every phrase), then per transcript the
    phonemes of its words (espeak-ng run once per new word here; a library call in a product)
    and the spans' distances; and how many candidates the model would have to check (one
    forced decoding each) at the threshold given (default 0.35)."""
    threshold = options.pop("threshold", 0.35)
    _PHONEMES.clear()
    started = time.perf_counter()
    matcher = Matcher(five_hundred(), threshold=threshold, **options)
    compiled = time.perf_counter() - started
    rows = [row for row in data["librivox"] if row["audio"] == "clean"]
    decoder = sum(row["decoder_seconds"] for row in rows)
    started = time.perf_counter()
    for row in rows:
        phonemize([re.sub(r"'s$", "", word.lower()) for word in WORD.findall(row["biased"])])
    words = time.perf_counter() - started
    best, candidates = math.inf, 0
    CELLS[0] = 0
    for _ in range(3):
        started = time.perf_counter()
        candidates = sum(len(matcher.candidates(row["biased"])[0]) for row in rows)
        best = min(best, time.perf_counter() - started)
    print(f"500 phrases: phonemes of the list {compiled * 1000:.0f} ms (once per list); "
          f"the clips' words' phonemes (espeak-ng, cold) {words * 1000:.0f} ms; the spans' "
          f"distances {best * 1000:.0f} ms (best of 3) for {len(rows)} clips, against "
          f"{decoder * 1000:.0f} ms of the Python model without hotwords (encoder and "
          f"decoder): {best / decoder:.2f}x; {CELLS[0] // 3} cells of edit distance; candidates "
          f"within {threshold}: {candidates}")



def lexicon(options, words="/usr/share/dict/american-english"):
    """Ordinary English words the matcher would turn into one of the 33 names wherever they
    are said: every lower-case word of a dictionary (Debian's wamerican) within the threshold
    of a name, counting only the words the rare-word guard lets through (not one token of the
    model's vocabulary)."""
    threshold = options.get("threshold", 0.25)
    entries = sorted({line.strip() for line in open(words, encoding="utf-8")
                      if re.fullmatch(r"[a-z]+", line.strip())})
    entries = [word for word in entries if not is_whole_token(word)]
    sounds = dict(zip(entries, phonemize(entries)))
    matcher = Matcher(every_name(), threshold=threshold)
    lowered = {name.lower() for name in every_name()}
    total = 0
    for name, target in zip(matcher.phrases, matcher.sounds):
        near = []
        for word, sound in sounds.items():
            longer = max(len(sound), len(target))
            if word in lowered or abs(len(sound) - len(target)) > matcher.ratio * longer:
                continue
            d = distance(sound, target)
            if d <= threshold:
                near.append((d, word))
        near.sort()
        total += len(near)
        print(f"{name:13s} {len(near):4d}  " + ", ".join(f"{word} {d:.2f}" for d, word in near[:8]),
              flush=True)
    print(f"{len(entries)} dictionary words not one token of the vocabulary; {total} (word, name) "
          f"pairs within {threshold}")



# Sentences without any of the names, each with a word `lexicon` finds within 0.25 of one
# (written from its list, so at risk by construction).
PROBE = ["Cook a meal for the kids.", "Drain the pasta in the sink.", "Ask the boss about it.",
         "Play the monster movie.", "Put the sofa in the living room.", "Buy a taco for lunch.",
         "The grain is in the barn.", "This chair is very comfy.", "Turn up the cozy lights.",
         "Kneel down by the crane."]


def probe(options):
    """PROBE spoken by each voice, decoded with the 33 names as hotwords, then matched by the
    two rules that invent no name in the commands: the rare-word guard at 0.25, and 0.35 with
    the model's bound of 10 nats. Counts the sentences where a name appears."""
    import search

    tree, empty = search.Tree(every_name()), search.Tree([])
    guarded = Matcher(every_name(), threshold=0.25, rare=True)
    asked = Matcher(every_name(), threshold=0.35)
    counts = {"decoder": 0, "guard, 0.25": 0, "0.35, model bound 10": 0}
    lowered = {name.lower() for name in every_name()}
    with tempfile.TemporaryDirectory() as work:
        for voice in VOICES:
            for text in PROBE:
                samples = speak(voice, text, work)
                plain, _ = search.greedy(samples, empty)
                biased, _ = search.greedy(samples, tree, respell="further", second_look=True)
                found, spans = asked.candidates(biased)
                costs = {}
                if found:
                    base = forced(samples, biased)
                    for d, first, last, phrase in found:
                        changed = replaced(biased, spans, first, last, phrase)
                        costs[changed] = base - forced(samples, changed)
                outputs = {"decoder": biased, "guard, 0.25": guarded.apply(biased),
                           "0.35, model bound 10": Verified(every_name(), costs, 10.0,
                                                            threshold=0.35).apply(biased)}
                for label, output in outputs.items():
                    counts[label] += bool(words_of(output) & lowered - words_of(plain))
                print(f"{voice}: {text} -> {plain} | " + " | ".join(outputs.values()),
                      flush=True)
    print(", ".join(f"{label}: a name in {count} of {len(VOICES) * len(PROBE)}"
                    for label, count in counts.items()))


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    cache = Path(argv[2]) if len(argv) > 2 and not argv[2].startswith("{") else CACHE
    options = ast.literal_eval(argv[-1]) if len(argv) > 2 and argv[-1].startswith("{") else {}
    if command == "decode":
        decode(cache)
    elif command == "match":
        show = options.pop("show", None)
        match(json.loads(cache.read_text()), options, show=show)
    elif command == "distances":
        distances(json.loads(cache.read_text()), options)
    elif command == "verify":
        verify(json.loads(cache.read_text()), options, cache)
    elif command == "grid":
        show = options.pop("show", None)
        grid(json.loads(cache.read_text()), options, cache, show=show)
    elif command == "probe":
        probe(options)
    elif command == "lexicon":
        lexicon(options)
    elif command == "cost":
        cost(json.loads(cache.read_text()), options)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
