#!/usr/bin/env python3
"""Recipe mutator: hostile variants of the recipes in recipes/, deterministic with a seed.

    reliability/mutate_recipes.py --out DIR [--seed N] [--count N] [--recipes DIR]

Families: `lines` (deleted, duplicated, swapped lines), `types` (a value replaced by one of
another type), `numbers` (huge, negative, NaN, overflowing numbers), `times` (extreme time
ranges, e.g. `end: 9000000000000000000`), `nesting` (deep flow/block nesting), `chains` (long
preset `base:` chains), `size` (big sequences and mappings near the 1 MiB limit), `text`
(unicode, control characters, BOM, CRLF, invalid UTF-8), `aliases` (anchors, aliases, alias
bombs, tags, several documents), `paths` (odd output paths). Writes DIR/NNNN-family.yaml and
DIR/manifest.json. Python 3 standard library only.
"""
import argparse
import json
import os
import random
import re
import sys

HUGE_NUMBERS = ["9000000000000000000", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                "18446744073709551616", "1e308", "1e309", "-1", "0", "-0", ".nan", ".inf", "-.inf",
                "0x7fffffffffffffff", "4611686018427387904/1", "1/0", "0/0", "99999999999999999999999999999999",
                "2147483648", "4294967296", "1.7976931348623157e308", "5e-324"]
EXTREME_TIMES = [
    "{ start: 0s, end: 9000000000000000000 }",
    "{ start: 1s, duration: 4611686018427387904/1 }",
    "{ start: 9223372036854775807, duration: 1s }",
    "{ start: -9223372036854775808, end: 1s }",
    "{ start: 1/9223372036854775807, duration: 9223372036854775807/1 }",
    "{ start: 1e300s, duration: 1s }",
    "{ start: .nan, duration: 1s }",
    "{ start: 0s, end: 0s }",
    "{ start: 2s, end: 1s }",
    "{ start: 0s, duration: -1s }",
    "{ start: 9000000000000000000, end: 9000000000000000001 }",
    "{ start: 1/0, duration: 1s }",
    "{ start: 99999999999h, duration: 1s }",
    "{ start: '00:00:01', end: '99999999:59:59.999' }",
    "{ start: 0s, duration: 9223372036854775807/9223372036854775806 }",
]
TYPE_VALUES = ["[]", "{}", "[1, 2]", "{ a: 1 }", "null", "~", "true", "''", "\"\"", "1.5", "-1", "yes",
               "!!binary aGVsbG8=", "|\n    block\n    text", "'\\0'", "\"\\u0000\"", "0o777", "2001-12-14"]
PATHS = ["/dev/full/x.mp4", "a/x.mp4", "", "/", ".", "..", "{stem}" * 2000, "/proc/self/mem", "x.yaml",
         "{dir}/../../../../../../../tmp/{stem}.mp4", "{nokey}.mp4", "{", "}", "{{stem}}.mp4", "\u0000.mp4",
         "x" * 5000 + ".mp4", "out/" * 400 + "x.mp4", "~/x.mp4", "-x.mp4", "x.mp4/", "{stem}.exe", "{stem}.mp4\n"]
UNICODE = ["名前", "🎞️🎬", "\u202eevil\u202c", "e\u0301\u0301\u0301", "\ufeff", "\u0000", "\u0007", "\t", "\u2028",
           "\U0010ffff", "Ω" * 1000, "\ud7ff"]


def scalar_positions(lines):
    """(line index, start, end) of every `key: value` scalar value in block style."""
    out = []
    for i, line in enumerate(lines):
        for m in re.finditer(r"(?<=: )([^\s{}\[\],#][^{}\[\],#]*?)(?=\s*(?:$|[,}\]#]))", line):
            out.append((i, m.start(1), m.end(1)))
    return out


class Mutator:
    def __init__(self, seeds, rng):
        self.seeds = seeds  # [(name, text)]
        self.rng = rng

    def pick(self):
        return self.rng.choice(self.seeds)

    def lines(self):
        name, text = self.pick()
        lines = text.split("\n")
        ops = []
        for _ in range(self.rng.randint(1, 4)):
            i = self.rng.randrange(len(lines))
            op = self.rng.choice(["delete", "duplicate", "swap", "indent", "dedent"])
            if op == "delete" and len(lines) > 1:
                del lines[i]
            elif op == "duplicate":
                lines.insert(i, lines[i])
            elif op == "swap":
                j = self.rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
            elif op == "indent":
                lines[i] = "  " + lines[i]
            else:
                lines[i] = lines[i].lstrip()
            ops.append(f"{op} line {i + 1}")
        return name, ", ".join(ops), "\n".join(lines)

    def replace_scalar(self, values, what):
        name, text = self.pick()
        lines = text.split("\n")
        pos = scalar_positions(lines)
        ops = []
        for _ in range(self.rng.randint(1, 2)):
            if not pos:
                break
            i, a, b = self.rng.choice(pos)
            v = self.rng.choice(values)
            ops.append(f"line {i + 1}: {lines[i][a:b]!r} → {v[:40]!r}")
            lines[i] = lines[i][:a] + v + lines[i][b:]
            pos = scalar_positions(lines)
        return name, f"{what}: " + "; ".join(ops), "\n".join(lines)

    def types(self):
        return self.replace_scalar(TYPE_VALUES, "type swap")

    def numbers(self):
        # Numbers where the recipes have numbers, and in the number-valued keys a preset can carry.
        if self.rng.random() < 0.5:
            name, text = self.pick()
            nums = list(re.finditer(r"(?<![\w.])\d+(?:\.\d+)?[kMs]?(?![\w])", text))
            if nums:
                m = self.rng.choice(nums)
                v = self.rng.choice(HUGE_NUMBERS)
                return name, f"number {m.group(0)!r} at offset {m.start()} → {v}", text[:m.start()] + v + text[m.end():]
        key = self.rng.choice(["quality", "frame-rate", "bitrate", "max-bitrate", "gop", "width", "height",
                               "sample-rate", "channels", "keyframe-interval", "recipe"])
        v = self.rng.choice(HUGE_NUMBERS)
        return "inline", f"preset {key}: {v}", self.with_preset({key: v})

    def with_preset(self, fields, session=None):
        body = ", ".join(f"{k}: {v}" for k, v in fields.items())
        s = ("recipe: 1\nname: hostile\noutput: \"{dir}/{stem}-x.mp4\"\n"
             f"presets:\n  v: {{ base: h264-960x540, {body} }}\n" if fields else
             "recipe: 1\nname: hostile\noutput: \"{dir}/{stem}-x.mp4\"\n")
        s += ("reader:\n  outputs:\n    picture: { track: video }\n    sound: { track: audio, optional: true }\n"
              "writer:\n  inputs:\n    - { source: picture, settings: " + ("v" if fields else "h264-960x540") + " }\n"
              "    - { source: sound, settings: aac-stereo }\n")
        if session:
            s += f"session:\n  time-range: {session}\n"
        return s

    def times(self):
        t = self.rng.choice(EXTREME_TIMES)
        if self.rng.random() < 0.5:
            name, text = self.pick()
            text = re.sub(r"\nsession:.*", "", text, flags=re.S)
            return name, f"session time-range {t}", text.rstrip("\n") + f"\nsession:\n  time-range: {t}\n"
        return "inline", f"session time-range {t}", self.with_preset({}, session=t)

    def nesting(self):
        depth = self.rng.choice([100, 1000, 10000, 100000])
        kind = self.rng.choice(["flow-seq", "flow-map", "block-map"])
        if kind == "flow-seq":
            nest = "[" * depth + "]" * depth
        elif kind == "flow-map":
            nest = "{a: " * depth + "1" + "}" * depth
        else:
            nest = "\n" + "".join("  " * (i + 1) + "a:\n" for i in range(min(depth, 700))) + "  " * 701 + "b: 1"
        name, text = self.pick()
        key = self.rng.choice(["presets:\n  deep: ", "metadata: ", "extra: ", "reader:\n  outputs:\n    picture: "])
        return name, f"{kind} nested {depth} deep under {key.split(':')[0]}", text + "\n" + key + nest + "\n"

    def chains(self):
        n = self.rng.choice([10, 100, 1000, 5000, 20000])
        cyclic = self.rng.random() < 0.3
        lines = ["recipe: 1", "name: chain", "output: \"{dir}/{stem}-x.mp4\"", "presets:"]
        lines.append(f"  p0: {{ base: {'p' + str(n - 1) if cyclic else 'h264-960x540'}, quality: 30 }}")
        for i in range(1, n):
            lines.append(f"  p{i}: {{ base: p{i - 1} }}")
        lines += ["reader:", "  outputs:", "    picture: { track: video }", "writer:", "  inputs:",
                  f"    - {{ source: picture, settings: p{n - 1} }}"]
        return "inline", f"a {'cyclic ' if cyclic else ''}base chain of {n} presets", "\n".join(lines) + "\n"

    def size(self):
        kind = self.rng.choice(["flow-seq", "mapping", "long-scalar", "many-comments", "many-inputs"])
        name, text = self.pick()
        if kind == "flow-seq":
            n = self.rng.choice([1000, 40000, 100000])
            return name, f"a flow sequence of {n} items", text + "\nextra: [" + ", ".join("1" for _ in range(n)) + "]\n"
        if kind == "mapping":
            n = self.rng.choice([1000, 50000])
            return name, f"a mapping of {n} keys", text + "\nextra:\n" + "".join(f"  k{i}: {i}\n" for i in range(n))
        if kind == "long-scalar":
            n = self.rng.choice([100000, 1 << 20, (1 << 20) + 1])
            return name, f"a {n}-byte scalar", text + "\nsummary2: " + "x" * n + "\n"
        if kind == "many-comments":
            return name, "60k comment lines", "# c\n" * 60000 + text
        n = self.rng.choice([100, 5000])
        ins = "".join("    - { source: picture, settings: h264-960x540 }\n" for _ in range(n))
        return "inline", f"{n} writer inputs from one reader output", self.with_preset({}).split("writer:")[0] + "writer:\n  inputs:\n" + ins

    def text(self):
        name, text = self.pick()
        kind = self.rng.choice(["unicode-value", "unicode-key", "bom", "crlf", "tabs", "nul", "invalid-utf8",
                                "lone-surrogate", "cr-only"])
        if kind == "unicode-value":
            u = self.rng.choice(UNICODE)
            return name, f"name/summary with {u[:10]!r}", re.sub(r"(?m)^name: .*$", lambda _: "name: \"" + u + "\"", text).encode("utf-8", "surrogatepass")
        if kind == "unicode-key":
            u = self.rng.choice(UNICODE[:4])
            return name, f"a key {u!r}", (text + f"\n{u}: 1\n").encode()
        if kind == "bom":
            return name, "a BOM first", ("\ufeff" + text).encode()
        if kind == "crlf":
            return name, "CRLF line ends", text.replace("\n", "\r\n").encode()
        if kind == "cr-only":
            return name, "CR line ends", text.replace("\n", "\r").encode()
        if kind == "tabs":
            return name, "tab indentation", text.replace("  ", "\t").encode()
        if kind == "nul":
            i = self.rng.randrange(len(text))
            return name, f"a NUL byte at {i}", (text[:i] + "\0" + text[i:]).encode()
        if kind == "lone-surrogate":
            return name, "an escaped lone surrogate", (text + "\nsummary: \"\\ud800\"\n").encode()
        b = bytearray(text.encode())
        i = self.rng.randrange(len(b))
        bad = self.rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\xc0\xaf"])
        b[i:i] = bad
        return name, f"invalid UTF-8 {bad.hex()} at byte {i}", bytes(b)

    def aliases(self):
        kind = self.rng.choice(["bomb", "preset-alias", "merge", "undefined", "tags", "documents", "directive",
                                "dup-keys", "complex-key", "anchor-self"])
        name, text = self.pick()
        if kind == "bomb":
            levels = self.rng.choice([5, 9])
            s = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
                f"a{i}: &a{i} [{', '.join(['*a' + str(i - 1)] * 10)}]\n" for i in range(1, levels))
            return name, f"an alias bomb, 10^{levels} nodes", text + "\nextra:\n" + "".join("  " + l + "\n" for l in s.splitlines())
        if kind == "preset-alias":
            t = text.replace("reader:", "x-anchor: &v { codec: h264, quality: 20 }\nreader:", 1)
            t = re.sub(r"settings: [\w-]+", "settings: *v", t, count=1)
            return name, "settings given by an alias", t
        if kind == "merge":
            return "inline", "a merge key <<", self.with_preset({"<<": "{ quality: 20 }"})
        if kind == "undefined":
            return name, "an undefined alias", text.replace("track: video", "track: *nothing", 1)
        if kind == "tags":
            tag = self.rng.choice(["!!str", "!!int", "!!map", "!custom", "!<tag:x,2000:y>", "!!python/object"])
            return name, f"a tag {tag}", text.replace("track: video", f"track: {tag} video", 1)
        if kind == "documents":
            return name, "two documents", text + "\n---\n" + text
        if kind == "directive":
            return name, "a %YAML 1.1 directive", "%YAML 1.1\n%TAG ! tag:x.com,2000:\n---\n" + text
        if kind == "dup-keys":
            return name, "a duplicated top-level key", text + "\nname: again\nrecipe: 2\n"
        if kind == "complex-key":
            return name, "a complex (mapping) key", text + "\n? { a: 1 }\n: b\n"
        return name, "an anchor on a mapping used inside itself", text + "\nx: &x { y: 1 }\nz: [*x, *x, *x]\n"

    def paths(self):
        p = self.rng.choice(PATHS)
        name, text = self.pick()
        q = json.dumps(p)
        t = re.sub(r'(?m)^output: .*$', lambda _: "output: " + q, text)
        t = re.sub(r'(?m)^  path: .*$', lambda _: "  path: " + q, t)
        return name, f"output path {p[:40]!r}", t


FAMILIES = {"lines": 14, "types": 12, "numbers": 12, "times": 10, "nesting": 6, "chains": 5, "size": 6,
            "text": 10, "aliases": 8, "paths": 6}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=600)
    p.add_argument("--recipes", default=os.path.join(os.path.dirname(here), "recipes"))
    a = p.parse_args()
    seeds = [(n, open(os.path.join(a.recipes, n), encoding="utf-8").read())
             for n in sorted(os.listdir(a.recipes)) if n.endswith(".yaml")]
    rng = random.Random(a.seed)
    m = Mutator(seeds, rng)
    os.makedirs(a.out, exist_ok=True)
    for n in os.listdir(a.out):
        if n.endswith(".yaml"):
            os.unlink(os.path.join(a.out, n))
    families = list(FAMILIES)
    weights = [FAMILIES[f] for f in families]
    manifest = []
    for i in range(a.count):
        fam = rng.choices(families, weights)[0]
        seed_name, desc, body = getattr(m, fam)()
        data = body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass")
        name = f"{i:04d}-{fam}.yaml"
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(data)
        manifest.append({"name": name, "family": fam, "from": seed_name, "description": desc, "size": len(data)})
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump({"seed": a.seed, "cases": manifest}, f, indent=1)
    print(f"{a.count} mutated recipes in {a.out} (seed {a.seed})")


if __name__ == "__main__":
    sys.exit(main())
