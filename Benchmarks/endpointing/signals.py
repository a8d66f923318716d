#!/usr/bin/env python3
"""Measure, for every cut of the endpointing set (make_set.py), what the recognizer could use
to tell a pause inside a sentence from the end of one (issue 36).

    signals.py [OUT] [--pads zeros,room] [--seconds 0.1,0.3,0.5] [--only SUBSTRING]
               [--model DIR] [--vad FILE]

OUT (default /tmp/endpointing-set, or $OUT) must hold make_set.py's set.json. Each cut is
rebuilt in memory from OUT/clips/ with every padding ("zeros", "room") and every length of
audio after the last word (--seconds), as make_set.py's pad_audio does, and decoded greedily
with Moonshine (scripts/moonshine_reference.py's sessions, one intra-op thread) recording the
whole softmax at every step. Writes OUT/signals.json (one record per cut and variant) and prints
one line per decode.

Signals (names as in signals.json and README.md):
  text, terminal       the transcript; whether it ends in . ? ! or … (maybe then a quote or
                       bracket)
  after_word: at the decoder step right after the last word's last token (the step that
                       chose the final punctuation, or EOS when there is none):
    p_eos_after_word   P(EOS): would it have ended without punctuation
    p_period_after_word  P(".") (all tokens that are just a period)
    p_term_after_word  P(any sentence-final punctuation token: . ? ! … alone or with quotes)
    p_cont_after_word  P(any continuing punctuation token: , ; : — – -)
    p_more_after_word  P(anything else): a word, i.e. the model expects more speech
    term_share         p_term / (p_term + p_cont + p_more): how final, among the non-EOS mass
    entropy_after_word in nats
  p_final_punct        probability of the final punctuation token, when the text ends in one
  p_eos_end            P(EOS) at the step that ended the decoding
  p_eos_after_punct    P(EOS) at the step right after the final punctuation (same as p_eos_end
                       when the punctuation is the last token)
  lastword_mean_p, lastword_min_p   token probabilities of the last word
  mean_p, min_p        over all the tokens
  tokens, hit_max      tokens; whether decoding stopped at the token limit
VAD (Silero, 32 ms windows with 4 ms context, state from the start of the cut's audio):
  vad_last             the largest speech probability of the last 3 windows before the cut
  vad_pause_max        the largest of the windows wholly in the padding
  vad_release_s        from the cut to the end of the first window below 0.35 (threshold 0.5
                       minus 0.15, as the recognizer releases) after the last one >= 0.5
Audio before the cut (no model):
  drop_db              RMS of the last 100 ms of sound minus the median of the clip's sound
                       frames so far (10 ms frames at least 12 dB above the noise floor)
  f0_end_st            median F0 of the last 150 ms of voiced frames minus the median F0 of all
                       voiced frames so far, in semitones (autocorrelation, 60-400 Hz)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True      # no __pycache__ beside the scripts
import make_set  # noqa: E402

RATE = make_set.RATE
EOS = 2


def load_reference():
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location(
        "moonshine_reference", ROOT / "scripts" / "moonshine_reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["moonshine_reference"] = module
    spec.loader.exec_module(module)
    return module


reference = load_reference()

TERMINAL_CHARS = set(".?!…")
CONTINUING_CHARS = set(",;:—–-")
CLOSING_CHARS = set("\"'”’»)")


def token_classes(tokenizer) -> dict[str, numpy.ndarray]:
    """Ids of the vocabulary's pure punctuation tokens, by class (byte-fallback pieces are
    single raw bytes and count like the characters they are)."""
    period, terminal, continuing, punct = [], [], [], []
    for token, piece in enumerate(tokenizer.pieces):
        if token <= EOS:
            continue
        text = piece.decode("utf-8", errors="replace").replace(reference.SPACE_MARK, " ").strip()
        if not text or any(ch.isalnum() for ch in text):
            continue
        punct.append(token)
        chars = set(text)
        if text == ".":
            period.append(token)
        if chars <= TERMINAL_CHARS | CLOSING_CHARS and chars & TERMINAL_CHARS:
            terminal.append(token)
        elif chars <= CONTINUING_CHARS | CLOSING_CHARS and chars & CONTINUING_CHARS:
            continuing.append(token)
    return {name: numpy.array(ids, numpy.int64) for name, ids in
            [("period", period), ("terminal", terminal), ("continuing", continuing),
             ("punct", punct)]}


class Decoder:
    """Greedy decoding like moonshine_reference.Moonshine.transcribe, keeping the softmax."""

    def __init__(self, directory: Path):
        self.model = reference.Moonshine(directory, threads=1)
        self.classes = token_classes(self.model.tokenizer)
        self.is_punct = numpy.zeros(65536, bool)
        self.is_punct[self.classes["punct"]] = True

    def decode(self, samples: numpy.ndarray) -> dict:
        model = self.model
        audio = numpy.asarray(samples, numpy.float32).reshape(1, -1)
        max_tokens = max(1, math.ceil(audio.shape[1] / RATE * reference.MAX_TOKENS_PER_SECOND))
        hidden = model.encoder.run(None, {"input_values": audio})[0]
        feeds = {"input_ids": numpy.array([[reference.BOS_TOKEN_ID]], numpy.int64),
                 "encoder_hidden_states": hidden, "use_cache_branch": numpy.array([False]),
                 **model.empty_past}
        tokens, steps = [], []
        while True:
            outputs = dict(zip(model.output_names, model.decoder.run(None, feeds)))
            logits = outputs["logits"][0, -1].astype(numpy.float64)
            probabilities = numpy.exp(logits - logits.max())
            probabilities /= probabilities.sum()
            token = int(probabilities.argmax())
            steps.append(self.summarize(probabilities, token))
            if token == EOS:
                break
            tokens.append(token)
            if len(tokens) >= max_tokens:
                break
            feeds["input_ids"] = numpy.array([[token]], numpy.int64)
            for name in model.empty_past:
                if len(steps) == 1 or ".decoder." in name:
                    feeds[name] = outputs[name.replace("past_key_values.", "present.")]
            feeds["use_cache_branch"] = numpy.array([True])
        return self.signals(tokens, steps)

    def summarize(self, p: numpy.ndarray, token: int) -> dict:
        c = self.classes
        term, cont = float(p[c["terminal"]].sum()), float(p[c["continuing"]].sum())
        eos = float(p[EOS])
        top = numpy.argsort(p)[::-1][:3]
        return {"token": token, "p": float(p[token]), "eos": eos,
                "period": float(p[c["period"]].sum()), "term": term, "cont": cont,
                "more": max(0.0, 1.0 - eos - float(p[c["punct"]].sum())),
                "entropy": float(-(p[p > 0] * numpy.log(p[p > 0])).sum()),
                "top": [[int(t), round(float(p[t]), 4)] for t in top]}

    def signals(self, tokens: list[int], steps: list[dict]) -> dict:
        tokenizer = self.model.tokenizer
        text = tokenizer.decode(tokens)
        ended = bool(steps) and steps[-1]["token"] == EOS
        record = {"text": text, "tokens": len(tokens), "hit_max": not ended,
                  "terminal": bool(text) and _ends_terminal(text),
                  "p_eos_end": steps[-1]["eos"] if ended else None,
                  "mean_p": _mean([s["p"] for s in steps[:len(tokens)]]),
                  "min_p": min([s["p"] for s in steps[:len(tokens)]], default=None)}
        words = [i for i, t in enumerate(tokens) if not self.is_punct[t]]
        if not words:
            return record | {"last_word": None}
        last = words[-1]
        after = steps[last + 1] if last + 1 < len(steps) else None
        first = last
        while first > 0 and not tokenizer.pieces[tokens[first]].startswith(
                reference.SPACE_MARK.encode()) and not self.is_punct[tokens[first - 1]]:
            first -= 1
        word_p = [steps[i]["p"] for i in range(first, last + 1)]
        record |= {"last_word": tokenizer.decode(tokens[first:last + 1]),
                   "lastword_mean_p": _mean(word_p), "lastword_min_p": min(word_p)}
        if after is not None:
            other = after["term"] + after["cont"] + after["more"]
            record |= {"p_eos_after_word": after["eos"], "p_period_after_word": after["period"],
                       "p_term_after_word": after["term"], "p_cont_after_word": after["cont"],
                       "p_more_after_word": after["more"],
                       "term_share": after["term"] / other if other > 0 else None,
                       "entropy_after_word": after["entropy"],
                       "after_word_top": [[tokenizer.decode([t]) if t > EOS else
                                           ("<eos>" if t == EOS else "<s>"), p]
                                          for t, p in after["top"]]}
        trailing = tokens[last + 1:]
        if trailing:
            record["p_final_punct"] = steps[len(tokens) - 1]["p"]
            record["p_first_punct"] = steps[last + 1]["p"]
            record["p_eos_after_punct"] = steps[last + 2]["eos"] if last + 2 < len(steps) else None
        return record


def _ends_terminal(text: str) -> bool:
    stripped = text.rstrip()
    while stripped and stripped[-1] in CLOSING_CHARS:
        stripped = stripped[:-1]
    return bool(stripped) and stripped[-1] in TERMINAL_CHARS


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


# ------------------------------------------------------------------------------------------
# Silero VAD and the audio itself
# ------------------------------------------------------------------------------------------


class Silero:
    WINDOW, CONTEXT = 512, 64

    def __init__(self, file: Path):
        import onnxruntime
        self.session = onnxruntime.InferenceSession(
            str(file), reference.session_options(threads=1), providers=["CPUExecutionProvider"])

    def probabilities(self, samples: numpy.ndarray) -> list[float]:
        state = numpy.zeros((2, 1, 128), numpy.float32)
        context = numpy.zeros(self.CONTEXT, numpy.float32)
        rate = numpy.array(RATE, numpy.int64)
        result = []
        for start in range(0, len(samples) - self.WINDOW + 1, self.WINDOW):
            window = samples[start:start + self.WINDOW].astype(numpy.float32)
            audio = numpy.concatenate([context, window]).reshape(1, -1)
            output, state = self.session.run(None, {"input": audio, "state": state, "sr": rate})
            result.append(float(output.reshape(-1)[0]))
            context = window[-self.CONTEXT:]
        return result


def vad_signals(probabilities: list[float], cut: int) -> dict:
    w = Silero.WINDOW
    before = [p for i, p in enumerate(probabilities) if (i + 1) * w <= cut][-3:]
    pause = [p for i, p in enumerate(probabilities) if i * w >= cut]
    last_speech = max((i for i, p in enumerate(probabilities) if p >= 0.5), default=None)
    release = None
    if last_speech is not None:
        below = next((i for i in range(last_speech + 1, len(probabilities))
                      if probabilities[i] < 0.35), None)
        if below is not None:
            release = ((below + 1) * w - cut) / RATE
    return {"vad_last": max(before, default=None), "vad_pause_max": max(pause, default=None),
            "vad_release_s": release}


def acoustic_signals(samples: numpy.ndarray, cut: int, floor_db: float) -> dict:
    speech = samples[:cut]
    levels = make_set.frame_db(speech, 160)
    loud = numpy.nonzero(levels >= floor_db + make_set.FLOOR_MARGIN_DB)[0]
    if len(loud) < 10:
        return {"drop_db": None, "f0_end_st": None}
    drop = float(numpy.mean(levels[loud[-10:]]) - numpy.median(levels[loud]))
    f0 = pitch_track(speech, floor_db)
    voiced = [(i, f) for i, f in enumerate(f0) if f]
    f0_end = None
    if len(voiced) >= 10:
        last_index = voiced[-1][0]
        tail = [f for i, f in voiced if i > last_index - 15]
        f0_end = float(12 * math.log2(numpy.median(tail) / numpy.median([f for _, f in voiced])))
    return {"drop_db": drop, "f0_end_st": f0_end}


def pitch_track(samples: numpy.ndarray, floor_db: float) -> list[float | None]:
    """F0 of 40 ms frames every 10 ms by normalized autocorrelation; None where unvoiced."""
    size, hop = 640, 160
    low, high = RATE // 400, RATE // 60
    hann = numpy.hanning(size)
    result = []
    for start in range(0, len(samples) - size + 1, hop):
        frame = samples[start:start + size].astype(numpy.float64)
        level = 20 * math.log10(math.sqrt(float(numpy.mean(frame ** 2))) + 1e-9)
        if level < floor_db + 15:
            result.append(None)
            continue
        frame = (frame - frame.mean()) * hann
        spectrum = numpy.fft.rfft(frame, 2 * size)
        corr = numpy.fft.irfft(numpy.abs(spectrum) ** 2)[:size]
        window_corr = numpy.fft.irfft(numpy.abs(numpy.fft.rfft(hann, 2 * size)) ** 2)[:size]
        corr = corr / (corr[0] + 1e-12) / (window_corr / window_corr[0] + 1e-12)
        lag = low + int(numpy.argmax(corr[low:high]))
        result.append(RATE / lag if corr[lag] >= 0.5 else None)
    return result


# ------------------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path,
                        default=Path(os.environ.get("OUT", "/tmp/endpointing-set")))
    parser.add_argument("--pads", default="zeros,room")
    parser.add_argument("--seconds", default="0.1,0.3,0.5")
    parser.add_argument("--only", help="only cuts whose id contains this")
    parser.add_argument("--model", type=Path, default=reference.installed_model_dir())
    parser.add_argument("--vad", type=Path,
                        default=Path("/usr/local/share/transcribe/silero-vad/silero_vad.onnx"))
    arguments = parser.parse_args(argv)

    manifest = json.loads((arguments.out / "set.json").read_text())
    clips = {clip["name"]: clip for clip in manifest["clips"]}
    audio = {name: make_set.read_audio(arguments.out / "clips" / f"{name}.wav") for name in clips}
    decoder = Decoder(arguments.model)
    vad = Silero(arguments.vad) if arguments.vad.is_file() else None
    pads = arguments.pads.split(",")
    lengths = [float(s) for s in arguments.seconds.split(",")]

    records, started = [], time.monotonic()
    decoder.decode(audio[manifest["clips"][0]["name"]])   # warm up
    for cut in manifest["cuts"]:
        if arguments.only and arguments.only not in cut["id"]:
            continue
        samples = audio[cut["clip"]]
        position = int(round(cut["cut_seconds"] * RATE))
        floor_db = clips[cut["clip"]]["noise_floor_db"]
        acoustic = acoustic_signals(samples, position, floor_db)
        for pad in pads:
            for seconds in lengths:
                padded = make_set.pad_audio(samples, position, pad, seconds, cut["clip"])
                tick = time.perf_counter()
                record = decoder.decode(padded)
                record["decode_s"] = round(time.perf_counter() - tick, 3)
                if vad is not None:
                    record |= vad_signals(vad.probabilities(padded), position)
                record |= acoustic
                record |= {"id": cut["id"], "clip": cut["clip"], "group": cut["group"],
                           "class": cut["class"], "complete_prefix": cut["complete_prefix"],
                           "end_kind": cut["end_kind"], "pad": pad, "seconds": seconds}
                records.append(record)
                top = record.get("after_word_top") or []
                print(f"{cut['id']:48s} {pad:5s} {seconds:.1f}  {record['text']!r}  "
                      f"eos|word {_f(record.get('p_eos_after_word'))} "
                      f"term {_f(record.get('p_term_after_word'))} "
                      f"cont {_f(record.get('p_cont_after_word'))} "
                      f"more {_f(record.get('p_more_after_word'))}  "
                      f"top {[(t, round(p, 2)) for t, p in top]}", flush=True)
    (arguments.out / "signals.json").write_text(json.dumps(
        {"model": str(arguments.model), "pads": pads, "seconds": lengths,
         "records": records}, indent=None) + "\n")
    print(f"signals: {len(records)} decodes in {time.monotonic() - started:.0f} s -> "
          f"{arguments.out / 'signals.json'}", file=sys.stderr)
    return 0


def _f(value) -> str:
    return "   -" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
