#!/usr/bin/env python3
"""Writes docs/compatibility.md from a run over the real-world corpus.

    python3 reliability/compatibility.py [--corpus DIR] [--binary PATH] [--out FILE] [--jobs N] [--only TEXT]

Every file of the corpus (default ../shared/corpus beside the repository, or REENCODE_CORPUS)
goes through recipes/web-1080p.yaml and recipes/remux-passthrough.yaml, to MP4: `reencode plan
--json` for what the output keeps and what it drops (the plan's `warnings`, read as they come),
then `reencode run` for the outcome (converted, or refused with its exit code and error line).
A converted file must decode whole with ffmpeg. The page's "Notes" section is hand-written and
kept as it is. Run on demand (minutes), not in CI; needs a built reencode (swift build) and the
ffmpeg command line. Python 3 standard library only.

Location tags of corpus files never reach the page: anything that looks like coordinates, and
any quoted value on a line about location or GPS, is withheld.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECIPES = [("web-1080p", "recipes/web-1080p.yaml"), ("remux-passthrough", "recipes/remux-passthrough.yaml")]
SKIP_EXT = {"md", "tsv", "txt"}
TIME_LIMIT = 240
NOTES = "## Notes"

# ISO 6709 (+37.3349-122.0090+030.000/) and decimal pairs (37.3349, -122.0090).
COORDINATES = re.compile(r"[+-]\d{1,3}(?:\.\d+)?[+-]\d{1,3}(?:\.\d+)?(?:[+-]\d+(?:\.\d+)?)?(?:CRS[^/\s]*)?/?"
                         r"|-?\d{1,3}\.\d{3,}\s*,\s*-?\d{1,3}\.\d{3,}")
LOCATION_WORDS = re.compile(r"location|gps|iso6709|latitude|longitude", re.I)
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|‘[^’]*’|“[^”]*”")


def scrub(text):
    """The text without location values."""
    text = COORDINATES.sub("(location withheld)", text)
    if LOCATION_WORDS.search(text):
        text = QUOTED.sub("(value withheld)", text)
    return text


def run(args, timeout=TIME_LIMIT):
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", f"hung: killed after {timeout} s"


def decode_errors(path):
    """The decoders' error lines for a whole decode (the null muxer's complaints about frames
    sharing a millisecond are about ffmpeg's own output, not the file)."""
    code, _, err = run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "null", "-"])
    lines = [l for l in err.splitlines()
             if l.strip() and not l.startswith("[null @") and not l.strip().startswith("Last message repeated")]
    if code != 0 and not lines:
        lines = [f"ffmpeg exit {code}"]
    return [re.sub(r" @ 0x[0-9a-f]+\]", "]", l) for l in lines]


def error_line(stderr, corpus):
    lines = [l for l in stderr.splitlines() if "error: " in l] or stderr.splitlines() or [""]
    line = lines[0].replace(corpus + "/", "")
    # Paths of the scratch folder and the repository say nothing about the file.
    line = re.sub(r"/[^\s:]*/out\.mp4", "out.mp4", line)
    return scrub(line.replace(ROOT + "/", ""))


def warning_text(w):
    if not isinstance(w, dict):
        return scrub(str(w))
    head = " ".join(str(w[k]) for k in ("kind", "item") if w.get(k) is not None)
    track = f" (track #{w['track']})" if w.get("track") is not None else ""
    return scrub(f"{head}{track}: {w.get('message', '')}".strip(": "))


def tracks_text(plan):
    out = []
    for t in plan.get("tracks", []):
        kind = t.get("type", "?")
        mode = t.get("mode", "?")
        what = t.get("encoder") if mode == "encode" else "copy"
        src = t.get("sourceTrack")
        out.append(f"#{src} {kind} → {what}" if src is not None else f"{kind} → {what}")
    return ", ".join(out)


def one(binary, corpus, name, recipe):
    src = os.path.join(corpus, name)
    with tempfile.TemporaryDirectory(prefix="reencode-compat-") as tmp:
        out = os.path.join(tmp, "out.mp4")
        r = {"file": name, "recipe": recipe[0]}
        code, stdout, stderr = run([binary, "plan", os.path.join(ROOT, recipe[1]), "-i", src, "-o", out, "--json"])
        plan = {}
        if code == 0:
            try:
                plan = json.loads(stdout)
            except ValueError:
                plan = {}
        r["warnings"] = [warning_text(w) for w in plan.get("warnings", [])]
        r["tracks"] = tracks_text(plan)
        code, _, stderr = run([binary, "run", os.path.join(ROOT, recipe[1]), "-i", src, "-o", out, "--quiet"])
        r["exit"] = code
        r["note"] = ""
        if code == 0:
            errors = decode_errors(out)
            r["decodes"] = not errors
            r["error"] = "" if r["decodes"] else "the output does not decode whole: " + scrub(errors[0])
            if errors and recipe[0] == "remux-passthrough" and decode_errors(src):
                # A copy keeps the source's bitstream, damage included.
                r["decodes"] = True
                r["note"] = "copied as it is; the source itself does not decode whole"
        else:
            r["decodes"] = False
            r["error"] = error_line(stderr, corpus) if code is not None else "hung"
        left = [f for f in os.listdir(tmp)]
        if code != 0 and left:
            r["error"] += f" (left {left})"
        return r


def ffmpeg_version():
    """`5.1.9-0+deb12u1` and `libavformat 59.27.100, libavcodec 59.37.100`."""
    code, out, _ = run(["ffmpeg", "-version"], timeout=30)
    if code != 0 or not out:
        return "unknown", "libraries unknown"
    version = out.split()[2] if len(out.split()) > 2 else "unknown"
    libs = [f"lib{m[0]} {m[1]}.{m[2]}.{m[3]}" for m in re.findall(r"^lib(avformat|avcodec)\s+(\d+)\.\s*(\d+)\.\s*(\d+)", out, re.M)]
    return version, ", ".join(libs)


def commit():
    code, out, _ = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], timeout=30)
    c = out.strip() if code == 0 else "unknown"
    code, out, _ = run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], timeout=30)
    return c + (" (with uncommitted changes)" if code == 0 and out.strip() else "")


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def outcome(r):
    if r["exit"] == 0 and r["decodes"]:
        return "converted" + (f" ({r['note']})" if r.get("note") else "")
    if r["exit"] == 0:
        return f"**converted, but {cell(r['error'])}**"
    if r["exit"] is None:
        return "**hung**"
    if r["exit"] >= 128 and r["exit"] not in (130, 143):
        return f"**crashed ({r['exit']})**"
    return f"exit {r['exit']}: {cell(r['error'])}"


def page(results, files, notes, corpus_count):
    version, libs = ffmpeg_version()
    by = {(r["file"], r["recipe"]): r for r in results}
    lines = [
        "# Compatibility: the real-world corpus",
        "",
        f"Every file of `../shared/corpus` ({corpus_count} files from phones, cameras, muxers and deliberately broken",
        "ones) through `recipes/web-1080p.yaml` (reencode to H.264/AAC) and `recipes/remux-passthrough.yaml` (copy",
        "the first video and audio track into MP4), by `reliability/compatibility.py`. For each file the page says",
        "whether it converted or was refused — with the exit code and the error line, which names the file — and",
        "what the output keeps (its tracks) or drops (the plan's warnings, from `reencode plan --json`). A conversion",
        "counts only when the output decodes whole with ffmpeg; `Tests/CLITests/CorpusTests.swift` also checks the",
        "web-1080p outputs' video start and end, rotation and audio/video start offset (within one output frame of",
        "the source's presentation), and `Tests/CLITests/PassthroughCorpusTests.swift` checks the copies against",
        "`ffmpeg -c copy` (same samples, same presentation times) into MP4, MOV and Matroska; both run in",
        "`scripts/test.sh` whenever the corpus is beside the repository. Exit codes: 1 the conversion failed (a",
        "damaged file, no samples, a codec this FFmpeg cannot decode), 65 the recipe does not fit the file, 66 not",
        "media or no track the recipe needs. Location tags of the files are never copied here.",
        "",
        f"Reference run: reencode at `{commit()}`, FFmpeg {version} ({libs}), Debian 12.",
        "",
    ]
    for name, _ in RECIPES:
        rs = [r for r in results if r["recipe"] == name]
        ok = sum(1 for r in rs if r["exit"] == 0 and r["decodes"])
        bad = sum(1 for r in rs if r["exit"] is None or (r["exit"] >= 128 and r["exit"] not in (130, 143)) or (r["exit"] == 0 and not r["decodes"]))
        refused = len(rs) - ok - bad
        extra = f", **{bad} crashed, hung or wrote a bad file**" if bad else ""
        lines.append(f"- `{name}`: **{ok} converted, {refused} refused**{extra}.")
    lines += ["", "## File by file", "",
              "| file | web-1080p | remux-passthrough | kept | dropped or changed (warnings) |",
              "|---|---|---|---|---|"]
    for f in files:
        w, p = by.get((f, "web-1080p")), by.get((f, "remux-passthrough"))
        if not w or not p:
            continue
        kept = "; ".join(f"{n}: {r['tracks']}" for n, r in (("web", w), ("copy", p)) if r["tracks"] and r["exit"] == 0)
        warns = []
        for n, r in (("web", w), ("copy", p)):
            warns += [f"{n}: {x}" for x in r["warnings"]]
        lines.append(f"| `{f}` | {outcome(w)} | {outcome(p)} | {cell(kept)} | {cell('; '.join(warns)) or '—'} |")
    lines += ["", notes.rstrip() if notes else NOTES + "\n", ""]
    return "\n".join(lines).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=os.environ.get("REENCODE_CORPUS", os.path.join(os.path.dirname(ROOT), "shared", "corpus")))
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "reencode"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "compatibility.md"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="files whose name contains this (a quick look; the page then lists only them)")
    a = ap.parse_args()
    corpus = os.path.abspath(a.corpus)
    if not os.path.isdir(corpus):
        print(f"error: {corpus}: no corpus there (--corpus or REENCODE_CORPUS)", file=sys.stderr)
        return 66
    if not os.access(a.binary, os.X_OK):
        print(f"error: {a.binary}: no reencode binary (swift build first, or --binary)", file=sys.stderr)
        return 66
    files = sorted(os.path.relpath(os.path.join(d, f), corpus)
                   for d, _, fs in os.walk(corpus) for f in fs if f.rsplit(".", 1)[-1] not in SKIP_EXT)
    if a.only:
        files = [f for f in files if a.only in f]
    notes = ""
    if os.path.exists(a.out):
        old = open(a.out, encoding="utf-8").read()
        if NOTES in old:
            notes = old[old.index(NOTES):]
    jobs = [(f, r) for f in files for r in RECIPES]
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for i, r in enumerate(pool.map(lambda j: one(a.binary, corpus, j[0], j[1]), jobs)):
            results.append(r)
            print(f"[{i + 1}/{len(jobs)}] {r['file']} {r['recipe']}: {outcome(r)}", file=sys.stderr, flush=True)
    text = page(results, files, notes, len(files))
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
