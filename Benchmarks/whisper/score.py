#!/usr/bin/env python3
"""Scores decoding runs against set.tsv: word error rate per language and overall, the language
each file was heard in, and the decode time.

    score.py SET_TSV RUN.jsonl...      one table row per run file (JSON lines from
                                       whisper_decode or faster_whisper_decode.py)
    score.py --words SET_TSV RUN.jsonl  each file's reference and hypothesis
    --languages de,fr,...               only the files of those languages (by reference)

WER: word-level edit distance over the reference's word count, summed over files (so a language's
figure weighs its files by their words). Both texts are normalized alike: Unicode NFKC, lower
case, hyphens and apostrophes as spaces, other punctuation dropped; in English "mr"/"mrs" are
spelled out as the LibriVox references spell them, and <s> </s> markers are dropped.
"""

import json
import re
import sys
import unicodedata
from collections import defaultdict

ENGLISH_ABBREVIATIONS = {"mr": "mister", "mrs": "missus", "dr": "doctor"}


def normalize(text: str, language: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).lower()
    text = text.replace("<s>", " ").replace("</s>", " ")
    text = re.sub(r"[-'’‐–]", " ", text)
    # Drop every other punctuation or symbol character (Unicode categories P* and S*).
    text = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in text)
    words = text.split()
    if language == "en":
        words = [ENGLISH_ABBREVIATIONS.get(word, word) for word in words]
    return words


def edit_distance(reference: list[str], hypothesis: list[str]) -> int:
    previous = list(range(len(hypothesis) + 1))
    for i, word in enumerate(reference, 1):
        current = [i]
        for j, other in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (word != other)))
        previous = current
    return previous[-1]


def read_set(path: str) -> dict:
    entries = {}
    for line in open(path, encoding="utf-8"):
        file, language, text = line.rstrip("\n").split("\t")
        entries[file] = (language, text)
    return entries


def read_run(path: str, entries: dict) -> list[dict]:
    results = [json.loads(line) for line in open(path, encoding="utf-8") if line.startswith("{")]
    return [result for result in results if result["file"] in entries]


def score(entries: dict, results: list[dict]) -> dict:
    errors, words = defaultdict(int), defaultdict(int)
    detected, counted = defaultdict(int), defaultdict(int)
    seconds, audio = 0.0, 0.0
    for result in results:
        language, reference = entries[result["file"]]
        ref = normalize(reference, language)
        hyp = normalize(result["text"], language)
        for group in (language, "all"):
            errors[group] += edit_distance(ref, hyp)
            words[group] += len(ref)
            detected[group] += result["language"] == language
            counted[group] += 1
        seconds += result["seconds"]
        audio += result["audio_seconds"]
    return {"wer": {g: errors[g] / words[g] for g in words},
            "language_right": {g: detected[g] for g in counted},
            "files": {g: counted[g] for g in counted},
            "seconds": seconds, "audio_seconds": audio}


def main(argv: list[str]) -> int:
    show_words = "--words" in argv
    argv = [argument for argument in argv if argument != "--words"]
    only = None
    if "--languages" in argv:
        index = argv.index("--languages")
        only = set(argv[index + 1].split(","))
        del argv[index:index + 2]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    entries = read_set(argv[0])
    if only is not None:
        entries = {file: entry for file, entry in entries.items() if entry[0] in only}
    if show_words:
        for result in read_run(argv[1], entries):
            language, reference = entries[result["file"]]
            ref, hyp = normalize(reference, language), normalize(result["text"], language)
            print(f"{edit_distance(ref, hyp)}/{len(ref)} [{result['language']}] "
                  f"{' '.join(ref)}\n        {' '.join(hyp)}")
        return 0
    languages = sorted({language for language, _ in entries.values()})
    print("| run | decode s | " + " | ".join(f"WER {g}" for g in languages)
          + " | WER all | language right |")
    print("|---" * (len(languages) + 4) + "|")
    for path in argv[1:]:
        results = read_run(path, entries)
        if not results:
            continue  # a run of other files (or one still empty)
        s = score(entries, results)
        cells = [f"{s['wer'][g]:.3f}" if g in s["wer"] else "" for g in languages]
        print(f"| {path} | {s['seconds']:.2f} | " + " | ".join(cells)
              + f" | {s['wer']['all']:.3f} | {s['language_right']['all']}/{s['files']['all']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
