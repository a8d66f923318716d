#!/usr/bin/env python3
"""Decoding searches with hotwords, tried in Python before (or instead of) Swift (README.md).

    search.py greedy [OPTIONS]     the Swift decoder's greedy search with bonus and take-backs,
                                   ported, with the variants tried (see below)
    search.py beam [OPTIONS]       a beam search over the model's log-probabilities plus the
                                   phrase bonus
    search.py gated [OPTIONS]      a beam that only keeps hypotheses spelling a phrase, or a
                                   short detour from the model's own choice before one
    search.py librivox MODE [OPTIONS]  decoder steps and WER of MODE (greedy or gated) on the
                                   LibriVox clips with the benchmark's 50 names and 500 phrases
    search.py gaps                 how far below the model's own greedy text the right text of
                                   each command scores (log-probability, forced decoding)

OPTIONS is one Python dict literal, e.g. "{'width': 3, 'budget': 7.5}"; the keys are the keyword
arguments of the function each mode runs (greedy, beam, gated). The commands of commands.txt are
spoken by espeak-ng as names.py does (sox without dither); each file is decoded whole (no endpointing), with 50 ms of
silence before audio that starts in a sound, as the Swift model does. Runs the converted model
through scripts/moonshine_reference.py (onnxruntime, numpy). A prototype: figures only.
"""
import ast
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "scripts"))
import moonshine_reference as reference  # noqa: E402

MODEL = reference.Moonshine(reference.installed_model_dir(), threads=1)
PIECES = [piece.replace("\u2581".encode(), b" ") for piece in MODEL.tokenizer.pieces]
FIRST_WORD_TOKEN = 259
END = 2
BUDGET_FACTOR = 1.5
MAXIMUM_TAKE_BACKS = 16


def folded(data):
    return bytes(byte + 32 if 65 <= byte <= 90 else byte for byte in data)


SPELLINGS = {}
LONGEST = 0
for token in range(FIRST_WORD_TOKEN, len(PIECES)):
    if PIECES[token]:
        SPELLINGS.setdefault(folded(PIECES[token]), []).append(token)
        LONGEST = max(LONGEST, len(PIECES[token]))


def continues_word(token):
    piece = PIECES[token] if token < len(PIECES) else b""
    if not piece:
        return False
    first = folded(piece[:1])[0]
    return first >= 0x80 or 48 <= first <= 57 or 97 <= first <= 122


class Tree:
    """The phrases' prefix tree over bytes, and each node's tokens (as the Swift one)."""

    def __init__(self, phrases):
        self.children, self.end, self.depth = [{}], [False], [0]
        for phrase in phrases:
            node = 0
            for byte in folded((" " + " ".join(phrase.split())).encode()):
                if byte not in self.children[node]:
                    self.children.append({})
                    self.end.append(False)
                    self.depth.append(self.depth[node] + 1)
                    self.children[node][byte] = len(self.children) - 1
                node = self.children[node][byte]
            self.end[node] = True
        self.targets = []
        for start in range(len(self.children)):
            targets, stack = {}, [(start, b"")]
            while stack:
                node, spelled = stack.pop()
                if spelled and any(byte != 32 for byte in spelled):
                    for token in SPELLINGS.get(spelled, []):
                        targets.setdefault(token, node)
                if len(spelled) < LONGEST:
                    stack += [(child, spelled + bytes([byte]))
                              for byte, child in self.children[node].items()]
            self.targets.append(targets)


def commands():
    for line in open(HERE / "commands.txt", encoding="utf-8"):
        line = line.rstrip("\n")
        if line and not line.startswith("#"):
            text, names = line.split("|")
            yield text, [name for name in names.split(",") if name]


def words(text):
    return {re.sub(r"'s$", "", word.strip(".,!?\"'").lower()) for word in text.split()}


def log_softmax(row):
    top = row.max()
    return row - top - math.log(np.exp(row - top).sum())


def with_lead_in(samples, lead=800):
    if len(samples) and np.mean(samples[:320] ** 2) > 1e-4:
        return np.concatenate([np.zeros(lead, np.float32), samples])
    return samples


class Decoder:
    """The encoder's output for one piece of audio, and decoder steps from any past."""

    def __init__(self, samples):
        self.hidden = MODEL.encoder.run(None, {"input_values": samples.reshape(1, -1)})[0]
        self.limit = int(len(samples) / 16000 * 6.5) + 4
        self.steps = 0

    def first(self):
        feeds = {"input_ids": np.array([[1]], np.int64), "encoder_hidden_states": self.hidden,
                 "use_cache_branch": np.array([False]), **MODEL.empty_past}
        outputs = dict(zip(MODEL.output_names, MODEL.decoder.run(None, feeds)))
        self.steps += 1
        present = lambda name: outputs[name.replace("past_key_values.", "present.")]  # noqa
        self.encoder_past = {name: present(name) for name in MODEL.empty_past
                             if ".encoder." in name}
        return outputs["logits"][0, -1], {name: present(name) for name in MODEL.empty_past
                                          if ".decoder." in name}

    def step(self, token, past):
        feeds = {"input_ids": np.array([[token]], np.int64),
                 "encoder_hidden_states": self.hidden, "use_cache_branch": np.array([True]),
                 **past, **self.encoder_past}
        outputs = dict(zip(MODEL.output_names, MODEL.decoder.run(None, feeds)))
        self.steps += 1
        return outputs["logits"][0, -1], {
            name: outputs[name.replace("past_key_values.", "present.")] for name in past}


# ------------------------------------------------------------------------------------------
# Greedy with bonus and take-backs (HotwordCursor), and the variants tried
# ------------------------------------------------------------------------------------------


class Cursor:
    def __init__(self, tree, boost, start_boost=None, respell=None, refuse_first_end=False):
        self.tree, self.boost = tree, boost
        self.start_boost = boost if start_boost is None else start_boost
        self.respell, self.refuse_first_end = respell, refuse_first_end
        self.node, self.changed, self.own_start, self.take_back = 0, None, None, None
        self.banned, self.take_backs, self.deficit, self.detour = None, 0, 0.0, None

    def starts_phrases(self):
        return self.node == 0 or not self.tree.end[self.node]

    def choose(self, row, position):
        best = int(np.argmax(row))
        if self.refuse_first_end and position == 0 and best == END:
            if math.exp(log_softmax(row)[END]) < 0.5:
                row = row.copy()
                row[END] = -1e30
                best = int(np.argmax(row))
        top = float(row[best])
        banned = self.banned[1] if self.banned and self.banned[0] == position else set()
        live = self.take_backs < MAXIMUM_TAKE_BACKS
        chosen, score = best, top
        if best != END and live:
            candidates = []
            if self.node:
                candidates.append((self.tree.targets[self.node], self.boost))
            if self.starts_phrases():
                candidates.append((self.tree.targets[0], self.start_boost))
            for targets, bonus in candidates:
                if best in targets and best not in banned:
                    score = max(score, top + bonus)
            for targets, bonus in candidates:
                for token in targets:
                    if token < len(row) and token not in banned and row[token] + bonus > score:
                        chosen, score = token, float(row[token]) + bonus
        choice = None
        if chosen != best:
            choice = dict(position=position, row=row.copy(), token=chosen, node=self.node)
        own = dict(position=position, row=row.copy(), token=chosen, node=0) \
            if chosen == best and self.respell else None
        self.advance(chosen, choice, top - float(row[chosen]), own)
        return chosen

    def spells_further(self, depth, start):
        banned = self.banned[1] if self.banned and self.banned[0] == start["position"] else set()
        own = float(start["row"][start["token"]])
        return any(token != start["token"] and token not in banned
                   and token < len(start["row"])
                   and float(start["row"][token]) + self.boost > own
                   and (self.respell == "any" or self.tree.depth[node] > depth)
                   for token, node in self.tree.targets[0].items())

    def advance(self, token, choice, gap, own):
        tree, before = self.tree, self.node
        ended = self.node and tree.end[self.node] and not continues_word(token)
        if ended:
            self.changed = None
        if self.node and token in tree.targets[self.node]:
            self.node = tree.targets[self.node][token]
            if self.changed is None:
                self.changed, self.deficit = choice, 0.0
        else:
            live = self.take_backs < MAXIMUM_TAKE_BACKS
            if self.node and not ended and self.changed is not None and live:
                self.take_back = self.changed
                return
            if (self.node and not ended and self.changed is None and self.own_start
                    and live and self.spells_further(tree.depth[self.node], self.own_start)):
                self.take_back, self.own_start = self.own_start, None
                return
            self.node = tree.targets[0].get(token, 0)
            if self.detour is not None:
                detour, detour_gap = self.detour
                self.detour = None
                self.changed, self.deficit = (detour, detour_gap) if self.node else (None, 0.0)
            else:
                self.changed, self.deficit = (choice if self.node else None), 0.0
            self.own_start = own if self.node and choice is None and before == 0 else None
        if self.changed is not None:
            self.deficit += gap
            if self.deficit > self.boost * BUDGET_FACTOR and self.take_backs < MAXIMUM_TAKE_BACKS:
                self.take_back = self.changed

    def go_back(self):
        choice, self.take_back = self.take_back, None
        if choice is None:
            return None
        self.take_backs += 1
        self.node, self.changed = choice["node"], None
        if self.banned and self.banned[0] == choice["position"]:
            self.banned[1].add(choice["token"])
        else:
            self.banned = (choice["position"], {choice["token"]})
        return choice


def greedy(samples, tree, boost=5.0, start_boost=None, respell=None, refuse_first_end=False,
           second_look=False, detour=None, lead=800):
    """respell: None, "further" (the Swift rule) or "any"; detour: (alternatives, nats) to try
    the model's next choices when a phrase would start right after them."""
    audio = with_lead_in(samples, lead)
    decoder = Decoder(audio)
    cursor = Cursor(tree, boost, start_boost, respell, refuse_first_end)
    logits, past = decoder.first()
    first_row, pasts, tokens, row = logits, [past], [], logits
    token = cursor.choose(logits, 0)
    while len(tokens) < decoder.limit:
        choice = cursor.go_back()
        if choice is not None:
            del tokens[choice["position"]:]
            del pasts[choice["position"] + 1:]
            row = choice["row"]
            token = cursor.choose(row, choice["position"])
            continue
        if token == END:
            break
        if detour and cursor.node == 0 and cursor.changed is None \
                and cursor.take_backs < MAXIMUM_TAKE_BACKS and token == int(np.argmax(row)):
            taken = try_detour(decoder, cursor, tree, boost, row, pasts[-1], len(tokens), *detour)
            if taken:
                alternative, next_row, next_past = taken
                tokens.append(alternative)
                pasts.append(next_past)
                row = next_row
                token = cursor.choose(row, len(tokens))
                continue
        tokens.append(token)
        if len(tokens) >= decoder.limit:
            break
        row, past = decoder.step(token, pasts[-1])
        pasts.append(past)
        token = cursor.choose(row, len(tokens))
    steps = decoder.steps
    if second_look and not tokens and math.exp(log_softmax(first_row)[END]) < 0.5 \
            and int(np.argmax(first_row)) == END:
        text, more = greedy(np.concatenate([np.zeros(1600, np.float32), audio]), tree, boost,
                            start_boost, respell, refuse_first_end, False, detour, lead)
        return text, steps + more
    return MODEL.tokenizer.decode(tokens), steps


def try_detour(decoder, cursor, tree, boost, row, past, position, alternatives, nats):
    banned = cursor.banned[1] if cursor.banned and cursor.banned[0] == position else set()
    order = np.argsort(-row)
    top = float(row[order[0]])
    for alternative in (int(token) for token in order[1:alternatives + 1]):
        gap = top - float(row[alternative])
        if alternative == END or alternative in banned or gap > nats:
            continue
        next_row, next_past = decoder.step(alternative, past)
        starts = [token for token in tree.targets[0] if token < len(next_row)]
        start = max(starts, key=lambda token: next_row[token])
        next_top = float(next_row.max())
        if next_row[start] + boost > next_top and \
                gap + next_top - float(next_row[start]) <= boost * BUDGET_FACTOR:
            cursor.detour = (dict(position=position, row=row.copy(), token=alternative, node=0),
                             gap)
            return alternative, next_row, next_past
    return None


# ------------------------------------------------------------------------------------------
# Beam searches
# ------------------------------------------------------------------------------------------



def step_live(decoder, done, live):
    """Drops the live hypotheses that score no better than the best finished one and runs the
    decoder one step for each of the others; returns them."""
    if done:
        best_done = max(candidate["score"] for candidate in done)
        live = [candidate for candidate in live if candidate["score"] > best_done]
    for candidate in live:
        candidate["row"], candidate["past"] = decoder.step(
            candidate["tokens"][-1], candidate.pop("parent")["past"])
    return live


def best_text(decoder, done, live):
    """The best hypothesis's text (finished ones first), and the decoder steps taken."""
    best = max(done or live, key=lambda candidate: candidate["score"])
    return MODEL.tokenizer.decode([token for token in best["tokens"] if token != END]), \
        decoder.steps

def beam(samples, tree, boost=5.0, width=3, bonused=2):
    """Each hypothesis scores its log-probability plus the boost for every token of a phrase
    in progress or whole; a phrase left before its end loses its tokens' bonus. Candidates: each
    hypothesis's `width` likeliest tokens and its `bonused` likeliest tokens that spell on."""
    decoder = Decoder(with_lead_in(samples))
    logits, past = decoder.first()
    live = [dict(logp=0.0, pending=0.0, whole=0.0, node=0, tokens=[], past=past, row=logits)]
    done = []
    for _ in range(decoder.limit):
        candidates = []
        for hypothesis in live:
            logp = log_softmax(hypothesis["row"])
            top = np.argsort(-logp)[:width]
            options = {int(token) for token in top}
            node = hypothesis["node"]
            if int(top[0]) != END:
                spelling = list(tree.targets[node]) if node else []
                if node == 0 or not tree.end[node]:
                    spelling += list(tree.targets[0])
                spelling = sorted({token for token in spelling if token < len(logp)},
                                  key=lambda token: -logp[token])
                options |= set(spelling[:bonused])
            for token in options:
                node, pending, whole = hypothesis["node"], hypothesis["pending"], hypothesis["whole"]
                ended = node and tree.end[node] and not continues_word(token)
                if ended:
                    whole, pending = whole + pending, 0.0
                bonus = 0.0
                if node and token in tree.targets[node]:
                    node, bonus = tree.targets[node][token], boost
                else:
                    pending = 0.0
                    starts = hypothesis["node"] == 0 or not tree.end[hypothesis["node"]]
                    if token != END and starts and token in tree.targets[0] and int(top[0]) != END:
                        node, bonus = tree.targets[0][token], boost
                    else:
                        node = 0
                if token == END and node and not tree.end[node]:
                    pending = 0.0
                candidates.append(dict(
                    logp=hypothesis["logp"] + float(logp[token]), pending=pending + bonus,
                    whole=whole, node=node, tokens=hypothesis["tokens"] + [token],
                    parent=hypothesis))
        for candidate in candidates:
            candidate["score"] = candidate["logp"] + candidate["pending"] + candidate["whole"]
        candidates.sort(key=lambda candidate: -candidate["score"])
        live = []
        for candidate in candidates:
            if candidate["tokens"][-1] == END:
                if candidate["node"] and tree.end[candidate["node"]]:
                    candidate["whole"] += candidate["pending"]
                candidate["score"] = candidate["logp"] + candidate["whole"]
                done.append(candidate)
            else:
                live.append(candidate)
            if len(live) >= width:
                break
        live = step_live(decoder, done, live)
        if not live:
            break
    return best_text(decoder, done, live)


def gated(samples, tree, boost=5.0, width=4, delta=3.0, detour=2, bonused=2, prune=10.0,
          per_phrase=None, budget=None):
    """A beam whose hypotheses other than the model's own path must be spelling a phrase, or
    be at most `detour` tokens past one of the model's next choices (within `delta` nats of
    its first) taken in the hope that a phrase starts after it. `per_phrase`: the bonus a whole
    phrase keeps (default: the boost for each of its tokens); `budget`: the most a phrase's
    tokens may score below the model's own choices in all."""
    decoder = Decoder(with_lead_in(samples))
    logits, past = decoder.first()
    live = [dict(logp=0.0, pending=0, whole=0.0, node=0, tokens=[], past=past, row=logits,
                 away=0, gap=0.0)]
    done = []
    for _ in range(decoder.limit):
        candidates = []
        for hypothesis in live:
            logp = log_softmax(hypothesis["row"])
            order = np.argsort(-logp)
            top = int(order[0])
            node = hypothesis["node"]
            options = {}
            if not (hypothesis["away"] >= detour and not node):
                options[top] = "top"
            if top != END:
                spelling = list(tree.targets[node]) if node else []
                if node == 0 or not tree.end[node]:
                    spelling += list(tree.targets[0])
                spelling = sorted({token for token in spelling if token < len(logp)},
                                  key=lambda token: -logp[token])[:bonused]
                for token in spelling:
                    if logp[token] + boost >= logp[top] - delta:
                        options.setdefault(token, "bonus")
                if not node and hypothesis["away"] == 0:
                    for token in (int(token) for token in order[1:3]):
                        if token != END and logp[token] >= logp[top] - delta:
                            options.setdefault(token, "detour")
            for token, kind in options.items():
                node, pending, whole = hypothesis["node"], hypothesis["pending"], hypothesis["whole"]
                away, gap = hypothesis["away"], hypothesis["gap"]
                ended = node and tree.end[node] and not continues_word(token)
                if ended:
                    whole += per_phrase if per_phrase is not None else pending * boost
                    pending, gap = 0, 0.0
                if node and token in tree.targets[node]:
                    node, pending = tree.targets[node][token], pending + 1
                else:
                    pending = 0
                    starts = hypothesis["node"] == 0 or not tree.end[hypothesis["node"]]
                    if token != END and starts and token in tree.targets[0] and top != END:
                        node, pending, gap = tree.targets[0][token], 1, 0.0
                    else:
                        node = 0
                if node:
                    away, gap = 0, gap + float(logp[top] - logp[token])
                elif kind == "detour":
                    away, gap = 1, float(logp[top] - logp[token])
                elif away:
                    away += 1
                if budget is not None and node and gap > budget:
                    continue
                if token == END and node:
                    if tree.end[node]:
                        whole += per_phrase if per_phrase is not None else pending * boost
                    pending, node = 0, 0
                if token == END and away:
                    continue
                candidate = dict(logp=hypothesis["logp"] + float(logp[token]), pending=pending,
                                 whole=whole, node=node, tokens=hypothesis["tokens"] + [token],
                                 parent=hypothesis, away=away, gap=gap)
                candidate["score"] = candidate["logp"] + whole + boost * pending
                candidates.append(candidate)
        if not candidates:
            break
        candidates.sort(key=lambda candidate: -candidate["score"])
        best, live = candidates[0]["score"], []
        for candidate in candidates:
            if candidate["score"] < best - prune:
                break
            (done if candidate["tokens"][-1] == END else live).append(candidate)
            if len(live) >= width:
                break
        live = step_live(decoder, done, live)
        if not live:
            break
    return best_text(decoder, done, live)


# ------------------------------------------------------------------------------------------
# Commands
# ------------------------------------------------------------------------------------------

MODES = {"greedy": greedy, "beam": beam, "gated": gated}


def spoken_commands(work):
    items = list(commands())
    for index, (text, _) in enumerate(items):
        voice, wav = f"{work}/v{index}.wav", f"{work}/c{index}.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", voice, text], check=True)
        subprocess.run(["sox", voice, "-r", "16000", "-c", "1", "-b", "16", "-D", wav], check=True)
        yield text, items[index][1], reference.read_wav(Path(wav))


def names(mode, options):
    items = []
    with tempfile.TemporaryDirectory() as work:
        items = list(spoken_commands(work))
    every = sorted({name for _, names, _ in items for name in names})
    tree, empty = Tree(every), Tree([])
    right = said = invented = changed = steps = 0
    for text, said_names, samples in items:
        plain, _ = greedy(samples, empty)
        heard, used = MODES[mode](samples, tree, **options)
        steps += used
        got, expected = words(heard), {name.lower() for name in said_names}
        right += len(expected & got)
        said += len(expected)
        extra = {name.lower() for name in every} & got - expected - words(plain)
        invented += len(extra)
        changed += not said_names and heard != plain
        print(f"  {text} -> {heard}" + (f"   (invented: {sorted(extra)})" if extra else "")
              + ("   (changed)" if not said_names and heard != plain else ""), flush=True)
    print(f"{mode} {options}: names right {right}/{said}, invented {invented}, commands without "
          f"names changed {changed}, decoder steps {steps}")


def librivox(mode, options):
    spoken = [line.split("|")[1].split(",") for line in open(HERE / "commands.txt")
              if "|" in line and not line.startswith("#")]
    fifty = sorted({name for names in spoken for name in names if name}) + [
        "Lifx", "Hue Gradient", "Aqara", "Shelly", "Zigbee", "Ecobee", "Lutron", "Wiz", "Tapo",
        "Kasa", "Yeelight", "Arlo", "Ring", "Netatmo", "Fibaro", "Sengled", "Wemo"]
    things = ["lamp", "light", "room", "speaker", "blinds", "plug", "fan", "camera", "heater",
              "door"]
    clips = reference.librivox_clips()
    plain_steps = sum(greedy(reference.read_wav(path), Tree([]))[1] for path, _ in clips)
    for label, phrases in [("50", fifty), ("500", [f"{n} {t}" for n in fifty for t in things])]:
        tree, steps, errors, count = Tree(phrases), 0, 0, 0
        for path, text in clips:
            heard, used = MODES[mode](reference.read_wav(path), tree, **options)
            steps += used
            expected = reference.normalize(text)
            errors += reference.word_errors(expected, reference.normalize(heard))
            count += len(expected)
        print(f"{mode} {options} {label} phrases: WER {errors / count:.4f}, decoder steps "
              f"{steps} (without phrases {plain_steps})")


def gaps():
    with tempfile.TemporaryDirectory() as work:
        items = list(spoken_commands(work))
    for index, (text, said_names, samples) in enumerate(items):
        if not said_names:
            continue
        decoder = Decoder(with_lead_in(samples))
        row, past = decoder.first()
        own = 0.0
        for _ in range(decoder.limit):
            logp = log_softmax(row)
            token = int(np.argmax(logp))
            own += float(logp[token])
            if token == END:
                break
            row, past = decoder.step(token, past)
        # The right text, each step taking the likeliest token that spells on along it.
        decoder = Decoder(with_lead_in(samples))
        row, past = decoder.first()
        target, position, right = (" " + text).encode(), 0, 0.0
        while True:
            logp = log_softmax(row)
            if position == len(target):
                right += float(logp[END])
                break
            token = next((int(token) for token in np.argsort(-logp)[:4000]
                          if END < token < len(PIECES) and PIECES[token]
                          and target.startswith(PIECES[token], position)), None)
            if token is None:
                right = None
                break
            right += float(logp[token])
            position += len(PIECES[token])
            row, past = decoder.step(token, past)
        cost = "?" if right is None else f"{own - right:5.1f}"
        print(f"{index + 1:2d} {cost} nats  {text}")


def main(argv):
    if len(argv) < 2 or argv[1] not in ("greedy", "beam", "gated", "librivox", "gaps"):
        raise SystemExit(__doc__)
    if argv[1] == "gaps":
        gaps()
    elif argv[1] == "librivox":
        librivox(argv[2], ast.literal_eval(argv[3]) if len(argv) > 3 else {})
    else:
        names(argv[1], ast.literal_eval(argv[2]) if len(argv) > 2 else {})


if __name__ == "__main__":
    main(sys.argv)
