#!/usr/bin/env python3
"""Names right in espeak-ng commands, with and without hotwords (Benchmarks/hotwords/run.sh).

    names.py TRANSCRIBE [BOOST...]

Speaks each line of commands.txt with espeak-ng (en-us, 150 words a minute, 16 kHz through
sox without dither, so that every run hears the same samples), transcribes it with `TRANSCRIBE --engine moonshine -i FILE` without hotwords and with
every name of the set as --hotwords (at the default boost, then at each BOOST given), and
prints per command what was heard, then: names right, names heard that were not said, and
commands without names whose text changed. Standard library only.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def commands():
    for line in open(os.path.join(HERE, "commands.txt"), encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        text, names = line.split("|")
        yield text, [n for n in names.split(",") if n]


def words(text):
    return {re.sub(r"'s$", "", w.strip(".,!?\"'").lower()) for w in text.split()}


def main():
    transcribe, boosts = sys.argv[1], sys.argv[2:]
    items = list(commands())
    every = sorted({n for _, names in items for n in names})
    with tempfile.TemporaryDirectory() as work:
        files = []
        for index, (text, _) in enumerate(items):
            voice, wav = f"{work}/v{index}.wav", f"{work}/c{index}.wav"
            subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", voice, text], check=True)
            subprocess.run(["sox", voice, "-r", "16000", "-c", "1", "-b", "16", "-D", wav], check=True)
            files.append(wav)

        def heard(extra):
            return [subprocess.run([transcribe, "--engine", "moonshine", "-i", f] + extra,
                                   capture_output=True, text=True, check=True).stdout.strip()
                    .replace("\n", " ") for f in files]

        plain = heard([])
        sides = [("without", plain, [])]
        for boost in [None] + boosts:
            extra = ["--hotwords", ",".join(every)] + (["--hotword-boost", boost] if boost else [])
            sides.append((f"with (boost {boost or 'default'})", heard(extra), extra))
        for label, texts, _ in sides:
            right = said = inserted = changed = 0
            print(f"## {label}")
            for (text, names), out, base in zip(items, texts, plain):
                got = words(out)
                lowered = {n.lower() for n in names}
                hits = lowered & got
                extra_names = {n.lower() for n in every} & got - lowered - words(base)
                right += len(hits)
                said += len(lowered)
                inserted += len(extra_names)
                if not names and out != base:
                    changed += 1
                print(f"  {text} -> {out}")
            print(f"{label}: names right {right}/{said} ({100 * right / said:.0f} %), names heard "
                  f"but not said {inserted}, commands without names changed {changed}")


main()
