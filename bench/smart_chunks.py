"""Scenarios (t) smart rendering and (u) chunked encoding, for bench/run.py (which passes in its
helpers: `h.sh`, `h.timed`, `h.probe`, the paths). Each returns a result dict; `report_*` turn it
into the lines of bench/results/smart-chunks.md."""
import json, subprocess

SMART_FPS, SMART_GOP = 30, 60          # (t): 1080p30, a keyframe every 2 s
SMART_TARGET, SMART_SIZE_TARGET = 10.0, 0.02
CHUNK_CPU_TARGET = 1.03                # (u): chunked CPU over unchunked
CHUNK_MACHINES = (4, 8, 16)


def smart_recipe(path, smart, cut, out):
    path.write_text(f"""recipe: 1
output: "{out}"
composition:
  video:
    - {{ end: {cut[0]}s }}
    - {{ start: {cut[1]}s }}
reader:
  outputs:
    picture: {{ track: video }}
writer:
  inputs:
    - {{ source: picture, settings: {{ codec: h264, quality: 23, smart: {smart}, codec-options: {{ preset: veryfast }} }} }}
""")
    return path


def smart_run(h, src, runs):
    """(t): a 2 s cut-out rendered smart, against reencode's and ffmpeg's frame-exact full encodes
    with the same settings (x264 veryfast, quality 23). Alternating runs; frames and sizes checked."""
    seconds = h.probe(src)["duration"]
    mid = round(seconds / 2 * SMART_FPS) / SMART_FPS
    # Cuts between keyframes (a keyframe every 2 s): the pictures from each cut to the next keyframe are encoded.
    cut = (mid - 0.5, mid + 1.5)
    out = h.WORK / "t-out"
    out.mkdir(exist_ok=True)
    paths = {"smart": out / "smart.mp4", "full": out / "full.mp4", "ffmpeg": out / "ffmpeg.mp4"}
    recipes = {k: smart_recipe(out / f"{k}.yaml", "require" if k == "smart" else "off", cut, paths[k]) for k in ("smart", "full")}
    graph = (f"[0:v]trim=end={cut[0]},setpts=PTS-STARTPTS[a];[0:v]trim=start={cut[1]},setpts=PTS-STARTPTS[b];"
             "[a][b]concat=n=2:v=1:a=0[v]")
    tools = {
        "smart": [str(h.REENCODE), "run", str(recipes["smart"]), "-i", str(src), "--overwrite", "--quiet"],
        "full": [str(h.REENCODE), "run", str(recipes["full"]), "-i", str(src), "--overwrite", "--quiet"],
        "ffmpeg": ["ffmpeg", "-v", "error", "-y", "-nostdin", "-i", str(src), "-filter_complex", graph, "-map", "[v]"]
                  + h.x264("veryfast", 23, SMART_GOP) + [str(paths["ffmpeg"])],
    }
    samples = {k: [] for k in tools}
    order = list(tools)
    for r in range(runs):
        for k in (order if r % 2 == 0 else list(reversed(order))):
            samples[k].append(h.timed(tools[k]))
    res = {k: {"wall": h.med(xs, "wall"), "cpu": h.med(xs, "cpu"), "rss": h.med(xs, "rss"), "runs": xs} for k, xs in samples.items()}
    kept = seconds - (cut[1] - cut[0])
    src_bytes = src.stat().st_size
    frames = {k: h.probe(p)["frames"] for k, p in paths.items()}
    res |= {"cut": list(cut), "sourceSeconds": seconds, "frames": frames,
            "bytes": {k: p.stat().st_size for k, p in paths.items()}, "sourceBytes": src_bytes,
            "expectedBytes": src_bytes * kept / seconds,
            "speedupOverFull": res["full"]["wall"] / res["smart"]["wall"],
            "speedupOverFFmpeg": res["ffmpeg"]["wall"] / res["smart"]["wall"],
            "target": SMART_TARGET, "sizeTarget": SMART_SIZE_TARGET}
    res["sizeDiff"] = res["bytes"]["smart"] / res["expectedBytes"] - 1
    return res


def chunk_recipe(path, out, time_range=None, sound=True):
    tr = f"session:\n  time-range: {{ start: {time_range[0]}s, end: {time_range[1]}s }}\n" if time_range else ""
    path.write_text(f"""recipe: 1
output: "{out}"
reader:
  outputs:
    picture: {{ track: video }}
{"    sound: { track: audio }" if sound else ""}
writer:
  inputs:
    - {{ source: picture, settings: {{ codec: hevc, quality: 28, codec-options: {{ preset: medium }} }} }}
{"    - { source: sound, settings: { codec: aac, bitrate: 128k } }" if sound else ""}
{tr}""")
    return path


def schedule(times, machines):
    """The longest chain when `times` run longest first, each on the machine that frees first (LPT)."""
    loads = [0.0] * machines
    for t in sorted(times, reverse=True):
        loads[loads.index(min(loads))] += t
    return max(loads)


def psnr(src, out):
    p = subprocess.run(["ffmpeg", "-nostdin", "-i", str(out), "-i", str(src), "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"],
                       text=True, capture_output=True)
    line = [l for l in p.stderr.splitlines() if "average:" in l]
    return float(line[-1].split("average:")[1].split()[0]) if line else None


def chunk_run(h, src):
    """(u): the same HEVC recipe in one piece and in chunks (`--chunks auto`): CPU and wall, each
    chunk encoded alone (its measured time), and from those the predicted wall time on 4, 8 and 16
    machines (the longest chain of chunks, longest first, plus the join measured in the chunked run)."""
    out = h.WORK / "u-out"
    out.mkdir(exist_ok=True)
    whole, chunked = out / "whole.mp4", out / "chunked.mp4"
    recipe = chunk_recipe(out / "u.yaml", out / "out.mp4")
    one = h.timed([str(h.REENCODE), "run", str(recipe), "-i", str(src), "-o", str(whole), "--overwrite", "--quiet"])
    # The chunked run's progress says when the join (pass 2 of 2) began.
    p = subprocess.run([h.TIME, "-f", "BENCH %e %U %S %M", str(h.REENCODE), "run", str(recipe), "-i", str(src), "-o", str(chunked),
                        "--overwrite", "--chunks", "auto", "--progress", "json"], text=True, capture_output=True)
    if p.returncode != 0:
        raise RuntimeError(f"chunked run failed: {p.stderr[-2000:]}")
    b = [l for l in p.stderr.splitlines() if l.startswith("BENCH ")][-1].split()
    parts = {"wall": float(b[1]), "cpu": float(b[2]) + float(b[3]), "rss": int(b[4])}
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    chunk_phase = max((l.get("elapsed", 0) for l in lines if l.get("type") == "progress" and l.get("pass") == 1), default=0.0)
    join = max(0.0, parts["wall"] - chunk_phase)
    plan = json.loads(h.sh([str(h.REENCODE), "plan", str(recipe), "-i", str(src), "--chunks", "auto", "--json", "--estimate", "fast"]).stdout)
    chunks = plan["chunks"]["chunks"]
    each = []
    for c in chunks:
        end = c["end"] if c["end"] is not None else h.probe(src)["duration"]
        r = chunk_recipe(out / f"chunk{c['number']}.yaml", out / f"chunk{c['number']}.mp4", (c["start"], end), sound=False)
        each.append(h.timed([str(h.REENCODE), "run", str(r), "-i", str(src), "--overwrite", "--quiet"]) | {"number": c["number"], "pictures": c["pictures"]})
    predicted = {n: schedule([e["wall"] for e in each], n) + join for n in CHUNK_MACHINES}
    return {"whole": one, "chunked": parts, "cpuRatio": parts["cpu"] / one["cpu"], "cpuTarget": CHUNK_CPU_TARGET,
            "chunkPhase": chunk_phase, "join": join, "workers": plan["chunks"]["workers"], "chunks": each,
            "predicted": {str(n): {"wall": w, "speedup": one["wall"] / w, "target": 0.8 * n if n <= 8 else None} for n, w in predicted.items()},
            "frames": {"whole": h.probe(whole)["frames"], "chunked": h.probe(chunked)["frames"]},
            "bytes": {"whole": whole.stat().st_size, "chunked": chunked.stat().st_size},
            "psnr": {"whole": psnr(src, whole), "chunked": psnr(src, chunked)}}


def report(t, u, meta, runs, quick):
    lines = [f"# Smart rendering and chunked encoding — {meta['date']}", "",
             f"{meta['cores']} cores, {meta['cpu']}; {meta['versions']['ffmpeg']}"
             f"{' (quick: short sources, for trying the harness — not the targets’ sources)' if quick else ''}.", ""]
    if t:
        lines += ["## (t) " + t["title"], "", f"Median of {runs} alternating runs.", "",
                  "| | smart | reencode full | ffmpeg trim+concat |", "|---|---|---|---|",
                  f"| wall | {t['smart']['wall']:.2f} s | {t['full']['wall']:.2f} s | {t['ffmpeg']['wall']:.2f} s |",
                  f"| CPU | {t['smart']['cpu']:.2f} s | {t['full']['cpu']:.2f} s | {t['ffmpeg']['cpu']:.2f} s |",
                  f"| frames | {t['frames']['smart']} | {t['frames']['full']} | {t['frames']['ffmpeg']} |",
                  f"| bytes | {t['bytes']['smart']} | {t['bytes']['full']} | {t['bytes']['ffmpeg']} |", "",
                  f"Speed-up (wall): {t['speedupOverFull']:.1f}× over reencode's full encode, {t['speedupOverFFmpeg']:.1f}× over ffmpeg's "
                  f"(target ≥ {t['target']:g}×). Size: {t['sizeDiff'] * 100:+.2f} % against the source's bytes less the cut "
                  f"(target within ±{t['sizeTarget'] * 100:g} %).", ""]
    if u:
        lines += ["## (u) " + u["title"], "",
                  "| | one piece | chunks |", "|---|---|---|",
                  f"| wall | {u['whole']['wall']:.1f} s | {u['chunked']['wall']:.1f} s ({u['workers']} workers; join {u['join']:.1f} s) |",
                  f"| CPU | {u['whole']['cpu']:.1f} s | {u['chunked']['cpu']:.1f} s |",
                  f"| frames | {u['frames']['whole']} | {u['frames']['chunked']} |",
                  f"| bytes | {u['bytes']['whole']} | {u['bytes']['chunked']} |",
                  f"| PSNR vs source | {u['psnr']['whole']} dB | {u['psnr']['chunked']} dB |", "",
                  f"CPU chunked / one piece: {u['cpuRatio']:.3f} (target ≤ {u['cpuTarget']}).", "",
                  "Each chunk encoded alone: " + ", ".join(f"{c['number']}: {c['wall']:.1f} s ({c['pictures']} pictures)" for c in u["chunks"]) + ".", "",
                  "| machines | predicted wall | speed-up | target |", "|---|---|---|---|"]
        for n, p in u["predicted"].items():
            lines.append(f"| {n} | {p['wall']:.1f} s | {p['speedup']:.2f}× | {'≥ %.1f× (one-hour source)' % p['target'] if p['target'] else '—'} |")
        lines.append("")
    return lines
