#!/usr/bin/env python3
"""Tables and rules from signals.py's measurements (issue 36).

    analyze.py [OUT] [--pad zeros|room|both]... [--seconds 0.3] [--early 0.1]

Reads OUT/set.json and OUT/signals.json (default OUT: /tmp/endpointing-set, or $OUT); prints
Markdown (also written to OUT/report.md): the hand-picked rules of CANDIDATES on every padding,
then for each padding (and both pooled) the signals by class, the fitted rules and the signs of
an unfinished sentence. Writes OUT/cuts-PAD-SECONDS.md: every cut's transcript and main signals.

Classes: "inside" cuts (a pause inside a sentence; "complete" when the words so far make a
sentence on their own, see make_set.COMPLETE_PREFIXES) and "end" cuts (the whole clip;
"sentence" when the clip ends a sentence or a command, "clause" when the book goes on after a
comma, colon or semicolon).

A rule ends the utterance early when all its conditions hold; otherwise it holds the utterance
open. A **false end** is an inside cut the rule ends (the error that matters); a **held end**
is an end cut it holds (it costs latency). Thresholds are fitted on all cuts (no false end,
then as many ends as possible, thresholds halfway to the next value) and checked by leaving
each clip out in turn: fitted on the other clips, applied to the clip left out.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import statistics
import sys
from pathlib import Path

import numpy

# Words after which an English sentence (almost) never ends: articles, possessive
# determiners, conjunctions, prepositions that are not also particles (no "on", "off", "in",
# "up": "turn the lights on"), modals that rarely end a sentence, forms of "be" that need a
# complement. Only a hold: a word here never makes a false end, at worst a held end.
HOLD_WORDS = set("""
a an the my your our their
and or but nor because although though unless whether if while whereas than
of to for with from into onto at as upon toward towards between among without within via
might must could would should shall
be been being very
""".split())


def last_word(text: str) -> str | None:
    words = re.findall(r"[a-z0-9']+", text.lower().replace("-", " "))
    return words[-1] if words else None


# ------------------------------------------------------------------------------------------
# Features: (name, description, function of a cut's records by (pad, seconds), direction)
# direction +1: larger means "finished"; -1: smaller means "finished"; 0: a yes/no condition
# that must be true to end.
# ------------------------------------------------------------------------------------------


def feature_table(pad: str, main: float, early: float):
    def get(key, seconds=main):
        return lambda r: r.get((pad, seconds), {}).get(key)

    def terminal(r):
        record = r.get((pad, main), {})
        return bool(record.get("terminal"))

    def not_hold(r):
        word = last_word(r.get((pad, main), {}).get("text", ""))
        return word is not None and word not in HOLD_WORDS

    def difference(key):
        def function(r):
            a, b = get(key)(r), get(key, early)(r)
            return None if a is None or b is None else a - b
        return function

    def larger(key):
        def function(r):
            a, b = get(key)(r), get(key, early)(r)
            return None if a is None or b is None else max(a, b)
        return function

    m, e = f"{main:g}", f"{early:g}"
    return {
        "terminal": ("the transcript ends in . ? ! …", terminal, 0),
        "not_hold_word": ("its last word is not a function word (HOLD_WORDS)", not_hold, 0),
        "p_term": (f"P(. ? ! …) after the last word, {m} s", get("p_term_after_word"), +1),
        "p_period": (f"P(.) after the last word, {m} s", get("p_period_after_word"), +1),
        "p_eos_word": (f"P(EOS) after the last word (before any punctuation), {m} s",
                       get("p_eos_after_word"), +1),
        "p_cont": (f"P(, ; : —) after the last word, {m} s", get("p_cont_after_word"), -1),
        "p_more": (f"P(a word) after the last word, {m} s", get("p_more_after_word"), -1),
        "term_share": (f"P(. ? !) / P(not EOS) after the last word, {m} s",
                       get("term_share"), +1),
        "entropy": (f"entropy after the last word (nats), {m} s", get("entropy_after_word"), -1),
        "p_final_punct": (f"P(final punctuation token) when chosen, {m} s",
                          get("p_final_punct"), +1),
        "p_eos_end": (f"P(EOS) at the step that ended, {m} s", get("p_eos_end"), +1),
        "p_eos_after_punct": (f"P(EOS) right after the final punctuation, {m} s",
                              get("p_eos_after_punct"), +1),
        "lastword_mean_p": (f"mean token probability of the last word, {m} s",
                            get("lastword_mean_p"), +1),
        "lastword_min_p": (f"min token probability of the last word, {m} s",
                           get("lastword_min_p"), +1),
        "min_p": (f"min token probability, {m} s", get("min_p"), +1),
        "p_term_early": (f"P(. ? ! …) after the last word, {e} s", get("p_term_after_word", early),
                         +1),
        "p_cont_early": (f"P(, ; : —) after the last word, {e} s",
                         get("p_cont_after_word", early), -1),
        "p_more_early": (f"P(a word) after the last word, {e} s",
                         get("p_more_after_word", early), -1),
        "d_term": (f"P(. ? ! …) after the last word at {m} s minus at {e} s",
                   difference("p_term_after_word"), +1),
        "d_cont": (f"P(, ; : —) after the last word at {m} s minus at {e} s",
                   difference("p_cont_after_word"), -1),
        "p_more_max": (f"the larger P(a word) after the last word of {e} s and {m} s",
                       larger("p_more_after_word"), -1),
        "vad_last": ("Silero: largest P(speech) of the last 3 windows", get("vad_last"), +1),
        "vad_release_s": ("Silero: cut to first window < 0.35 (s)", get("vad_release_s"), -1),
        "drop_db": ("level of the last 100 ms of sound vs the median (dB)", get("drop_db"), -1),
        "f0_end_st": ("F0 of the last 150 ms voiced vs the median (semitones)", get("f0_end_st"),
                      -1),
    }


# ------------------------------------------------------------------------------------------


def load(out: Path):
    manifest = json.loads((out / "set.json").read_text())
    signals = json.loads((out / "signals.json").read_text())
    cuts = {cut["id"]: dict(cut, records={}) for cut in manifest["cuts"]}
    for record in signals["records"]:
        if record["id"] in cuts:
            cuts[record["id"]]["records"][(record["pad"], record["seconds"])] = record
    cuts = [c for c in cuts.values() if c["records"]]
    wholes = [c for c in cuts if c["class"] == "whole"]
    cuts = [c for c in cuts if c["class"] != "whole"]
    for cut in cuts:
        if cut["class"] == "inside":
            cut["subclass"] = "inside, complete" if cut["complete_prefix"] else "inside, mid-phrase"
        else:
            cut["subclass"] = ("end, sentence" if cut["end_kind"] in ("sentence", "utterance")
                               else "end, clause")
    return manifest, signals, cuts, wholes


def auc(ends: list[float], insides: list[float], direction: int) -> float | None:
    """P(an end looks more finished than an inside cut), ties half."""
    if not ends or not insides:
        return None
    score = 0.0
    for a in ends:
        for b in insides:
            d = (a - b) * direction
            score += 1.0 if d > 0 else 0.5 if d == 0 else 0.0
    return score / (len(ends) * len(insides))


def fmt(value, digits=3) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if abs(value) >= 100 or (value == int(value) and abs(value) >= 10):
        return f"{value:.0f}"
    return f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}"


def summary(values: list) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    if all(isinstance(v, bool) for v in values):
        return f"{sum(values)}/{len(values)}"
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})"


# ------------------------------------------------------------------------------------------
# Rules
# ------------------------------------------------------------------------------------------


def values(name, cuts, features):
    """The feature's value for every cut (None where it has none)."""
    return [features[name][1](c["records"]) for c in cuts]


def passes(name, thresholds, cuts, features) -> list[bool]:
    """Whether each cut meets the condition (a missing value never does)."""
    direction = features[name][2]
    result = []
    for value in values(name, cuts, features):
        if direction == 0:
            result.append(bool(value))
        else:
            result.append(value is not None and (value - thresholds[name]) * direction >= 0)
    return result


def evaluate(rule, thresholds, cuts, features) -> tuple[int, int, list, list]:
    """(false ends, ends taken, the false-end ids, the held-end ids)."""
    decisions = [all(column) for column in
                 zip(*[passes(name, thresholds, cuts, features) for name in rule])]
    wrong = [c["id"] for c, d in zip(cuts, decisions) if d and c["class"] == "inside"]
    held = [c["id"] for c, d in zip(cuts, decisions) if not d and c["class"] == "end"]
    taken = sum(1 for c, d in zip(cuts, decisions) if d and c["class"] == "end")
    return len(wrong), taken, wrong, held


def fit(rule, cuts, features):
    """Thresholds for the rule's continuous conditions: fewest false ends, then most ends
    taken. Each threshold is at an end's value (tightening it to the next end's value keeps
    the same ends and can only drop false ends), then moved halfway to the nearest inside
    value on the loose side, for a margin."""
    gates = [all(column) for column in zip(*[passes(n, {}, cuts, features) for n in rule
                                              if features[n][2] == 0])] or [True] * len(cuts)
    continuous = [n for n in rule if features[n][2] != 0]
    if not continuous:
        return {}
    is_end = numpy.array([c["class"] == "end" for c in cuts])
    gates = numpy.array(gates)
    columns, options = [], []
    for name in continuous:
        direction = features[name][2]
        raw = values(name, cuts, features)
        signed = numpy.array([-numpy.inf if v is None else v * direction for v in raw])
        columns.append(signed)
        end_values = sorted({x for x, e in zip(signed, is_end) if e and numpy.isfinite(x)})
        options.append(end_values + [numpy.inf])            # inf: take nothing
    best = None
    for combo in itertools.product(*options):
        mask = gates.copy()
        for column, t in zip(columns, combo):
            mask &= column >= t
        false_ends = int((mask & ~is_end).sum())
        taken = int((mask & is_end).sum())
        key = (false_ends, -taken, -sum(t for t in combo if numpy.isfinite(t)))
        if best is None or key < best[0]:
            best = (key, combo)
    thresholds = {}
    for name, column, t in zip(continuous, columns, best[1]):
        direction = features[name][2]
        if numpy.isfinite(t):
            below = column[(column < t) & numpy.isfinite(column)]
            if below.size:
                t = (t + below.max()) / 2
        thresholds[name] = t * direction
    return thresholds


def fit_envelope(rule, cuts, features):
    """Thresholds that keep every end the rule's yes/no conditions let through: each at the
    least finished-looking value such an end has (no margin)."""
    gates = [all(column) for column in zip(*[passes(n, {}, cuts, features) for n in rule
                                              if features[n][2] == 0])] or [True] * len(cuts)
    thresholds = {}
    for name in rule:
        direction = features[name][2]
        if direction == 0:
            continue
        end_values = [v for c, g, v in zip(cuts, gates, values(name, cuts, features))
                      if g and c["class"] == "end" and v is not None]
        thresholds[name] = (min(end_values) if direction > 0 else max(end_values)) \
            if end_values else numpy.inf * direction
    return thresholds


FITS = {"no false end": fit, "every end": fit_envelope}


def cross_validate(rule, cuts, features, fitter=fit) -> tuple[int, int, list]:
    """Leave each clip out: fit on the others, apply to it. (false ends, ends taken, ids)."""
    false_ends, taken, wrong = 0, 0, []
    for clip in sorted({c["clip"] for c in cuts}):
        train = [c for c in cuts if c["clip"] != clip]
        test = [c for c in cuts if c["clip"] == clip]
        thresholds = fitter(rule, train, features)
        f, t, w, _ = evaluate(rule, thresholds, test, features)
        false_ends += f
        taken += t
        wrong += w
    return false_ends, taken, wrong


RULES = [
    # one signal
    ("terminal",),
    ("terminal", "not_hold_word"),
    ("p_term",),
    ("p_more",),
    ("p_more_max",),
    ("d_cont",),
    ("drop_db",),
    # the recognizer's one decode at the pause (main seconds)
    ("terminal", "not_hold_word", "p_term"),
    ("terminal", "not_hold_word", "p_more"),
    ("terminal", "not_hold_word", "p_term", "p_more"),
    # two decodes: early and main seconds
    ("terminal", "not_hold_word", "p_more_max"),
    ("terminal", "not_hold_word", "d_cont"),
    ("terminal", "not_hold_word", "p_more_max", "d_cont"),
    ("terminal", "not_hold_word", "p_term", "p_more_max", "d_cont"),
    # and the level of the audio
    ("terminal", "not_hold_word", "drop_db"),
    ("terminal", "not_hold_word", "p_term", "p_more", "drop_db"),
    ("terminal", "not_hold_word", "p_more_max", "d_cont", "drop_db"),
]


# ------------------------------------------------------------------------------------------


# Hand-picked rules with round thresholds (from the fits and the sensitivity of the counts to
# each threshold, see README.md), evaluated as they are on every padding.
CANDIDATES = [
    ("text only", {"terminal": None, "not_hold_word": None}),
    ("one look (0.3 s)", {"terminal": None, "not_hold_word": None, "p_term": 0.8,
                          "p_more": 1e-3}),
    ("two looks (0.1 s, 0.3 s): recommended",
     {"terminal": None, "not_hold_word": None, "p_term": 0.8, "p_more_max": 0.01,
      "d_cont": 0.05}),
    ("two looks, looser", {"terminal": None, "not_hold_word": None, "p_term": 0.7,
                           "p_more_max": 0.02, "d_cont": 0.05}),
    ("two looks and the level", {"terminal": None, "not_hold_word": None, "p_term": 0.8,
                                 "p_more_max": 0.01, "d_cont": 0.05, "drop_db": -3.0}),
    ("the rule in Swift (issue 36)", {"terminal": None, "not_hold_word": None, "p_term": 0.8,
                                      "p_more_max": 0.002, "d_cont": 0.05}),
    ("the rule in Swift, early look ending too", {"terminal": None, "not_hold_word": None,
                                                  "p_term": 0.8, "p_more_max": 0.002,
                                                  "d_cont": 0.05, "p_term_early": 0.5}),
]


def candidates(out: Path, main: float, early: float) -> str:
    manifest, signals, cuts, wholes = load(out)
    for whole in wholes:
        whole["class"] = "end"
    end_count = sum(c["class"] == "end" for c in cuts)
    inside_count = len(cuts) - end_count
    lines = [f"### Rules with round thresholds, {main:g} s (early look {early:g} s)\n",
             f"False ends (of {inside_count} inside cuts) and ends taken (of {end_count}; the "
             "whole clips as a check) per padding, with the cuts concerned.\n",
             "| rule | padding | false ends | ends taken | whole clips taken | false ends "
             "| ends held |", "|---|---|---|---|---|---|---|"]
    for name, conditions in CANDIDATES:
        for pad in signals["pads"]:
            features = feature_table(pad, main, early)
            rule = tuple(conditions)
            thresholds = {n: t for n, t in conditions.items() if t is not None}
            false_ends, taken, wrong, held = evaluate(rule, thresholds, cuts, features)
            _, whole_taken, _, _ = evaluate(rule, thresholds, wholes, features)
            wrong_text = (", ".join(short(i) for i in wrong) if len(wrong) <= 12
                          else f"({len(wrong)})") or "–"
            shown = " & ".join(n if t is None else
                               f"{n} {'≥' if features[n][2] > 0 else '≤'} {t:g}"
                               for n, t in conditions.items())
            lines.append(f"| {name}: {shown} | {pad} | {false_ends} | {taken}/{end_count} | "
                         f"{whole_taken}/{len(wholes)} | {wrong_text} | "
                         f"{', '.join(short(i) for i in held) or '–'} |")
    # The pause files of make_set.py: what each rule does at their pause.
    pause_cuts = {(p["clip"], p["words_before"]) for p in manifest["pauses"]}
    lines += ["", "At the pauses of the pause files (OUT/pauses/; the inside cut at the same "
              "word, `room` padding): **ends** = the rule would end the utterance there "
              "(wrong), holds = it would hold it open.\n",
              "| pause after | " + " | ".join(name.split(":")[0] for name, _ in CANDIDATES) +
              " |", "|---|" + "---|" * len(CANDIDATES)]
    features = feature_table("room", main, early)
    for cut in cuts:
        if (cut["clip"], cut["words_before"]) in pause_cuts and cut["class"] == "inside":
            row = []
            for _, conditions in CANDIDATES:
                thresholds = {n: t for n, t in conditions.items() if t is not None}
                ends = all(passes(n, thresholds, [cut], features)[0] for n in conditions)
                row.append("**ends**" if ends else "holds")
            lines.append(f"| {short(cut['clip'])}: “{cut['prefix']}” | " + " | ".join(row) +
                         " |")
    return "\n".join(lines) + "\n"


def pooled(cuts: list[dict], pads: list[str]) -> list[dict]:
    """Each cut once per padding, its records keyed by ("both", seconds); the clip stays the
    same, so leaving a clip out leaves out both of its paddings."""
    result = []
    for pad in pads:
        for cut in cuts:
            records = {("both", s): r for (p, s), r in cut["records"].items() if p == pad}
            if records:
                result.append(dict(cut, id=f"{cut['id']}@{pad}", records=records))
    return result


def threshold_text(value: float) -> str:
    if not numpy.isfinite(value):
        return "never"
    if value != 0 and abs(value) < 0.01:
        return f"{value:.1e}"
    return fmt(value, 3)


def report(out: Path, pad: str, main: float, early: float) -> str:
    manifest, signals, cuts, wholes = load(out)
    if pad == "both":
        cuts = pooled(cuts, signals["pads"])
        wholes = pooled(wholes, signals["pads"])
    for whole in wholes:
        whole["class"] = "end"
    features = feature_table(pad, main, early)
    lines = []
    say = lines.append
    inside = [c for c in cuts if c["class"] == "inside"]
    ends = [c for c in cuts if c["class"] == "end"]
    subclasses = ["inside, mid-phrase", "inside, complete", "end, sentence", "end, clause"]
    counts = {s: sum(c["subclass"] == s for c in cuts) for s in subclasses}
    padding = ("both paddings pooled (each cut counted once per padding)" if pad == "both"
               else f"pad `{pad}`")
    say(f"### Signals by class: {padding}, {main:g} s after the last word\n")
    say(f"{len(inside)} inside cuts ({counts['inside, mid-phrase']} mid-phrase, "
        f"{counts['inside, complete']} complete), {len(ends)} ends "
        f"({counts['end, sentence']} sentence or command, {counts['end, clause']} clause). "
        "Median (min–max); yes/no signals as a count. AUC: the chance that an end looks more "
        "finished than an inside cut (0.5: no information).\n")
    say("| signal | " + " | ".join(f"{s} ({counts[s]})" for s in subclasses) +
        " | AUC | AUC vs mid-phrase |")
    say("|---|" + "---|" * (len(subclasses) + 2))
    for name, (description, function, direction) in features.items():
        columns = [summary([function(c["records"]) for c in cuts if c["subclass"] == s])
                   for s in subclasses]
        if direction == 0:
            a = b = None
            e = [float(bool(function(c["records"]))) for c in ends]
            a = auc(e, [float(bool(function(c["records"]))) for c in inside], 1)
            b = auc(e, [float(bool(function(c["records"]))) for c in inside
                        if c["subclass"] == "inside, mid-phrase"], 1)
        else:
            e = [v for c in ends if (v := function(c["records"])) is not None]
            a = auc(e, [v for c in inside if (v := function(c["records"])) is not None],
                    direction)
            b = auc(e, [v for c in inside if c["subclass"] == "inside, mid-phrase"
                        and (v := function(c["records"])) is not None], direction)
        say(f"| `{name}`: {description} | " + " | ".join(columns) +
            f" | {fmt(a, 2)} | {fmt(b, 2)} |")

    say(f"\n### Rules: {padding}, {main:g} s (early: {early:g} s)\n")
    say(f"End early when every condition holds. Of {len(inside)} inside cuts, **false ends** "
        f"(ended inside a sentence); of {len(ends)} ends, **taken** (ended early; the rest are "
        "held, costing latency). Thresholds fitted on all cuts two ways: *no false end* (then "
        "as many ends as possible, with a margin halfway to the next inside cut) and *every "
        "end* (each threshold at the least finished-looking end that the yes/no conditions "
        "let through); then each fit checked by leaving each clip out in turn (fitted on the "
        "other clips, applied to it).\n")
    say("The column *whole clips* applies the thresholds fitted on all to the ends again, "
        "each now the whole clip as it is (its own 0.14–0.88 s of silence after the last "
        "word) plus the padding: how much the rule depends on the exact length of the audio "
        "after the last word.\n")
    say("| rule | fit | thresholds (fitted on all) | false ends | ends taken | "
        "left out: false ends | left out: ends taken | whole clips taken | "
        "false ends (fitted on all) |")
    say("|---|---|---|---|---|---|---|---|---|")
    for rule in RULES:
        for mode, fitter in FITS.items():
            if mode == "every end" and all(features[n][2] == 0 for n in rule):
                continue
            thresholds = fitter(rule, cuts, features)
            false_ends, taken, wrong, held = evaluate(rule, thresholds, cuts, features)
            cv_false, cv_taken, _ = cross_validate(rule, cuts, features, fitter)
            _, whole_taken, _, _ = evaluate(rule, thresholds, wholes, features)
            shown = ", ".join(f"{n} {'≥' if features[n][2] > 0 else '≤'} {threshold_text(t)}"
                              for n, t in thresholds.items()) or "–"
            wrong_text = (", ".join(short(i) for i in wrong) if len(wrong) <= 12
                          else f"({len(wrong)})") or "–"
            say(f"| {' & '.join(rule)} | {mode} | {shown} | {false_ends} | "
                f"{taken}/{len(ends)} | {cv_false} | {cv_taken}/{len(ends)} | "
                f"{whole_taken}/{len(wholes)} | {wrong_text} |")

    say(f"\n### Signs of an unfinished sentence: {padding}\n")
    say("Each alone holds the utterance; a threshold here is the most finished-looking value "
        "any end has, so no end is held by it unless it says so.\n")
    say("| hold when | inside cuts held | ends held (which) |")
    say("|---|---|---|")
    triggers = [("not terminal", lambda c: not features["terminal"][1](c["records"])),
                ("last word a function word",
                 lambda c: not features["not_hold_word"][1](c["records"]))]
    for name in ("p_more", "p_more_max", "p_cont", "d_cont"):
        function = features[name][1]
        end_values = [v for c in ends if (v := function(c["records"])) is not None]
        if not end_values:
            continue
        limit = max(end_values)         # these signals: smaller means finished
        triggers.append((f"`{name}` > {threshold_text(limit)}",
                         lambda c, f=function, l=limit: (v := f(c["records"])) is not None
                         and v > l))
    any_trigger = lambda c: any(t(c) for _, t in triggers)  # noqa: E731
    for name, trigger in triggers + [("any of these", any_trigger)]:
        held_inside = sum(1 for c in inside if trigger(c))
        held_ends = [short(c["id"]) for c in ends if trigger(c)]
        say(f"| {name} | {held_inside}/{len(inside)} | {len(held_ends)}"
            f"{' (' + ', '.join(held_ends) + ')' if held_ends else ''} |")
    text = "\n".join(lines) + "\n"
    if pad == "both":
        return text

    listing = [f"# Cuts, pad `{pad}`, {main:g} s (and {early:g} s)\n",
               "| cut | class | transcript | p_term | p_cont | p_more | p_more early | drop dB "
               "| F0 end st |", "|---|---|---|---|---|---|---|---|---|"]
    for cut in cuts:
        r = cut["records"].get((pad, main), {})
        r_early = cut["records"].get((pad, early), {})
        listing.append(
            f"| {short(cut['id'])} | {cut['subclass']} | {r.get('text', '')} | "
            f"{fmt(r.get('p_term_after_word'), 3)} | {fmt(r.get('p_cont_after_word'), 3)} | "
            f"{fmt(r.get('p_more_after_word'), 4)} | {fmt(r_early.get('p_more_after_word'), 4)} | "
            f"{fmt(r.get('drop_db'), 1)} | {fmt(r.get('f0_end_st'), 1)} |")
    (out / f"cuts-{pad}-{main:g}.md").write_text("\n".join(listing) + "\n")
    return text


def short(ident: str) -> str:
    return ident.replace("sense_and_sensibility_01_austen_64kb-", "")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path,
                        default=Path(os.environ.get("OUT", "/tmp/endpointing-set")))
    parser.add_argument("--pad", action="append",
                        help="zeros, room or both (pooled); repeatable (default all three)")
    parser.add_argument("--seconds", type=float, default=0.3)
    parser.add_argument("--early", type=float, default=0.1)
    arguments = parser.parse_args(argv)
    text = "\n".join([candidates(arguments.out, arguments.seconds, arguments.early)] +
                     [report(arguments.out, pad, arguments.seconds, arguments.early)
                      for pad in (arguments.pad or ["zeros", "room", "both"])])
    (arguments.out / "report.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
