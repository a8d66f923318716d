#!/usr/bin/env python3
"""The live sentence rule of a `transcribe` build, judged on the study's set.

Feeds every cut of the set (`make_set.py`) through the streaming path of one or more builds
(`transcribe -i - --raw`, which takes no looks on the wall clock, so each run is
deterministic) with 1.6 s of padding after it, reads each judgement from the recognizer's log
(`TRANSCRIBE_LOG_ENDPOINTS=1`) and the final words from its JSON, and prints per build:

- inside cuts (75) judged finished: sentences the rule would cut (want 0);
- ends (13, the last word's sound then padding) and whole clips (13, each with its own tail)
  judged finished, and how long after the word's end in the audio the judgement came;
- the pause files (24: a thinking pause inserted inside each sentence): utterances, and any
  pause judged finished before the sentence's end;
- how many final transcripts differ from the first build's.

    live_rule.py [--set /tmp/endpointing-set] [--pads zeros,room] BUILD [BUILD...]

A BUILD is a binary, maybe with options: "/tmp/old/transcribe" ".build/release/transcribe
--silence 0.25". Runs one decode at a time, at the caller's priority.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_set  # noqa: E402

RATE = 16000
PAD_SECONDS = 1.6
JUDGEMENT = re.compile(
    r"pause at ([0-9.]+) s: (finished|unfinished|undecided) \"(.*)\" (?:judged at ([0-9.]+) s )?")


def run(build: list[str], samples) -> tuple[list[tuple[float, str, str, float]], list[dict]]:
    """Judgements (speech end, verdict, text, judged at) and final utterances of one input."""
    pcm = (samples.clip(-1, 1) * 32767).astype("<i2").tobytes()
    environment = dict(os.environ, TRANSCRIBE_LOG_ENDPOINTS="1")
    result = subprocess.run(
        build + ["-i", "-", "--raw", "--format", "json", "--engine", "moonshine"],
        input=pcm, capture_output=True, env=environment, check=True)
    judgements = [
        # A build that does not log when it judged (before 30 Nov 2026) judged at the first
        # 32 ms window 0.2 s after the speech end it logs.
        (float(m[1]), m[2], m[3], float(m[4]) if m[4] else float(m[1]) + 7 * 0.032)
        for m in JUDGEMENT.finditer(result.stderr.decode(errors="replace"))]
    finals = [json.loads(line) for line in result.stdout.decode().splitlines() if line.strip()]
    return judgements, [f for f in finals if f.get("isFinal")]


def text_of(finals: list[dict]) -> str:
    return " | ".join(" ".join(s["word"] for s in f["segments"]) for f in finals)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path,
                        default=Path(os.environ.get("OUT", "/tmp/endpointing-set")))
    parser.add_argument("--pads", default="zeros,room")
    parser.add_argument("--only", help="only cuts whose id contains this")
    parser.add_argument("builds", nargs="+")
    arguments = parser.parse_args(argv)

    manifest = json.loads((arguments.set / "set.json").read_text())
    clips = {clip["name"]: clip for clip in manifest["clips"]}
    audio = {name: make_set.read_audio(arguments.set / "clips" / f"{name}.wav") for name in clips}
    builds = [shlex.split(build) for build in arguments.builds]
    texts: list[dict[str, str]] = [{} for _ in builds]

    for index, build in enumerate(builds):
        print(f"## {' '.join(build)}")
        for pad in arguments.pads.split(","):
            false_ends, taken, lags = [], {"end": [], "whole": []}, {"end": [], "whole": []}
            for cut in manifest["cuts"]:
                if arguments.only and arguments.only not in cut["id"]:
                    continue
                samples = audio[cut["clip"]]
                position = int(round(cut["cut_seconds"] * RATE))
                padded = make_set.pad_audio(samples, position, pad, PAD_SECONDS, cut["clip"])
                judgements, finals = run(build, padded)
                texts[index][f"{cut['id']}/{pad}"] = text_of(finals)
                # Where the last word ends: its sound's end or the aligner's, the earlier (a
                # clip cut just after its last word has no sound end of its own).
                word_end = min(clips[cut["clip"]]["words"][cut["words_before"] - 1][2:4])
                # The judgement of the pause at the cut (or the clip's own end).
                at_cut = [j for j in judgements if j[0] >= word_end - 0.2]
                # A pause may be judged twice (the second time in the settled look): the last.
                verdict = [j for j in at_cut if j[0] == at_cut[0][0]][-1] if at_cut else None
                if cut["class"] == "inside":
                    if verdict and verdict[1] == "finished":
                        false_ends.append(f"{cut['id']} ({verdict[2]!r})")
                elif verdict and verdict[1] == "finished":
                    taken[cut["class"]].append(cut["id"])
                    lags[cut["class"]].append(verdict[3] - word_end)
            print(f"- {pad}: inside cuts judged finished: {len(false_ends)}"
                  + "".join(f"\n    {f}" for f in false_ends))
            for kind in ("end", "whole"):
                lag = lags[kind]
                held = sorted(c["clip"].replace("sense_and_sensibility_01_austen_64kb-", "")
                              for c in manifest["cuts"]
                              if c["class"] == kind and c["id"] not in taken[kind]
                              and (not arguments.only or arguments.only in c["id"]))
                print(f"- {pad}: {kind}s judged finished: {len(taken[kind])}"
                      + (f", judged {statistics.median(lag):.3f} s after the word (median), "
                         f"{min(lag):.3f}–{max(lag):.3f}" if lag else "")
                      + f"; held: {', '.join(held) or 'none'}")
        splits = []
        for pause in json.loads((arguments.set / "pauses.json").read_text()):
            if arguments.only and arguments.only not in pause["clip"]:
                continue
            samples = make_set.read_audio(arguments.set / pause["wav"])
            padded = make_set.pad_audio(samples, len(samples), "zeros", PAD_SECONDS, pause["clip"])
            judgements, finals = run(build, padded)
            texts[index][pause["wav"]] = text_of(finals)
            inside = [j for j in judgements
                      if pause["pause_start"] - 0.3 <= j[0] <= pause["pause_end"]
                      and j[1] == "finished"]
            if inside or len(finals) != 1:
                splits.append(f"{Path(pause['wav']).stem}: {len(finals)} utterances "
                              f"{text_of(finals)!r}")
        print(f"- pause files split or judged finished inside: {len(splits)}/24"
              + "".join(f"\n    {s}" for s in splits))
        if index > 0:
            changed = [key for key in texts[0] if texts[index].get(key) != texts[0][key]]
            print(f"- final words differing from the first build: {len(changed)}/{len(texts[0])}"
                  + "".join(f"\n    {key}: {texts[0][key]!r} -> {texts[index].get(key)!r}"
                            for key in changed))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
