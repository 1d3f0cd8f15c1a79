#!/usr/bin/env python3
"""reencode vs the ffmpeg command line on the same work (bench/README.md).

Builds release, makes its inputs with reencode's own frame source (panning texture with noise and
a frame-number band), runs every scenario for both tools with the same encoder, preset, quality,
GOP and threads, alternating, several times, and writes bench/results/latest.{json,md,svg}.

    bench/run.sh [--runs N] [--scenarios a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s] [--quick]

High-frame-rate scenarios (a, b, h, i) also run the peer's best command — `-skip_frame noref`
before `-i`, otherwise the same — and check that it shows the same source frames as reencode.

Scenarios a–i, q, r and s write results/latest.*; the composition scenarios j, k, l and m write results/compositions.*;
the still-image scenario o writes results/stills.*, the renditions scenario n results/renditions.*,
the HLS ladder scenario p results/hls-ladder.*
(so running one group leaves the other's reference numbers alone; within each, a scenario not run
keeps its last numbers, with that run's date).
"""
import argparse, json, os, platform, re, shlex, shutil, statistics, subprocess, sys, time

import smart_chunks  # (t) and (u)
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work"
RESULTS = ROOT / "bench" / "results"
REENCODE = ROOT / ".build" / "release" / "reencode"
TOOL = ROOT / ".build" / "release" / "reencode-bench"
RECIPES = ROOT / "bench" / "recipes"
TIME = "/usr/bin/time"

AAC = ["-c:a", "aac", "-b:a", "128k"]  # the audio settings of every ffmpeg command here, as the recipes'
AAC_ARGS = " ".join(AAC)  # the same, for the shell loop of (e)

# (j): 240 fps, 1 s–2 s slowed ×8 (bench/recipes/slomo-240-30.yaml), 30 fps output.
SLOMO_FPS, SLOMO_OUT_FPS, SLOMO_FACTOR, SLOMO_W, SLOMO_H, SLOMO_RATE = 240, 30, 8, 1280, 720, 48000
# (k): a 720p30 clip (440 Hz tone, a click every second) with a 44.1 kHz music bed (an A-minor chord
# that swells every 2 s) mixed under it by bench/recipes/music-bed.yaml: -6 dB, an equal-power ramp
# to -18 dB over 1–1.5 s, fade in over 0.5 s, fade out over the clip's last 1 s.
MUSIC_W, MUSIC_H, MUSIC_FPS, MUSIC_RATE, MUSIC_SECONDS = 1280, 720, 30, 48000, 30
MUSIC_DUCK = (1.0, 1.5, -6.0, -18.0)  # the ramp: start s, end s, from dB, to dB (equal-power)
MUSIC_FADE_IN, MUSIC_FADE_OUT = 0.5, 1.0
# (l): two 6 s 720p30 clips (440 Hz and 660 Hz tones), the first's 0–5 s and the second's 1–6 s joined
# by a 1 s cross-fade centred on the cut (bench/recipes/crossfade.yaml): 10 s out, the dissolve over
# 4.5–5.5 s showing the first clip's 4.5–5.5 s and the second's 0.5–1.5 s.
XFADE_W, XFADE_H, XFADE_FPS, XFADE_RATE, XFADE_SECONDS = 1280, 720, 30, 48000, 6
XFADE_TONES = (440, 660)  # the first clip's, the second's
XFADE_CUT, XFADE_LENGTH, XFADE_SKIP = 5, 1, 1  # the cut on the timeline (s), the fade's length, where the second clip starts
# (m): three 6 s 720p30 clips (440, 550 and 660 Hz tones) trimmed off their keyframes and joined end
# to end (bench/recipes/concat.yaml): each span (start s, end s) in its clip, 12 s out. The joins fall
# 0.5 s or more from the clicks at each whole second of a clip's own time, so the tone's change shows.
CONCAT_W, CONCAT_H, CONCAT_FPS, CONCAT_RATE, CONCAT_SECONDS = 1280, 720, 30, 48000, 6
CONCAT_TONES = (440, 550, 660)
CONCAT_SPANS = ((Fraction(1, 2), Fraction(9, 2)), (Fraction(3, 2), Fraction(11, 2)), (Fraction(1, 5), Fraction(21, 5)))
CONCAT_NAMES = ("first", "second", "third")  # m-first-6s.mp4 (the input), m-second-6s.mp4, m-third-6s.mp4 beside it
COMPOSITION_KEYS = ("j", "k", "l", "m")
# (o): 20 exact stills of a 10-minute 1080p30 H.264 file with 2 s GOPs (`--quick`: 1 minute), at frame
# starts spread as `--count 20` spreads them, by `reencode images` against a loop of
# `ffmpeg -ss T -i IN -frames:v 1` (frame-accurate seeking); and reencode's `--tolerance keyframe`
# against its exact stills: at least STILLS_KEYFRAME_TARGET times faster.
STILLS_COUNT, STILLS_FPS, STILLS_GOP, STILLS_KEYFRAME_TARGET = 20, 30, 60, 5.0
# (n): a 1080p60 clip (20 s; `--quick`: 5 s) → three H.264 renditions (1080p, 720p, 480p) from one read
# (bench/recipes/ladder.yaml) against ffmpeg's one-command ladder (split=3, scale) and against three
# separate ffmpeg commands. Targets: wall and CPU ≤ the ladder's; CPU ≤ 0.8 × the three commands';
# peak RSS ≤ 1.25 × the ladder's.
LADDER = ((1920, 1080), (1280, 720), (854, 480))
LADDER_CPU_OF_SEPARATE, LADDER_RSS_TARGET = 0.8, 1.25
# (p): a 1080p60 clip (60 s; `--quick`: 12 s) → a 4-rung HLS ladder in 6 s fMP4 segments from one read
# (bench/recipes/hls-ladder.yaml: Apple's 1080p 6000, 720p 3000, 540p 2000 and 360p 365 kb/s rungs, x264
# veryfast, GOP 120, one AAC rendition) against ffmpeg's one-command ladder: `split=4`, `scale`, the
# same `-b:v` per rung, keyframes forced every 6 s, `-f hls -hls_segment_type fmp4 -var_stream_map`.
# Targets: wall and CPU ≤ ffmpeg's; both write the same number of segments per rendition.
HLS_RUNGS = ((1920, 1080, 6000), (1280, 720, 3000), (960, 540, 2000), (640, 360, 365))
HLS_SEGMENT = 6
# (q), (r): one 1080p30 clip (10 s; `--quick`: 4 s) coded by each of the codec table's newer rows with
# the settings ffmpeg is given: (q) AV1 by SVT-AV1 at preset 8, quality 35; (r) VP9 by libvpx at
# cpu-used 4 with row-mt, quality 31 (bitrate 0); (s) ProRes 422 HQ by prores_ks (10-bit 4:2:2, MOV,
# PCM sound). Targets: wall and CPU ≤ ffmpeg's, peak RSS ≤ 1.25 ×.
CODEC_ROWS = ("q", "r", "s")
SVT_AV1 = ["-c:v", "libsvtav1", "-preset", "8", "-crf", "35", "-g", "60", "-pix_fmt", "yuv420p"]
LIBVPX_VP9 = ["-c:v", "libvpx-vp9", "-cpu-used", "4", "-row-mt", "1", "-tile-columns", "2", "-crf", "31", "-b:v", "0", "-g", "60", "-pix_fmt", "yuv420p"]
PRORES_HQ = ["-c:v", "prores_ks", "-profile:v", "3", "-pix_fmt", "yuv422p10le", "-vendor", "apl0"]
CODEC_ROW_RSS_TARGET = 1.25

TARGETS = {"a": 0.65, "b": 1.0, "c": 1.0, "d": 1.5, "e": 1 / 1.25, "h": 0.65, "q": 1.0, "r": 1.0, "s": 1.0}  # wall ratios (e: loop time / batch time ≥ 1.25)
# High-frame-rate scenarios: the peer's best command (`-skip_frame noref`) runs beside plain ffmpeg,
# and the floor and bound are measured.
HFR = ("a", "b", "h", "i")
# Scenarios that also run the best command: the high-frame-rate ones and (j) (a 240 fps source:
# its slowed part needs every picture, so `-skip_frame noref` is expected to show other frames).
WITH_BEST = HFR + ("j",)
# Source frames per output frame (120 or 240 fps → 30): reencode shows the nearest, 0, step, 2·step …
STEP = {"a": 4, "b": 4, "c": 2, "h": 8, "i": 8}
# (i)'s encoder: x265 10-bit, as bench/recipes/hfr-30-hevc10.yaml (reencode passes log-level=error too).
X265_10 = ["-c:v", "libx265", "-preset", "veryfast", "-crf", "24", "-g", "60", "-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error"]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def timed(cmd, cwd=None):
    """Runs cmd under GNU time: wall s, cpu s, peak RSS kB."""
    fmt = "BENCH %e %U %S %M"
    p = subprocess.run([TIME, "-f", fmt] + cmd, text=True, capture_output=True, cwd=cwd)
    if p.returncode != 0:
        raise RuntimeError(f"failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stderr[-2000:]}")
    line = [l for l in p.stderr.splitlines() if l.startswith("BENCH ")][-1].split()
    return {"wall": float(line[1]), "cpu": float(line[2]) + float(line[3]), "rss": int(line[4])}


def timed_shell(script):
    return timed(["bash", "-c", script])


# ---------------------------------------------------------------- inputs

def make(path, *args):
    if not path.exists():
        print(f"  making {path.name}", flush=True)
        sh([str(TOOL), "make-source", str(path)] + list(map(str, args)))
    return path


def inputs(quick, wanted):
    """The inputs the wanted scenarios read (made once, kept in bench/work)."""
    WORK.mkdir(parents=True, exist_ok=True)
    s = 4 if quick else 10
    i = {}
    if "j" in wanted:
        js = 3 if quick else 4
        i["j"] = make(WORK / f"j-720p240-{js}s.mp4", "--seconds", js, "--width", SLOMO_W, "--height", SLOMO_H, "--fps", SLOMO_FPS, "--texture",
                      "--audio-rate", SLOMO_RATE)
    if "k" in wanted:
        ks = 10 if quick else 20
        i["k"] = make(WORK / f"k-720p30-{ks}s.mp4", "--seconds", ks, "--width", MUSIC_W, "--height", MUSIC_H, "--fps", MUSIC_FPS, "--texture",
                      "--audio-rate", MUSIC_RATE)
        # The recipe finds it beside the clip ("{dir}/k-music-30s.m4a"); longer than either clip.
        i["kMusic"] = make(WORK / f"k-music-{MUSIC_SECONDS}s.m4a", "--seconds", MUSIC_SECONDS, "--music")
    if "l" in wanted:
        # Both 6 s whatever --quick says (the recipe's spans need them); the recipe finds the second
        # beside the first ("{dir}/l-second-6s.mp4").
        clip = ["--seconds", XFADE_SECONDS, "--width", XFADE_W, "--height", XFADE_H, "--fps", XFADE_FPS, "--texture", "--audio-rate", XFADE_RATE]
        i["l"] = make(WORK / f"l-first-{XFADE_SECONDS}s.mp4", *clip, "--tone", XFADE_TONES[0])
        i["lSecond"] = make(WORK / f"l-second-{XFADE_SECONDS}s.mp4", *clip, "--tone", XFADE_TONES[1])
    if "m" in wanted:
        # All 6 s whatever --quick says (the recipe's spans need them); the recipe finds the second and
        # third beside the first ("{dir}/m-second-6s.mp4").
        clip = ["--seconds", CONCAT_SECONDS, "--width", CONCAT_W, "--height", CONCAT_H, "--fps", CONCAT_FPS, "--texture", "--audio-rate", CONCAT_RATE]
        i["mClips"] = [make(WORK / f"m-{n}-{CONCAT_SECONDS}s.mp4", *clip, "--tone", f) for n, f in zip(CONCAT_NAMES, CONCAT_TONES)]
        i["m"] = i["mClips"][0]
    if "a" in wanted or "d" in wanted:
        i["a"] = make(WORK / f"a-1080p120-droppable-{s}s.mp4", "--seconds", s, "--width", 1920, "--height", 1080, "--fps", 120, "--droppable", "--texture")
    if "b" in wanted:
        i["b"] = make(WORK / f"b-1080p120-ippp-{s}s.mp4", "--seconds", s, "--width", 1920, "--height", 1080, "--fps", 120, "--structure", "ippp", "--texture")
    if "c" in wanted:
        i["c"] = make(WORK / f"c-2160p60-{s // 2}s.mp4", "--seconds", s // 2, "--width", 3840, "--height", 2160, "--fps", 60, "--texture")
    if "f" in wanted:
        i["f"] = make(WORK / "f-audio-60s.m4a", "--seconds", 60, "--audio-only")
    if "g" in wanted:
        # Memory against the media's length: a short and a long source of the same kind, low
        # resolution so that an hour converts in minutes (what grows per frame or packet shows
        # however small the pictures). `--quick`: 1 and 10 minutes.
        for key, minutes in (("gShort", 1 if quick else 2), ("gLong", 10 if quick else 60)):
            i[key] = long_source(WORK / f"g-320x180p60-{minutes}min.mp4", minutes * 60)
    if "h" in wanted or "i" in wanted:
        # HEVC with temporal sub-layers, as phones write: x265 bframes=7:b-adapt=0:b-pyramid=0:temporal-layers=1.
        i["h"] = i["i"] = make(WORK / f"h-1080p240-layers-{s}s.mp4", "--seconds", s, "--width", 1920, "--height", 1080, "--fps", 240,
                               "--structure", "layers", "--texture")
    if "n" in wanted:
        ns = 5 if quick else 20
        i["n"] = make(WORK / f"n-1080p60-{ns}s.mp4", "--seconds", ns, "--width", 1920, "--height", 1080, "--fps", 60, "--texture",
                      "--audio-rate", 48000)
    if "p" in wanted:
        ps = 12 if quick else 60
        i["p"] = make(WORK / f"p-1080p60-{ps}s.mp4", "--seconds", ps, "--width", 1920, "--height", 1080, "--fps", 60, "--texture",
                      "--audio-rate", 48000)
    if {"q", "r", "s"} & set(wanted):
        i["q"] = i["r"] = i["s"] = make(WORK / f"q-1080p30-{s}s.mp4", "--seconds", s, "--width", 1920, "--height", 1080, "--fps", 30, "--texture")
    if "o" in wanted or "t" in wanted:
        minutes = 1 if quick else 10
        i["o"] = i["t"] = stills_source(WORK / f"o-1080p30-gop2s-{minutes}min.mp4", minutes * 60)
    if "u" in wanted:
        seconds = 20 if quick else 300
        i["u"] = chunk_source(WORK / f"u-1080p30-{seconds}s.mp4", seconds)
    if "e" not in wanted:
        return i
    clips = WORK / "e-clips"
    clips.mkdir(exist_ok=True)
    for n in range(24):
        make(clips / f"clip{n:02d}.mp4", "--seconds", 2, "--width", 1280, "--height", 720, "--fps", 60, "--texture")
    old = time.time() - 3600
    for p in clips.iterdir():
        os.utime(p, (old, old))
    i["e"] = clips
    return i


def long_source(path, seconds):
    """(g)'s input: 320x180 at 60 fps (x264 veryfast, GOP 120), AAC 48 kHz stereo, made by the
    ffmpeg command line (lavfi testsrc2 and a tone): an hour takes a few minutes, where
    make-source's textured frames would take an hour."""
    if not path.exists():
        print(f"  making {path.name}", flush=True)
        sh(["ffmpeg", "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=60", "-f", "lavfi",
            "-i", "sine=frequency=440:sample_rate=48000", "-t", str(seconds)] + x264("veryfast", 23, 120)
           + ["-c:a", "aac", "-b:a", "64k", "-ac", "2", str(path)])
    return path


def stills_source(path, seconds):
    """(o)'s input: 1080p30 H.264 (x264 veryfast, a keyframe every 2 s), no sound, made by the ffmpeg
    command line (lavfi testsrc2): ten minutes in a few, where make-source's frames would take long."""
    if not path.exists():
        print(f"  making {path.name}", flush=True)
        sh(["ffmpeg", "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate={STILLS_FPS}", "-t", str(seconds)]
           + x264("veryfast", 23, STILLS_GOP) + ["-x264-params", "scenecut=0", "-pix_fmt", "yuv420p", str(path)])
    return path


def chunk_source(path, seconds):
    """(u)'s input: 1080p30 H.264 (x264 veryfast, a keyframe every 2 s) with AAC 48 kHz stereo, made by
    the ffmpeg command line (lavfi testsrc2 and a tone)."""
    if not path.exists():
        print(f"  making {path.name}", flush=True)
        sh(["ffmpeg", "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-f", "lavfi",
            "-i", "sine=frequency=440:sample_rate=48000", "-t", str(seconds)] + x264("veryfast", 23, 60)
           + ["-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-ac", "2", str(path)])
    return path


def stills_run(src, runs):
    """(o): exact stills by reencode and by an ffmpeg loop, and reencode's keyframe stills, alternating.
    The instants are frame starts (frame k at k/30 s), where both tools' "exact" is the same frame:
    ffmpeg's seek keeps the first frame at or after T, reencode shows the frame on display at T."""
    seconds = float(sh(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(src)]).stdout)
    frames = round(seconds * STILLS_FPS)
    ks = [frames * (2 * i + 1) // (2 * STILLS_COUNT) for i in range(STILLS_COUNT)]
    out = WORK / "out" / "o"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    at = ",".join(f"{k}/{STILLS_FPS}" for k in ks)
    images = [str(REENCODE), "images", str(src), "--at", at, "--overwrite"]
    exact = images + ["-o", str(out / "exact-{n}.jpg")]
    keyframe = images + ["--tolerance", "keyframe", "-o", str(out / "keyframe-{n}.jpg")]
    # -ss in whole microseconds at or below the frame's start, so that the frame itself is kept.
    loop = "; ".join(f"ffmpeg -v error -y -nostdin -ss {k * 1_000_000 // STILLS_FPS / 1e6:.6f} -i {shlex.quote(str(src))} "
                     f"-frames:v 1 -q:v 6 {shlex.quote(str(out / f'ffmpeg-{n + 1}.jpg'))}" for n, k in enumerate(ks))
    tools = [("reencode", lambda: timed(exact)), ("ffmpeg", lambda: timed_shell("set -e; " + loop)), ("keyframe", lambda: timed(keyframe))]
    samples = {name: [] for name, _ in tools}
    for r in range(runs):  # alternate, as run_pair does
        order = tools[r % len(tools):] + tools[:r % len(tools)] if r % 2 == 0 else list(reversed(tools))
        for name, run in order:
            samples[name].append(run())
    made = sorted(p.name for p in out.iterdir())
    r = summarize(samples)
    r["keyframeSpeedup"] = r["reencode"]["wall"] / r["keyframe"]["wall"]
    r["keyframeTarget"] = STILLS_KEYFRAME_TARGET
    r["target"] = 1.0
    # The same frame through the same JPEG settings: the files should be alike byte for byte.
    same = sum((out / f"exact-{n + 1:02d}.jpg").read_bytes() == (out / f"ffmpeg-{n + 1}.jpg").read_bytes() for n in range(len(ks)))
    r["stills"] = {"count": STILLS_COUNT, "frames": ks, "files": len(made), "identicalToFFmpeg": same}
    return r


def ladder_run(src, runs):
    """(n): the recipe's three renditions from one read; ffmpeg's one-command ladder; three ffmpeg
    commands, one per rendition. Alternating, as run_pair does; every output's frame count checked."""
    out = src.parent / "n-out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    reencode = [str(REENCODE), "run", str(RECIPES / "ladder.yaml"), "-i", str(src), "--overwrite", "--progress", "none", "--quiet"]
    enc = x264("veryfast", 23, 120) + AAC
    ff = ["ffmpeg", "-v", "error", "-y", "-nostdin", "-i", str(src)]
    scales = "".join(f"[v{k}]scale={w}:{h}[s{k}];" for k, (w, h) in enumerate(LADDER) if k)
    graph = f"[0:v]split={len(LADDER)}" + "".join(f"[v{k}]" for k in range(len(LADDER))) + ";" + scales.rstrip(";")
    ladder = ff + ["-filter_complex", graph]
    for k, (w, h) in enumerate(LADDER):
        ladder += ["-map", f"[s{k}]" if k else "[v0]", "-map", "0:a"] + enc + [str(out / f"ff-{h}p.mp4")]
    separate = "; ".join(" ".join(map(shlex.quote, ff + (["-vf", f"scale={w}:{h}"] if k else []) + enc + [str(out / f"sep-{h}p.mp4")]))
                         for k, (w, h) in enumerate(LADDER))
    tools = [("reencode", lambda: timed(reencode)), ("ffmpeg", lambda: timed(ladder)), ("separate", lambda: timed_shell("set -e; " + separate))]
    samples = {name: [] for name, _ in tools}
    for r in range(runs):
        order = tools[r % len(tools):] + tools[:r % len(tools)] if r % 2 == 0 else list(reversed(tools))
        for name, run in order:
            samples[name].append(run())
    r = summarize(samples)
    r["separateRatio"] = {k: r["reencode"][k] / r["separate"][k] for k in ("wall", "cpu", "rss")}
    r["targets"] = {"wall": 1.0, "cpu": 1.0, "cpuOfSeparate": LADDER_CPU_OF_SEPARATE, "rss": LADDER_RSS_TARGET}
    r["outputs"] = {f"{h}p": {"reencode": probe(out / f"re-{h}p.mp4"), "ffmpeg": probe(out / f"ff-{h}p.mp4")} for _, h in LADDER}
    return r


def hls_ladder_cmds(src):
    """(p)'s two commands and their package folders: reencode's recipe and ffmpeg's one-command HLS ladder."""
    out = src.parent / "p-out"
    re_dir, ff_dir = out / "re", out / "ff"
    reencode = [str(REENCODE), "run", str(RECIPES / "hls-ladder.yaml"), "-i", str(src), "--progress", "none", "--quiet"]
    graph = f"[0:v]split={len(HLS_RUNGS)}" + "".join(f"[v{k}]" for k in range(len(HLS_RUNGS))) + ";" \
        + ";".join(f"[v{k}]scale={w}:{h}[s{k}]" for k, (w, h, _) in enumerate(HLS_RUNGS) if k)
    ff = ["ffmpeg", "-v", "error", "-y", "-nostdin", "-i", str(src), "-filter_complex", graph]
    for k in range(len(HLS_RUNGS)):
        ff += ["-map", f"[s{k}]" if k else "[v0]"]
    ff += ["-map", "0:a", "-c:v", "libx264", "-preset", "veryfast", "-g", "120", "-pix_fmt", "yuv420p",
           "-force_key_frames", f"expr:gte(t,n_forced*{HLS_SEGMENT})"]
    for k, (_, _, kbps) in enumerate(HLS_RUNGS):
        ff += [f"-b:v:{k}", f"{kbps}k"]
    ff += AAC + ["-f", "hls", "-hls_time", str(HLS_SEGMENT), "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                 "-hls_flags", "independent_segments", "-hls_fmp4_init_filename", "init.mp4",
                 "-hls_segment_filename", str(ff_dir / "v%v" / "seg-%d.m4s"), "-master_pl_name", "master.m3u8",
                 "-var_stream_map", " ".join(f"v:{k},agroup:audio" for k in range(len(HLS_RUNGS))) + " a:0,agroup:audio",
                 str(ff_dir / "v%v" / "playlist.m3u8")]
    return reencode, ff, re_dir, ff_dir


def segments(folder):
    """Per rendition folder, how many media segments its playlist lists."""
    return {d.name: sum(1 for l in (d / "playlist.m3u8").read_text().splitlines() if l.startswith("#EXTINF:"))
            for d in sorted(folder.iterdir()) if (d / "playlist.m3u8").exists()}


def hls_ladder_run(src, runs):
    """(p): reencode's HLS ladder and ffmpeg's, alternating (each run starts from no package); the
    segments each wrote per rendition, and ffmpeg's HLS demuxer reading both masters to the end."""
    reencode, ff, re_dir, ff_dir = hls_ladder_cmds(src)
    def fresh(run):
        shutil.rmtree(src.parent / "p-out", ignore_errors=True)
        (src.parent / "p-out").mkdir()
        return run()
    tools = [("reencode", lambda: fresh(lambda: timed(reencode))), ("ffmpeg", lambda: fresh(lambda: timed(ff)))]
    samples = {name: [] for name, _ in tools}
    for r in range(runs):
        for name, run in (tools if r % 2 == 0 else list(reversed(tools))):
            samples[name].append(run())
    # The last run left one package: make the other's again to compare them.
    if not (re_dir / "master.m3u8").exists():
        timed(reencode)
    if not (ff_dir / "master.m3u8").exists():
        timed(ff)
    r = summarize(samples)
    r["targets"] = {"wall": 1.0, "cpu": 1.0}
    seg = {"reencode": segments(re_dir), "ffmpeg": segments(ff_dir)}
    reads = {}
    for tool, d in (("reencode", re_dir), ("ffmpeg", ff_dir)):
        p = subprocess.run(["ffmpeg", "-v", "error", "-i", str(d / "master.m3u8"), "-map", "0", "-f", "null", "-"], text=True, capture_output=True)
        reads[tool] = p.returncode == 0 and not p.stderr.strip()
    r["segments"] = seg
    # The video renditions' (ffmpeg's sound-only variant, v4, cuts its own segments: AAC frames are not on the 6 s grid).
    video = {"reencode": [n for k, n in seg["reencode"].items() if k != "audio"],
             "ffmpeg": [n for k, n in seg["ffmpeg"].items() if k != f"v{len(HLS_RUNGS)}"]}
    r["sameSegmentCount"] = sorted(video["reencode"]) == sorted(video["ffmpeg"])
    r["readWhole"] = reads
    return r


def hls_ladder_report(r, meta, runs, quick):
    t = r["targets"]
    return [f"# HLS ladder from one read — {meta['date']}", "",
            f"{meta['cores']} cores, {meta['cpu']}; {meta['versions']['ffmpeg']}; median of {runs} alternating runs"
            f"{' (quick: a 12 s source)' if quick else ''}.", "",
            "| scenario | reencode wall / CPU / RSS | ffmpeg HLS ladder | ratio wall / CPU / RSS | targets |",
            "|---|---|---|---|---|",
            f"| (p) {r['title']} | {r['reencode']['wall']:.2f} s / {r['reencode']['cpu']:.2f} s / {r['reencode']['rss'] / 1024:.0f} MB "
            f"| {r['ffmpeg']['wall']:.2f} s / {r['ffmpeg']['cpu']:.2f} s / {r['ffmpeg']['rss'] / 1024:.0f} MB "
            f"| {r['ratio']['wall']:.2f} / {r['ratio']['cpu']:.2f} / {r['ratio']['rss']:.2f} | ≤ {t['wall']} / ≤ {t['cpu']} |", "",
            f"Segments per rendition: reencode {r['segments']['reencode']}, ffmpeg {r['segments']['ffmpeg']} "
            f"(the same counts for every video rendition: {'yes' if r['sameSegmentCount'] else 'no'}); ffmpeg's HLS demuxer reads each master to the end "
            f"without an error: reencode {'yes' if r['readWhole']['reencode'] else 'no'}, ffmpeg {'yes' if r['readWhole']['ffmpeg'] else 'no'}.", ""]


def ladder_report(r, meta, runs, quick):
    t = r["targets"]
    same = all(o["reencode"]["frames"] == o["ffmpeg"]["frames"] for o in r["outputs"].values())
    counts = ", ".join(f"{k} {o['reencode']['frames']}/{o['ffmpeg']['frames']}" for k, o in r["outputs"].items())
    return [f"# Renditions from one read — {meta['date']}", "",
            f"{meta['cores']} cores, {meta['cpu']}; {meta['versions']['ffmpeg']}; median of {runs} alternating runs"
            f"{' (quick: a 5 s source)' if quick else ''}.", "",
            "| scenario | reencode wall / CPU / RSS | ffmpeg ladder | ratio wall / CPU / RSS | targets | 3 ffmpeg commands | CPU ratio | target |",
            "|---|---|---|---|---|---|---|---|",
            f"| (n) {r['title']} | {r['reencode']['wall']:.2f} s / {r['reencode']['cpu']:.2f} s / {r['reencode']['rss'] / 1024:.0f} MB "
            f"| {r['ffmpeg']['wall']:.2f} s / {r['ffmpeg']['cpu']:.2f} s / {r['ffmpeg']['rss'] / 1024:.0f} MB "
            f"| {r['ratio']['wall']:.2f} / {r['ratio']['cpu']:.2f} / {r['ratio']['rss']:.2f} | ≤ {t['wall']} / ≤ {t['cpu']} / ≤ {t['rss']} "
            f"| {r['separate']['wall']:.2f} s / {r['separate']['cpu']:.2f} s | {r['separateRatio']['cpu']:.2f} | ≤ {t['cpuOfSeparate']} |", "",
            f"Frame counts of every rendition the same as ffmpeg's: {'yes' if same else 'no'} "
            f"({counts}).", ""]


def stills_report(results, meta, runs, quick):
    r = results["o"]
    lines = [f"# Still images — {meta['date']}", "",
             f"{meta['cores']} cores, {meta['cpu']}; {meta['versions']['ffmpeg']}; median of {runs} alternating runs"
             f"{' (quick: a 1-minute source)' if quick else ''}.", "",
             "| scenario | reencode exact | ffmpeg loop | wall ratio | target | reencode keyframe | exact / keyframe | target |",
             "|---|---|---|---|---|---|---|---|",
             f"| (o) {r['title']} | {r['reencode']['wall']:.2f} s | {r['ffmpeg']['wall']:.2f} s | {r['ratio']['wall']:.2f} | ≤ {r['target']} "
             f"| {r['keyframe']['wall']:.2f} s | {r['keyframeSpeedup']:.1f} | ≥ {r['keyframeTarget']} |", "",
             f"Exact stills byte for byte the same as ffmpeg's (the same frame, the same JPEG settings): "
             f"{r['stills']['identicalToFFmpeg']} of {r['stills']['count']}.", ""]
    return lines


# ---------------------------------------------------------------- scenarios
# Each: (reencode command, ffmpeg command, output paths) for one run; same encoder settings.

def x264(preset, crf, gop):
    return ["-c:v", "libx264", "-preset", preset, "-crf", str(crf), "-g", str(gop)]


def scenario_cmds(key, src, out):
    ff = ["ffmpeg", "-v", "error", "-y", "-nostdin"]
    if key in ("a", "b", "h"):
        return ([str(REENCODE), "run", str(RECIPES / "hfr-30.yaml"), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-i", str(src), "-vf", "fps=30"] + x264("veryfast", 21, 60) + AAC + [str(out["ff"])])
    if key == "i":
        return ([str(REENCODE), "run", str(RECIPES / "hfr-30-hevc10.yaml"), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-i", str(src), "-vf", "fps=30"] + X265_10 + AAC + [str(out["ff"])])
    if key == "c":
        return ([str(REENCODE), "run", str(RECIPES / "4k-to-1080p30.yaml"), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-i", str(src), "-vf", "fps=30,scale=1920:1080"] + x264("veryfast", 21, 60) + AAC + [str(out["ff"])])
    if key == "d":
        return ([str(REENCODE), "run", str(RECIPES / "remux-trim.yaml"), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-ss", "1", "-t", "2", "-i", str(src), "-c", "copy", str(out["ff"])])
    if key == "f":
        return ([str(REENCODE), "run", str(RECIPES / "audio-48k.yaml"), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-i", str(src)] + AAC + ["-ar", "48000", str(out["ff"])])
    if key == "j":
        return ([str(REENCODE), "run", str(RECIPES / "slomo-240-30.yaml"), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-i", str(src), "-filter_complex", slomo_filtergraph(), "-map", "[v]", "-map", "[a]"]
                + x264("veryfast", 21, 60) + AAC + [str(out["ff"])])
    if key == "k":
        return ([str(REENCODE), "run", str(RECIPES / "music-bed.yaml"), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-i", str(src), "-i", str(src.parent / f"k-music-{MUSIC_SECONDS}s.m4a"),
                      "-filter_complex", music_filtergraph(clip_seconds(src)), "-map", "0:v", "-map", "[a]"]
                + x264("veryfast", 21, 60) + AAC + [str(out["ff"])])
    if key == "l":
        return ([str(REENCODE), "run", str(RECIPES / "crossfade.yaml"), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-i", str(src), "-i", str(src.parent / f"l-second-{XFADE_SECONDS}s.mp4"),
                      "-filter_complex", crossfade_filtergraph(), "-map", "[v]", "-map", "[a]"]
                + x264("veryfast", 21, 60) + AAC + [str(out["ff"])])
    if key == "m":
        # The filtergraph's spans are CONCAT_SPANS: the recipe must say the same.
        said = [(Fraction(a), Fraction(b)) for a, b in re.findall(r"start: ([\d.]+)s, end: ([\d.]+)s", (RECIPES / "concat.yaml").read_text())]
        assert said == list(CONCAT_SPANS), f"bench/recipes/concat.yaml's spans {said} are not CONCAT_SPANS: update one of them"
        ins = [x for n in CONCAT_NAMES[1:] for x in ("-i", str(src.parent / f"m-{n}-{CONCAT_SECONDS}s.mp4"))]
        return ([str(REENCODE), "run", str(RECIPES / "concat.yaml"), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-i", str(src)] + ins + ["-filter_complex", concat_filtergraph(), "-map", "[v]", "-map", "[a]"]
                + x264("veryfast", 21, 60) + AAC + [str(out["ff"])])
    if key in CODEC_ROWS:
        recipe, encoder, sound = {"q": ("av1-1080p.yaml", SVT_AV1, AAC), "r": ("vp9-1080p.yaml", LIBVPX_VP9, AAC),
                                  "s": ("prores-hq.yaml", PRORES_HQ, ["-c:a", "pcm_s16le"])}[key]
        return ([str(REENCODE), "run", str(RECIPES / recipe), "-i", str(src), "-o", str(out["re"]), "--overwrite", "--quiet"],
                ff + ["-i", str(src)] + encoder + sound + [str(out["ff"])])
    raise KeyError(key)


def memory_over_length(src, runs):
    """(g): the same conversion (bench/recipes/hfr-30.yaml against its ffmpeg command, which also
    writes the index first, as reencode does by default) of a short and a long source, the two
    tools alternating: peak RSS of each, and its growth per hour of media. Both keep the MP4
    muxer's sample table and the source's index (tens of bytes a sample): the growth ratio is
    what reencode keeps beyond that."""
    peak, wall, cpu = {"reencode": [], "ffmpeg": []}, {}, {}
    seconds = {}
    for n in ("gShort", "gLong"):
        seconds[n] = float(probe(src[n])["duration"])
        out = {"re": WORK / "out" / f"{n}.mp4", "ff": WORK / "out" / f"{n}-ffmpeg.mp4"}
        re_cmd, ff_cmd = scenario_cmds("a", src[n], out)
        ff_cmd = ff_cmd[:-1] + ["-movflags", "+faststart", ff_cmd[-1]]
        xs = {"reencode": [], "ffmpeg": []}
        for _ in range(runs):
            xs["reencode"].append(timed(re_cmd))
            xs["ffmpeg"].append(timed(ff_cmd))
        for tool in xs:
            peak[tool].append(int(statistics.median(x["rss"] for x in xs[tool])))
            if n == "gLong":
                wall[tool] = statistics.median(x["wall"] for x in xs[tool])
                cpu[tool] = statistics.median(x["cpu"] for x in xs[tool])
    hours = (seconds["gLong"] - seconds["gShort"]) / 3600
    growth = {tool: (peak[tool][1] - peak[tool][0]) / hours for tool in peak}
    growth["ratio"] = growth["reencode"] / growth["ffmpeg"] if growth["ffmpeg"] > 0 else None
    return {"peak": peak, "growth": growth, "seconds": [seconds["gShort"], seconds["gLong"]],
            "reencode": {"wall": wall["reencode"], "cpu": cpu["reencode"], "rss": peak["reencode"][1]},
            "ffmpeg": {"wall": wall["ffmpeg"], "cpu": cpu["ffmpeg"], "rss": peak["ffmpeg"][1]},
            "ratio": {"wall": wall["reencode"] / wall["ffmpeg"], "cpu": cpu["reencode"] / cpu["ffmpeg"],
                      "rss": peak["reencode"][1] / peak["ffmpeg"][1]}}


def best_cmd(ff_cmd, output):
    """The peer's best command for high-frame-rate footage: the decoder skips every non-reference
    picture (`-skip_frame noref`, an input option: before `-i`), otherwise the same command. Right
    exactly when every picture the output shows is a reference one — the harness checks."""
    i = ff_cmd.index("-i")
    return ff_cmd[:i] + ["-skip_frame", "noref"] + ff_cmd[i:-1] + [str(output)]


def clip_seconds(src):
    """(k)'s clip length: whole frames at MUSIC_FPS (make-source writes whole seconds)."""
    return Fraction(round(probe(src)["duration"] * MUSIC_FPS), MUSIC_FPS)


def db(x):
    return 10 ** (x / 20)


def music_filtergraph(seconds):
    """(k) as one ffmpeg filtergraph. The music: brought to the clip's 48 kHz (amix would otherwise
    negotiate one rate for both), lowered by the ramp — `volume` with `eval=frame` holds one value per
    audio frame (1,024 samples here), where reencode moves the level sample by sample — faded in and
    out (afade's default curve, `tri`, is linear in amplitude, as the recipe's fades), cut where the
    clip ends (atrim), then summed with the clip's sound by amix: weights -6 dB and 1, normalize=0
    (FFmpeg 5.1 has the option; without it amix divides by the sum of the weights). The music is
    amix's first input: with the clip first, the clip's last 0.6 s of sound went missing on this
    machine (FFmpeg 5.1.9; `duration=first` ended the output there, `longest` let the music play on
    alone) — with `-map 0:v` beside the graph the command line reads the clip well ahead of the
    music, and amix does not mix out what its first input still holds when that input ends."""
    start, end, a, b = MUSIC_DUCK
    rel = db(b - a) ** 2  # the ramp relative to the -6 dB weight: power from 1 to this, equal-power
    duck = f"if(lt(t,{start}),1,if(lt(t,{end}),sqrt(1+({rel:.6f}-1)*(t-{start})/{end - start}),{db(b - a):.6f}))"
    return ";".join([
        f"[1:a]aresample={MUSIC_RATE},volume='{duck}':eval=frame,afade=t=in:d={MUSIC_FADE_IN},"
        f"afade=t=out:st={float(seconds) - MUSIC_FADE_OUT:g}:d={MUSIC_FADE_OUT},atrim=end={float(seconds):g}[m]",
        f"[m][0:a]amix=inputs=2:duration=longest:weights='{db(a):.6f} 1':normalize=0[a]",
    ])


def slomo_filtergraph():
    """(j) as one ffmpeg filtergraph: 0–1 s, 1–2 s at 1/8 speed, 2 s–end; each video part at 30 fps
    (the slowed one is already: 240 fps × 8 longer), the slowed sound by atempo (0.5–2 per instance:
    three halvings for 1/8), then concat."""
    slow = ",".join(["atempo=0.5"] * 3)
    return ";".join([
        "[0:v]split=3[v0][v1][v2]",
        f"[v0]trim=end=1,setpts=PTS-STARTPTS,fps={SLOMO_OUT_FPS}[p0]",
        f"[v1]trim=start=1:end=2,setpts={SLOMO_FACTOR}*(PTS-STARTPTS),fps={SLOMO_OUT_FPS}[p1]",
        f"[v2]trim=start=2,setpts=PTS-STARTPTS,fps={SLOMO_OUT_FPS}[p2]",
        "[0:a]asplit=3[a0][a1][a2]",
        "[a0]atrim=end=1,asetpts=PTS-STARTPTS[s0]",
        f"[a1]atrim=start=1:end=2,asetpts=PTS-STARTPTS,{slow}[s1]",
        "[a2]atrim=start=2,asetpts=PTS-STARTPTS[s2]",
        "[p0][s0][p1][s1][p2][s2]concat=n=3:v=1:a=1[v][a]",
    ])


def crossfade_filtergraph():
    """(l) as one ffmpeg filtergraph: each clip trimmed to what the recipe plays plus half the fade
    (the first 0–5.5 s, the second 0.5–6 s), timestamps from 0, then xfade (`fade`: at offset + k/30
    the second clip's weight is k/30, the recipe's x) and acrossfade with quarter-sine curves on both
    sides (equal power: the recipe's √ of each share). xfade has no 4:2:0 formats in FFmpeg 5.1: the
    graph converts both clips to 4:4:4 for it (swscale, every picture), and without `format=yuv420p`
    after it x264 would encode 4:4:4 (High 4:4:4 Predictive), another output than reencode's."""
    half = Fraction(XFADE_LENGTH, 2)
    a_end, b_start = XFADE_CUT + half, XFADE_SKIP - half
    b_end = XFADE_SECONDS
    offset = XFADE_CUT - half
    return ";".join([
        f"[0:v]trim=start=0:end={float(a_end):g},setpts=PTS-STARTPTS[va]",
        f"[1:v]trim=start={float(b_start):g}:end={b_end},setpts=PTS-STARTPTS[vb]",
        f"[va][vb]xfade=transition=fade:duration={XFADE_LENGTH}:offset={float(offset):g},format=yuv420p[v]",
        f"[0:a]atrim=start=0:end={float(a_end):g},asetpts=PTS-STARTPTS[aa]",
        f"[1:a]atrim=start={float(b_start):g}:end={b_end},asetpts=PTS-STARTPTS[ab]",
        f"[aa][ab]acrossfade=d={XFADE_LENGTH}:c1=qsin:c2=qsin[a]",
    ])


def concat_filtergraph():
    """(m) as one ffmpeg filtergraph: each clip's span by trim/setpts and atrim/asetpts (timestamps
    from 0), then concat, which plays the segments one after the other (video and audio in pairs)."""
    parts = []
    for n, (start, end) in enumerate(CONCAT_SPANS):
        parts.append(f"[{n}:v]trim=start={float(start):g}:end={float(end):g},setpts=PTS-STARTPTS[v{n}]")
        parts.append(f"[{n}:a]atrim=start={float(start):g}:end={float(end):g},asetpts=PTS-STARTPTS[a{n}]")
    pairs = "".join(f"[v{n}][a{n}]" for n in range(len(CONCAT_SPANS)))
    return ";".join(parts + [f"{pairs}concat=n={len(CONCAT_SPANS)}:v=1:a=1[v][a]"])


def crossfade_lossless(src):
    """(l)'s mix checked without the encoder's loss: the same recipe and filtergraph once more, untimed,
    with x264 lossless (CRF 0; reencode sets the High profile, which has no lossless, so the recipe
    asks for High 4:4:4 Predictive). A lossy encode of a dissolve lags it by a frame or two at this
    CRF (a P frame's residual carries the change from the frame before only coarsely), the same for
    both tools, which would hide the mixer's own error."""
    out_dir = WORK / "out"
    recipe = (RECIPES / "crossfade.yaml").read_text()
    lossy = "settings: { codec: h264, quality: 21, gop: 60, codec-options: { preset: veryfast } }"
    assert lossy in recipe, "bench/recipes/crossfade.yaml's video settings changed: update crossfade_lossless"
    lossless_recipe = WORK / "l-crossfade-lossless.yaml"
    lossless_recipe.write_text(recipe.replace(lossy, 'settings: { codec: h264, gop: 60, codec-options: { preset: veryfast, crf: "0", profile: high444 } }'))
    paths = {"reencode": out_dir / "l-reencode-lossless.mp4", "ffmpeg": out_dir / "l-ffmpeg-lossless.mp4"}
    re_cmd, ff_cmd = scenario_cmds("l", src, {"re": paths["reencode"], "ff": paths["ffmpeg"]})
    re_cmd[re_cmd.index(str(RECIPES / "crossfade.yaml"))] = str(lossless_recipe)
    i = ff_cmd.index("-crf")
    ff_cmd[i + 1] = "0"
    sh(re_cmd)
    sh(ff_cmd)
    return paths


def run_pair(key, src, runs, bound=None):
    """Runs the scenario's tools `runs` times each, alternating. With `bound` (a function of the output
    path giving the floor's and the bound's commands and a cleanup, for the high-frame-rate scenarios),
    one untimed reencode run first makes the output they start from, and the floor and the bound then
    run in the same rotation as the tools: each round's figures met the same state of the machine,
    so reencode's time over the bound can be paired per round, as against the other commands."""
    out_dir = WORK / "out"
    out_dir.mkdir(exist_ok=True)
    ext = {"f": ".m4a", "s": ".mov"}.get(key, ".mp4")
    out = {"re": out_dir / f"{key}-reencode{ext}", "ff": out_dir / f"{key}-ffmpeg{ext}"}
    re_cmd, ff_cmd = scenario_cmds(key, src, out)
    tools = [("reencode", lambda: timed(re_cmd)), ("ffmpeg", lambda: timed(ff_cmd))]
    if key in WITH_BEST:
        out["best"] = out_dir / f"{key}-ffmpeg-best{ext}"
        b_cmd = best_cmd(ff_cmd, out["best"])
        tools.append(("best", lambda: timed(b_cmd)))
    cleanup = None
    if bound:
        timed(re_cmd)  # untimed warm-up: the output the floor's raw pictures come from
        floor_cmd, both, cleanup = bound(out["re"])
        tools += [("floor", lambda: timed(floor_cmd)), ("bound", lambda: timed_shell(both))]
    samples = {name: [] for name, _ in tools}
    try:
        for r in range(runs):  # alternate (rotate), so drift on a shared machine hits every tool
            order = tools[r % len(tools):] + tools[:r % len(tools)] if r % 2 == 0 else list(reversed(tools))
            for name, run in order:
                samples[name].append(run())
    finally:
        if cleanup:
            cleanup()
    return samples, out


def run_batch(clips, runs, jobs):
    """(e): reencode batch --jobs N over 24 clips vs a sequential ffmpeg loop."""
    samples = {"reencode": [], "ffmpeg": []}
    recipe = RECIPES / "clip-720p.yaml"
    for r in range(runs):
        re_out = WORK / "out" / "e-reencode"
        ff_out = WORK / "out" / "e-ffmpeg"
        for d in (re_out, ff_out):
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
        re_cmd = [str(REENCODE), "batch", str(recipe), "--input-dir", str(clips), "--output-dir", str(re_out), "--jobs", str(jobs), "--settle", "0"]
        loop = (f'for f in "{clips}"/*.mp4; do ffmpeg -v error -nostdin -y -i "$f" '
                f'-c:v libx264 -preset veryfast -crf 23 -g 120 {AAC_ARGS} "{ff_out}/$(basename "$f")" || exit 1; done')
        order = [("reencode", lambda: timed(re_cmd)), ("ffmpeg", lambda: timed_shell(loop))]
        if r % 2:
            order.reverse()
        for name, f in order:
            samples[name].append(f())
    return samples


# ---------------------------------------------------------------- output checks

def probe(path):
    p = sh(["ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=codec_type,nb_read_frames,duration:format=duration",
            "-of", "json", str(path)])
    j = json.loads(p.stdout)
    v = [s for s in j["streams"] if s["codec_type"] == "video"]
    return {"frames": int(v[0]["nb_read_frames"]) if v else None, "duration": float(j["format"]["duration"])}


def gray_frames(path, w, h, frames=None):
    """The luma of each of the file's frames (its first `frames` only, when given: the decoder then stops there)."""
    limit = ["-frames:v", str(frames)] if frames is not None else []
    p = subprocess.Popen(["ffmpeg", "-v", "error", "-nostdin", "-i", str(path)] + limit + ["-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{w}x{h}", "-"],
                         stdout=subprocess.PIPE)
    size = w * h
    while True:
        b = p.stdout.read(size)
        if len(b) < size:
            break
        yield b
    p.wait()


def stamp(np, frame, w, h):
    band = max(2, (h // 8) & ~1)
    img = frame.reshape(h, w)
    v = 0
    for bit in range(16):
        x0, x1 = bit * w // 16, (bit + 1) * w // 16
        xa, xb = x0 + (x1 - x0) // 4, x1 - (x1 - x0) // 4
        m = img[band // 4: band - band // 4, xa:xb].mean()
        v = (v << 1) | (1 if m > 128 else 0)
    return v


def quality(src, output, w, h):
    """Which source frame each output frame shows, and luma PSNR against that frame (numpy)."""
    try:
        import numpy as np
    except ImportError:
        return None
    outs = [np.frombuffer(f, np.uint8) for f in gray_frames(output, w, h)]
    shown = [stamp(np, f, w, h) for f in outs]
    wanted = {s: None for s in shown}
    for i, f in enumerate(gray_frames(src, w, h)):
        if i in wanted:
            wanted[i] = np.frombuffer(f, np.uint8)
    psnrs = []
    band = max(2, (h // 8) & ~1) * w  # the stamp band is left out: it is the same in both
    for s, f in zip(shown, outs):
        ref = wanted.get(s)
        if ref is None:
            continue
        mse = float(((f[band:].astype(np.int32) - ref[band:].astype(np.int32)) ** 2).mean())
        psnrs.append(99.0 if mse == 0 else 10 * __import__("math").log10(255 * 255 / mse))
    return {"shown": shown, "psnr": statistics.mean(psnrs) if psnrs else None}


def audio_samples(path):
    """The first audio stream's length in samples as the container states it (edit list applied:
    encoder priming and the last packet's padding left out), which decoding with the ffmpeg command
    line does not give (it keeps the last packet whole)."""
    p = sh(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,time_base,duration_ts",
            "-of", "json", str(path)])
    st = json.loads(p.stdout)["streams"][0]
    return int(Fraction(int(st["duration_ts"])) * Fraction(st["time_base"]) * int(st["sample_rate"]))


def sound_marks(path, rate, length):
    """In the sound's first `length` samples (its stated length: decoding keeps the last packet
    whole): stretches of silence (10 ms windows under -40 dBFS) as (start s, length s) — the
    source's sound is a tone throughout, so any silence is sound missing — and where each click
    starts (the source clicks for 10 ms at every whole second), in s (numpy)."""
    try:
        import numpy as np
    except ImportError:
        return None
    raw = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-i", str(path), "-vn", "-f", "f32le", "-ac", "1", "-ar", str(rate), "-"],
                         capture_output=True, check=True).stdout
    a = np.frombuffer(raw, np.float32)[:length]
    loud = np.flatnonzero(np.abs(a) > 0.5)  # the tone peaks at 0.28 in the mono mix, a click at 0.85
    clicks = [int(x) for k, x in enumerate(loud) if k == 0 or x - loud[k - 1] > rate // 5]
    win = rate // 100
    n = -(-len(a) // win)  # the last window may be short
    a = np.concatenate([a, np.full(n * win - len(a), np.nan, np.float32)])
    quiet = np.sqrt(np.nanmean(a.reshape(n, win).astype(np.float64) ** 2, axis=1)) < 0.01
    runs, start = [], None
    for i, q in enumerate(list(quiet) + [False]):
        if q and start is None:
            start = i
        elif not q and start is not None:
            runs.append((start * win / rate, (i - start) * win / rate))
            start = None
    return {"silences": runs, "clicks": [x / rate for x in clicks]}


def slomo_check(src, paths, source_seconds):
    """(j): frames, durations and sound against the timeline (1 s + 8 × 1 s + the rest), and which
    source frame each output frame shows. reencode must show every source frame of 1–2 s once, in
    order, and the nearest source frame elsewhere (0, 8, 16 …); ffmpeg's choice is reported beside it."""
    fast = SLOMO_FPS // SLOMO_OUT_FPS  # source frames per output frame at normal speed
    timeline = Fraction(1) + SLOMO_FACTOR * Fraction(1) + Fraction(source_seconds) - 2
    head, slow_frames = SLOMO_OUT_FPS, SLOMO_FPS  # output frames before the slowed part, and in it
    tail = int((Fraction(source_seconds) - 2) * SLOMO_OUT_FPS)
    expected = [fast * k for k in range(head)] + list(range(SLOMO_FPS, 2 * SLOMO_FPS)) + [2 * SLOMO_FPS + fast * k for k in range(tail)]
    # The source's clicks (at 0, 1, 2 … s) on the timeline: 1 s plays at 1 s, the later ones 7 s later.
    clicks = [0.0, 1.0] + [float(t + SLOMO_FACTOR - 1) for t in range(2, int(source_seconds))]
    r = {"timeline": {"seconds": float(timeline), "frames": int(timeline * SLOMO_OUT_FPS), "audioSamples": int(timeline * SLOMO_RATE),
                      "clicks": clicks}}
    outputs = {}
    for tool in ("reencode", "ffmpeg"):
        o = probe(paths[tool])
        o["audioSamples"] = audio_samples(paths[tool])
        o.update(sound_marks(paths[tool], SLOMO_RATE, o["audioSamples"]) or {})
        outputs[tool] = o
    r["outputs"] = outputs
    q = {tool: quality(src, paths[tool], SLOMO_W, SLOMO_H) for tool in ("reencode", "ffmpeg")}
    if q["reencode"] and q["ffmpeg"]:
        sel = {}
        for tool in ("reencode", "ffmpeg"):
            shown = q[tool]["shown"]
            slowed = shown[head:head + slow_frames]
            sel[tool] = {"head": shown[:4], "slowedFirst": slowed[:4], "slowedLast": slowed[-4:], "tail": shown[head + slow_frames:][:4],
                         "slowedEveryFrameOnce": slowed == list(range(SLOMO_FPS, 2 * SLOMO_FPS)),
                         "asExpected": shown == expected}
        re_s, ff_s = q["reencode"]["shown"], q["ffmpeg"]["shown"]
        diffs = [(i, a, b) for i, (a, b) in enumerate(zip(re_s, ff_s)) if a != b]
        sel["differ"] = {"count": len(diffs) + abs(len(re_s) - len(ff_s)),
                         "inSlowed": sum(1 for i, _, _ in diffs if head <= i < head + slow_frames),
                         "offsets": sorted({b - a for _, a, b in diffs})}
        r["selection"] = sel
        r["psnr"] = {"reencode": q["reencode"]["psnr"], "ffmpeg": q["ffmpeg"]["psnr"]}
    return r


MUSIC_TIMES = (0.25, 0.75, 1.25, 1.75, 5.5, 10.5)  # where levels are measured (and 1.25, 0.75, 0.5 s before the end)
MUSIC_WINDOW = 9600  # 200 ms at 48 kHz, Hann: 5 Hz bins, so the chord's 261.6 Hz note is 8 bins from 220 Hz


def music_gain(t, seconds):
    """The music's level in the recipe at timeline time t (s): the ramp (equal-power), times the fades
    (linear in amplitude)."""
    start, end, a, b = MUSIC_DUCK
    if t < start:
        g = db(a)
    elif t < end:
        x = (t - start) / (end - start)
        g = (db(a) ** 2 + (db(b) ** 2 - db(a) ** 2) * x) ** 0.5
    else:
        g = db(b)
    g *= min(1.0, max(0.0, t / MUSIC_FADE_IN))
    return g * min(1.0, max(0.0, (seconds - t) / MUSIC_FADE_OUT))


def tone_levels(np, samples, rate, times, freq):
    """Amplitude of the `freq` Hz component in a Hann window of MUSIC_WINDOW samples centred on each
    time (a sine of amplitude A gives A; a level moving inside the window gives its window-weighted mean)."""
    w = np.hanning(MUSIC_WINDOW)
    k = np.exp(-2j * np.pi * freq * np.arange(MUSIC_WINDOW) / rate)
    out = []
    for t in times:
        i = int(round(t * rate)) - MUSIC_WINDOW // 2
        seg = samples[i:i + MUSIC_WINDOW]
        out.append(float(2 * abs(np.dot(seg * w[:len(seg)], k[:len(seg)])) / w.sum()) if len(seg) == MUSIC_WINDOW else None)
    return out


def music_check(src, paths, seconds):
    """(k): lengths against the clip's, which source frame each output frame shows (every one, once,
    in order, in both), and the sound: the music's level on its 220 Hz note at a few times against
    the recipe's (its 0.25/3 amplitude × the 2 s swell × ramp and fades), and the clip's 440 Hz tone
    (volume 1, so 0.2 throughout: nothing divides the sum), measured in both outputs' left channel."""
    frames = int(seconds * MUSIC_FPS)
    r = {"timeline": {"seconds": float(seconds), "frames": frames, "audioSamples": int(seconds * MUSIC_RATE)}}
    outputs = {tool: probe(paths[tool]) | {"audioSamples": audio_samples(paths[tool])} for tool in ("reencode", "ffmpeg")}
    r["outputs"] = outputs
    try:
        import numpy as np
    except ImportError:
        return r
    T = float(seconds)
    times = [t for t in MUSIC_TIMES if t < T - 1.25] + [T - 1.25, T - 0.75, T - 0.5]  # (a --quick clip is 10 s)
    w = np.hanning(MUSIC_WINDOW)
    expected = []
    for t in times:  # the recipe's level, window-weighted as the measurement is
        ts = t + (np.arange(MUSIC_WINDOW) - MUSIC_WINDOW // 2) / MUSIC_RATE
        level = np.array([music_gain(x, T) for x in ts]) * 0.25 * (0.75 + 0.25 * np.sin(np.pi * ts)) / 3
        expected.append(float((level * w).sum() / w.sum()))
    r["levels"] = {"times": times, "expected220": expected}
    for tool in ("reencode", "ffmpeg"):
        raw = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-i", str(paths[tool]), "-vn", "-f", "f32le", "-ac", "2", "-ar", str(MUSIC_RATE), "-"],
                             capture_output=True, check=True).stdout
        left = np.frombuffer(raw, np.float32)[0::2].astype(np.float64)
        r["levels"][tool] = {"220": tone_levels(np, left, MUSIC_RATE, times, 220.0), "440": tone_levels(np, left, MUSIC_RATE, times, 440.0),
                             "decodedSamples": len(left)}
    q = {tool: quality(src, paths[tool], MUSIC_W, MUSIC_H) for tool in ("reencode", "ffmpeg")}
    if q["reencode"] and q["ffmpeg"]:
        r["selection"] = {tool: {"everyFrameOnce": q[tool]["shown"] == list(range(frames)), "count": len(q[tool]["shown"])}
                          for tool in ("reencode", "ffmpeg")}
        r["selection"]["same"] = q["reencode"]["shown"] == q["ffmpeg"]["shown"]
        r["psnr"] = {"reencode": q["reencode"]["psnr"], "ffmpeg": q["ffmpeg"]["psnr"]}
    return r


def pixel_format(path):
    return sh(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", str(path)]).stdout.strip()


XFADE_WINDOW = 0.05  # s: 22 cycles of 440 Hz, 33 of 660 Hz, so the two tones' measures do not leak into each other


def tone_amplitudes(np, samples, rate, start, freqs):
    """Amplitude of each of `freqs` in the rectangular window of XFADE_WINDOW s from `start` (a whole
    number of cycles of each: a sine of amplitude A gives A)."""
    n = int(round(XFADE_WINDOW * rate))
    i = int(round(start * rate))
    seg = samples[i:i + n]
    if len(seg) < n:
        return None
    t = np.arange(n) / rate
    return [float(2 * abs(np.dot(seg, np.exp(-2j * np.pi * f * t))) / n) for f in freqs]


def xfade_check(first, second, paths, lossless):
    """(l): lengths against the timeline (10 s: 300 frames, 480,000 samples); which source frame each
    output frame outside the fade shows (the first clip's 0–134, the second's 45–179 from 5.5 s: the
    stamp read back); inside the fade, each output frame's luma against the mix the recipe states,
    (1 − x)·first + x·second with x = k/30 at fade frame k (the stamp band left out): the mean absolute
    deviation in code values — in the timed outputs beside their encoding noise outside the fade, and
    in lossless ones (crossfade_lossless) with the second clip's weight fitted by least squares; and the sound
    through the fade, in 50 ms windows of the left channel: each clip's tone (440/660 Hz) and their
    summed power, which an equal-power cross-fade keeps level (a dip or bump beyond 1 dB fails), and the
    660 Hz share of it against each tool's curve: reencode's √x and √(1 − x) give it x (docs/recipes.md),
    acrossfade's quarter sines sin²(πx/2)."""
    half = Fraction(XFADE_LENGTH, 2)
    seconds = XFADE_CUT + (XFADE_SECONDS - XFADE_SKIP)  # 5 s + 5 s: the fade overlaps, it adds nothing
    frames = seconds * XFADE_FPS
    fade0, fade_n = int((XFADE_CUT - half) * XFADE_FPS), XFADE_LENGTH * XFADE_FPS  # output frames 135 …, 30 of them
    shift = (XFADE_CUT - XFADE_SKIP) * XFADE_FPS  # the second clip's frame = output frame − 120
    r = {"timeline": {"seconds": seconds, "frames": frames, "audioSamples": seconds * XFADE_RATE,
                      "fadeFrames": [fade0, fade0 + fade_n - 1]}}
    r["outputs"] = {tool: probe(paths[tool]) | {"audioSamples": audio_samples(paths[tool]), "pixelFormat": pixel_format(paths[tool])}
                    for tool in ("reencode", "ffmpeg")}
    try:
        import numpy as np
    except ImportError:
        return r
    w, h = XFADE_W, XFADE_H
    band = max(2, (h // 8) & ~1)  # the stamp band: a blend of two stamps inside the fade, so left out there
    src_a = [np.frombuffer(f, np.uint8) for f in gray_frames(first, w, h)]
    src_b = [np.frombuffer(f, np.uint8) for f in gray_frames(second, w, h)]
    def mix_error(outs):
        """Per fade frame: mean absolute deviation from the stated mix, and the fitted weight."""
        fade = []
        for k in range(fade_n):
            n = fade0 + k
            if n >= len(outs):
                break
            a = src_a[n][band * w:].astype(np.float64)
            b = src_b[n - shift][band * w:].astype(np.float64)
            o = outs[n][band * w:].astype(np.float64)
            x = k / fade_n
            d = b - a
            fade.append({"frame": n, "x": x, "dev": float(np.abs(o - ((1 - x) * a + x * b)).mean()),
                         "fitted": float(np.dot(o - a, d) / np.dot(d, d))})
        return fade

    pictures = {}
    for tool in ("reencode", "ffmpeg"):
        exact = mix_error([np.frombuffer(f, np.uint8) for f in gray_frames(lossless[tool], w, h)])
        outs = [np.frombuffer(f, np.uint8) for f in gray_frames(paths[tool], w, h)]
        shown = [stamp(np, f, w, h) for f in outs]
        expected = {n: n for n in range(fade0)} | {n: n - shift for n in range(fade0 + fade_n, frames)}
        wrong = [(n, shown[n], e) for n, e in expected.items() if n >= len(shown) or shown[n] != e]
        fade = mix_error(outs)
        # Encoding noise, for scale: the same measure on the frames either side of the fade.
        noise = [float(np.abs(outs[n][band * w:].astype(np.float64) - src[e][band * w:]).mean())
                 for n, src, e in ((fade0 - 1, src_a, fade0 - 1), (fade0 + fade_n, src_b, fade0 + fade_n - shift)) if n < len(outs)]
        pictures[tool] = {"count": len(outs), "stampsWrong": len(wrong), "firstWrong": wrong[:3],
                          "head": shown[:3], "beforeFade": shown[fade0 - 2:fade0], "afterFade": shown[fade0 + fade_n:fade0 + fade_n + 2],
                          "tail": shown[-2:], "fade": fade,
                          "maxDeviation": max(f["dev"] for f in fade) if fade else None,
                          "noiseOutside": max(noise) if noise else None,
                          "lossless": {"fade": exact, "frames": len(exact), "maxDeviation": max(f["dev"] for f in exact) if exact else None,
                                       "maxWeightError": max(abs(f["fitted"] - f["x"]) for f in exact) if exact else None}}
    r["pictures"] = pictures
    # The sound: 50 ms windows from 4 s to 6 s, those holding a click left out (the clips click for
    # 10 ms at every whole second of their own time, which lands on whole seconds here).
    f1, f2 = XFADE_TONES
    starts = [4 + j * XFADE_WINDOW for j in range(int(2 / XFADE_WINDOW))]
    starts = [t for t in starts if not any(c - 0.005 < t + XFADE_WINDOW and t < c + 0.015 for c in (4, 5, 6))]
    sound = {}
    for tool in ("reencode", "ffmpeg"):
        raw = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-i", str(paths[tool]), "-vn", "-f", "f32le", "-ac", "2", "-ar", str(XFADE_RATE), "-"],
                             capture_output=True, check=True).stdout
        left = np.frombuffer(raw, np.float32)[0::2].astype(np.float64)
        rows = []
        for t in starts:
            amps = tone_amplitudes(np, left, XFADE_RATE, t, (f1, f2))
            if amps is None:
                continue
            mid = t + XFADE_WINDOW / 2
            # The second clip's share of the power, averaged over the window as the measurement is.
            xs = np.clip((t + np.arange(int(round(XFADE_WINDOW * XFADE_RATE))) / XFADE_RATE - float(XFADE_CUT - half)) / XFADE_LENGTH, 0, 1)
            share = float((xs if tool == "reencode" else np.sin(np.pi * xs / 2) ** 2).mean())
            p = amps[0] ** 2 + amps[1] ** 2
            rows.append({"t": mid, "a": amps[0], "b": amps[1], "powerDb": 10 * __import__("math").log10(p / 0.04) if p else None,
                         "share": amps[1] ** 2 / p if p else None, "expectedShare": share})
        inside = [x for x in rows if float(XFADE_CUT - half) <= x["t"] - XFADE_WINDOW / 2 and x["t"] + XFADE_WINDOW / 2 <= float(XFADE_CUT + half)]
        pw = [x["powerDb"] for x in rows if x["powerDb"] is not None]
        sound[tool] = {"windows": rows, "powerMinDb": min(pw) if pw else None, "powerMaxDb": max(pw) if pw else None,
                       "maxShareError": max(abs(x["share"] - x["expectedShare"]) for x in inside if x["share"] is not None) if inside else None,
                       "level": 0.2, "within1dB": bool(pw) and max(abs(v) for v in pw) <= 1.0}
    r["sound"] = sound
    return r


CONCAT_FIT = (0.15, 0.03)  # s: each tone fitted over 150 ms that ends (starts) 30 ms before (after) a join
CONCAT_SEARCH = 0.03  # s: where the change is looked for, either side of a join
CONCAT_NEAR = 0.05  # s: the stretch either side of a join (and of the control points) searched for gaps and clicks
CONCAT_CONTROL = (2.0, 6.0, 10.0)  # s: mid-segment points (0.5 s from any click) with the same measures, for scale


def tone_fit(np, y, n0, freq, rate):
    """Least-squares fit of a sine at `freq` to y (starting at sample n0 of the output): the
    amplitude, and the phase as (cos, sin) coefficients against absolute output sample numbers."""
    t = 2 * np.pi * freq * (n0 + np.arange(len(y))) / rate
    basis = np.stack([np.cos(t), np.sin(t)], axis=1)
    (c, d), *_ = np.linalg.lstsq(basis, y, rcond=None)
    return float(np.hypot(c, d)), (float(c), float(d))


def tone_model(np, coef, freq, rate, n0, n1):
    t = 2 * np.pi * freq * np.arange(n0, n1) / rate
    return coef[0] * np.cos(t) + coef[1] * np.sin(t)


def tone_lag(coef, freq, rate, out_sample, src_sample):
    """How late (ms, within ± half a period) the fitted tone runs against the clip's own: make-source
    writes 0.2·sin(2π·f·n/rate) at the clip's sample n, so output sample m of a segment that starts at
    output sample out_sample and source sample src_sample should read the clip at m − out_sample + src_sample."""
    import math
    # c·cos(ωm) + d·sin(ωm) = A·sin(ωm + φ): φ = atan2(c, d); the clip's own is φ0 = ω(src − out).
    w = 2 * math.pi * freq / rate
    phase = math.atan2(coef[0], coef[1]) - w * (src_sample - out_sample)
    phase = (phase + math.pi) % (2 * math.pi) - math.pi  # a lead of φ is a lag of −φ/ω samples
    return -phase / w / rate * 1000


def near_join(np, y, centre, rate):
    """Around sample `centre` (± CONCAT_NEAR): the longest run of near-silent samples (|x| < 0.01, a
    tone of 0.2 passes zero in a sample or two), the lowest and highest level in 5 ms windows moved by
    1 ms (dB against the tone's 0.2: a gap is a dip, a click a bump), and the peak sample."""
    half = int(CONCAT_NEAR * rate)
    seg = y[max(0, centre - half):centre + half]
    run, longest = 0, 0
    for q in np.abs(seg) < 0.01:
        run = run + 1 if q else 0
        longest = max(longest, run)
    win, hop = rate // 200, rate // 1000
    rms = [float(np.sqrt(np.mean(seg[i:i + win] ** 2))) for i in range(0, len(seg) - win + 1, hop)]
    ref = 0.2 / 2 ** 0.5
    def db_of(x):
        return 20 * __import__("math").log10(x / ref) if x > 0 else -120.0
    return {"silentRunMs": longest / rate * 1000, "levelMinDb": db_of(min(rms)), "levelMaxDb": db_of(max(rms)),
            "peak": float(np.abs(seg).max())}


def concat_check(clips, paths):
    """(m): lengths against the timeline (12 s: 360 frames, 576,000 samples); which source frame each
    output frame shows (the stamp read back: the first clip's 15–134, the second's 45–164, the third's
    6–125; the three clips share their pictures — make-source's texture follows the frame number only —
    so the clip shows in the stamp's jump at each join and in the sound) and its luma PSNR against that
    frame of that clip; and the sound, in the left channel: at each join, where the earlier clip's tone
    gives way to the later one's — each tone fitted by least squares either side of the join, the
    change put at the sample that best splits the stretch between the two fits — as an offset from the
    join in ms; each fitted tone's level and its lag against the clip's own samples (mod one period);
    and gaps (near-silent runs) or clicks (level bumps, peaks) near each join against the same measures
    mid-segment."""
    rate, fps = CONCAT_RATE, CONCAT_FPS
    lengths = [end - start for start, end in CONCAT_SPANS]
    seconds = sum(lengths)
    starts = [sum(lengths[:i]) for i in range(len(lengths))]  # each segment's start on the timeline
    expected = [int(start * fps) + k for (start, _), length in zip(CONCAT_SPANS, lengths) for k in range(int(length * fps))]
    r = {"timeline": {"seconds": float(seconds), "frames": int(seconds * fps), "audioSamples": int(seconds * rate),
                      "joins": [float(t) for t in starts[1:]], "expectedFrames": [[expected[int(t * fps)], expected[int((t + l) * fps) - 1]]
                                                                                   for t, l in zip(starts, lengths)]}}
    r["outputs"] = {tool: probe(paths[tool]) | {"audioSamples": audio_samples(paths[tool]), "pixelFormat": pixel_format(paths[tool])}
                    for tool in ("reencode", "ffmpeg")}
    try:
        import numpy as np
    except ImportError:
        return r
    w, h = CONCAT_W, CONCAT_H
    band = max(2, (h // 8) & ~1) * w  # the stamp band is left out of the PSNR: it is the same in both
    pictures = {}
    for tool in ("reencode", "ffmpeg"):
        outs = gray_frames(paths[tool], w, h)
        shown, psnrs = [], []
        for clip, (start, _), length in zip(clips, CONCAT_SPANS, lengths):
            src = gray_frames(clip, w, h, int((start + length) * fps))
            for _ in range(int(start * fps)):
                next(src)
            for k in range(int(length * fps)):
                o, ref = next(outs, None), next(src, None)
                if o is None or ref is None:
                    break
                o, ref = np.frombuffer(o, np.uint8), np.frombuffer(ref, np.uint8)
                shown.append(stamp(np, o, w, h))
                mse = float(((o[band:].astype(np.int32) - ref[band:].astype(np.int32)) ** 2).mean())
                psnrs.append(99.0 if mse == 0 else 10 * __import__("math").log10(255 * 255 / mse))
            src.close()
        shown += [stamp(np, np.frombuffer(o, np.uint8), w, h) for o in outs]  # any frames past the timeline
        wrong = [(n, s, e) for n, (s, e) in enumerate(zip(shown, expected)) if s != e]
        j = [int(t * fps) for t in starts[1:]]
        pictures[tool] = {"count": len(shown), "asExpected": shown == expected, "wrong": len(wrong) + abs(len(shown) - len(expected)),
                          "firstWrong": wrong[:3], "atJoins": [shown[n - 1:n + 1] for n in j], "head": shown[:2], "tail": shown[-2:],
                          "psnr": statistics.mean(psnrs) if psnrs else None, "psnrMin": min(psnrs) if psnrs else None}
    r["pictures"] = pictures
    sound = {}
    for tool in ("reencode", "ffmpeg"):
        raw = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-i", str(paths[tool]), "-vn", "-f", "f32le", "-ac", "2", "-ar", str(rate), "-"],
                             capture_output=True, check=True).stdout
        y = np.frombuffer(raw, np.float32)[0::2].astype(np.float64)[:r["outputs"][tool]["audioSamples"]]
        joins = []
        for i in range(1, len(CONCAT_SPANS)):
            at = int(starts[i] * rate)
            f0, f1 = CONCAT_TONES[i - 1], CONCAT_TONES[i]
            fit_len, gap, search = int(CONCAT_FIT[0] * rate), int(CONCAT_FIT[1] * rate), int(CONCAT_SEARCH * rate)
            a0, b0 = at - gap - fit_len, at + gap
            amp0, c0 = tone_fit(np, y[a0:a0 + fit_len], a0, f0, rate)
            amp1, c1 = tone_fit(np, y[b0:b0 + fit_len], b0, f1, rate)
            lo, hi = at - search, at + search
            e0 = (y[lo:hi] - tone_model(np, c0, f0, rate, lo, hi)) ** 2
            e1 = (y[lo:hi] - tone_model(np, c1, f1, rate, lo, hi)) ** 2
            # The change at sample lo + k: the earlier tone before it, the later one from it.
            cost = np.concatenate([[0], np.cumsum(e0)]) + (e1.sum() - np.concatenate([[0], np.cumsum(e1)]))
            k = int(np.argmin(cost))
            change = lo + k
            resid = np.sqrt(np.concatenate([e0[:k], e1[k:]]))
            joins.append({"join": float(starts[i]), "changeMs": (change - at) / rate * 1000,
                          "levels": [amp0, amp1],
                          "lagMs": [tone_lag(c0, f0, rate, int(starts[i - 1] * rate), int(CONCAT_SPANS[i - 1][0] * rate)),
                                    tone_lag(c1, f1, rate, at, int(CONCAT_SPANS[i][0] * rate))],
                          "residualPeak": float(resid.max()),
                          "near": near_join(np, y, at, rate)})
        control = []
        for t in CONCAT_CONTROL:
            i = max(n for n in range(len(starts)) if starts[n] <= t)
            c = int(t * rate)
            amp, coef = tone_fit(np, y[c - int(CONCAT_NEAR * rate):c + int(CONCAT_NEAR * rate)], c - int(CONCAT_NEAR * rate), CONCAT_TONES[i], rate)
            lo, hi = c - int(CONCAT_SEARCH * rate), c + int(CONCAT_SEARCH * rate)
            resid = np.abs(y[lo:hi] - tone_model(np, coef, CONCAT_TONES[i], rate, lo, hi))
            control.append({"t": t, "level": amp, "residualPeak": float(resid.max()), "near": near_join(np, y, c, rate),
                            "lagMs": tone_lag(coef, CONCAT_TONES[i], rate, int(starts[i] * rate), int(CONCAT_SPANS[i][0] * rate))})
        sound[tool] = {"joins": joins, "control": control, "decodedSamples": len(y)}
    r["sound"] = sound
    return r


def floor_and_bound(source, w, h, fps, skip_nonref, encoder=None, pix_fmt="yuv420p"):
    """For run_pair: a function of reencode's output giving the encoder floor's command — the output's
    frames as raw pictures in memory (tmpfs), encoded with the same settings — and the bound's: that
    encode run side by side with the rest of the job's necessary work, decoding the pictures it must
    decode (`-skip_frame noref` where the unreferenced ones can be skipped) and encoding the audio,
    each in its own process, so the OS overlaps them as well as it can; and a cleanup."""
    def commands(output):
        raw = Path("/dev/shm") / f"reencode-floor-{os.getpid()}.yuv"
        sh(["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", str(output), "-an", "-f", "rawvideo", "-pix_fmt", pix_fmt, str(raw)])
        encode = ["ffmpeg", "-v", "error", "-nostdin", "-f", "rawvideo", "-pix_fmt", pix_fmt, "-s", f"{w}x{h}", "-r", str(fps),
                  "-i", str(raw)] + (encoder or x264("veryfast", 21, 60)) + ["-f", "null", "-"]
        decode = ["ffmpeg", "-v", "error", "-nostdin"] + (["-skip_frame", "noref"] if skip_nonref else []) + \
                 ["-i", str(source)] + AAC + ["-f", "null", "-"]
        both = f"{' '.join(map(shlex.quote, encode))} & {' '.join(map(shlex.quote, decode))}; wait"
        return encode, both, lambda: raw.unlink(missing_ok=True)
    return commands


# ---------------------------------------------------------------- report

def med(xs, k):
    return statistics.median(x[k] for x in xs)


def summarize(samples):
    r = {}
    for tool, xs in samples.items():
        r[tool] = {"wall": med(xs, "wall"), "cpu": med(xs, "cpu"), "rss": med(xs, "rss"), "runs": xs}
    r["ratio"] = {k: r["reencode"][k] / r["ffmpeg"][k] if r["ffmpeg"][k] else None for k in ("wall", "cpu", "rss")}
    if "best" in r:  # reencode against the peer's best command
        r["bestRatio"] = {k: r["reencode"][k] / r["best"][k] if r["best"][k] else None for k in ("wall", "cpu", "rss")}
    return r


def paired(r, other):
    """The median over rounds of reencode's time over `other`'s in the same round: the runs alternate,
    so the two of a round met the same state of a shared machine, where medians of each tool's own
    runs take their middles from different moments. None when there are no paired runs."""
    a, b = r.get("reencode", {}).get("runs"), r.get(other, {}).get("runs")
    if not a or not b or len(a) != len(b):
        return None
    return {k: statistics.median(x[k] / y[k] for x, y in zip(a, b) if y[k]) for k in ("wall", "cpu")}


def svg(results):
    """Per scenario, side by side in units of plain ffmpeg's wall time (the 1.0 line): reencode, the
    best ffmpeg command (high-frame-rate scenarios; grey and marked when it shows other source
    frames), the bound, and reencode's peak RSS over ffmpeg's; the target as a dashed red line."""
    keys = [k for k in "abcdefhi" if k in results]
    bar_h, gap, left, width = 18, 14, 230, 420

    def bars(r):
        out = [("reencode wall", r["ratio"]["wall"], "#3b7dd8")]
        if "best" in r:
            same = (r.get("selection") or {}).get("bestSameFrames", True)
            out.append(("best ffmpeg wall" + ("" if same else " (other frames)"), r["best"]["wall"] / r["ffmpeg"]["wall"],
                        "#e08a2c" if same else "#bbbbbb"))
        if "boundRatio" in r:
            out.append(("bound", r["boundRatio"], "#4caf50"))
        rss_name, rss = "peak RSS", r["ratio"]["rss"]
        if "rssPerConversionRatio" in r:
            rss_name, rss = "peak RSS per conversion", r["rssPerConversionRatio"]
        out.append((rss_name, rss, "#9a6fd0"))
        return [x for x in out if x[1] is not None]

    height = 60 + sum(len(bars(results[k])) * bar_h + gap for k in keys)
    scale = width / 2.0  # ratio 2.0 at the right edge
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 150}" height="{height}" font-family="sans-serif" font-size="12">',
             '<text x="10" y="20" font-size="14" font-weight="bold">× plain ffmpeg (median; lower is better; 1.0 = ffmpeg)</text>']
    y = 40
    for k in keys:
        r = results[k]
        bs = bars(r)
        parts.append(f'<text x="10" y="{y + 13}">({k}) {r["title"][:30]}</text>')
        for j, (name, val, colour) in enumerate(bs):
            yy = y + j * bar_h
            parts.append(f'<rect x="{left}" y="{yy}" width="{min(val, 2.0) * scale:.1f}" height="{bar_h - 3}" fill="{colour}"/>')
            parts.append(f'<text x="{left + min(val, 2.0) * scale + 4:.1f}" y="{yy + 12}">{name} {val:.2f}</text>')
        target = r.get("target")
        if target:
            x = left + target * scale
            parts.append(f'<line x1="{x:.1f}" y1="{y - 2}" x2="{x:.1f}" y2="{y + len(bs) * bar_h}" stroke="#d33" stroke-dasharray="3,2"/>')
        y += len(bs) * bar_h + gap
    x1 = left + scale
    parts.append(f'<line x1="{x1}" y1="34" x2="{x1}" y2="{height - 10}" stroke="#444"/>')
    parts.append(f'<text x="{x1 - 8}" y="{height - 2}">1.0</text></svg>')
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scenarios", default="a,b,c,d,e,f,g,h,i,j,k,l,m")
    ap.add_argument("--quick", action="store_true", help="shorter inputs, for trying the harness")
    ap.add_argument("--jobs", type=int, default=2, help="reencode batch --jobs for (e)")
    ap.add_argument("--report-only", action="store_true", help="rewrite results/*.md and latest.svg from results/*.json, running nothing")
    a = ap.parse_args()
    wanted = a.scenarios.split(",")
    if a.report_only:
        for name in ("latest", "compositions"):
            data = json.loads((RESULTS / f"{name}.json").read_text())
            meta, group = data["machine"], data["scenarios"]
            if name == "latest":
                (RESULTS / "latest.svg").write_text(svg(group) + "\n")
            (RESULTS / f"{name}.md").write_text("\n".join(report(group, meta, meta["runs"], meta["quick"], chart=name == "latest")))
        return 0

    print("building release …", flush=True)
    sh(["swift", "build", "-c", "release", "--product", "reencode"], cwd=ROOT)
    sh(["swift", "build", "-c", "release", "--product", "reencode-bench"], cwd=ROOT)
    print("preparing inputs …", flush=True)
    src = inputs(a.quick, wanted)

    titles = {"a": "1080p120 droppable → 30 fps", "b": "1080p120 IPPP → 30 fps", "c": "4K60 → 1080p30",
              "d": "passthrough remux, trim", "e": "24 × 720p60 clips: batch vs loop", "f": "audio AAC → AAC 48 kHz",
              "g": "memory over the media's length (320x180p60 → 30 fps)", "h": "1080p240 HEVC layers → 30 fps H.264",
              "i": "1080p240 HEVC layers → 30 fps HEVC 10-bit", "j": "slow motion: 240 fps, 1–2 s at 1/8 → 30 fps",
              "k": "music bed: 720p30 + 44.1 kHz music, -6 → -18 dB, fades",
              "l": "cross-fade: two 720p30 clips, 1 s dissolve (xfade, acrossfade)",
              "m": "concat: three 720p30 clips, trimmed, joined end to end (concat filter)",
              "n": "1080p60 → 1080p, 720p, 480p H.264 from one read: vs ffmpeg's split=3 ladder",
              "p": "1080p60 → a 4-rung H.264 HLS ladder, 6 s fMP4 segments: vs ffmpeg's split=4 + -var_stream_map",
              "o": f"{STILLS_COUNT} exact stills of 1080p30 H.264, 2 s GOPs: images vs an ffmpeg -ss loop",
              "q": "1080p30 → AV1 (SVT-AV1 preset 8, quality 35)", "r": "1080p30 → VP9 (cpu-used 4, row-mt, quality 31)",
              "s": "1080p30 → ProRes 422 HQ (prores_ks, 10-bit 4:2:2, MOV)",
              "t": "smart cut-out: 2 s out of 10 minutes of 1080p30 H.264, 2 s GOPs (x264 veryfast, quality 23)",
              "u": "chunked encoding: 5 minutes of 1080p30 → HEVC (x265 medium, quality 28), --chunks auto"}
    results = {}
    for key in wanted:
        print(f"scenario {key}: {titles[key]} …", flush=True)
        if key in ("a", "b", "c", "d", "f", "h", "i") + CODEC_ROWS:
            bound = None
            if key in HFR:
                encoder, pix = (X265_10, "yuv420p10le") if key == "i" else (None, "yuv420p")
                bound = floor_and_bound(src[key], 1920, 1080, 30, key != "b", encoder, pix)
            samples, out = run_pair(key, src["a" if key == "d" else key], a.runs, bound)
            floors, bounds = samples.pop("floor", None), samples.pop("bound", None)
            r = summarize(samples)
            if bounds:
                r["floor"], r["bound"] = med(floors, "wall"), med(bounds, "wall")
                r["floorRuns"], r["boundRuns"] = floors, bounds
                r["floorShare"] = r["floor"] / r["reencode"]["wall"]
                r["boundRatio"] = r["bound"] / r["ffmpeg"]["wall"]
                r["reencodeOverBound"] = r["reencode"]["wall"] / r["bound"]
                r["reencodeOverBoundPaired"] = statistics.median(x["wall"] / y["wall"] for x, y in zip(r["reencode"]["runs"], bounds))
            r["title"] = titles[key]
            if key in TARGETS:
                r["target"] = TARGETS[key]
            if key != "f":
                pr, pf = probe(out["re"]), probe(out["ff"])
                r["outputs"] = {"reencode": pr, "ffmpeg": pf, "sameFrameCount": pr["frames"] == pf["frames"],
                                "durationDiff": abs(pr["duration"] - pf["duration"])}
            if "best" in out:
                r["outputs"]["best"] = probe(out["best"])
            if key in ("a", "b", "c", "h", "i"):
                w, h = (1920, 1080)
                qr, qf = quality(src[key], out["re"], w, h), quality(src[key], out["ff"], w, h)
                if qr and qf:
                    step = STEP[key]
                    r["selection"] = {"reencode": qr["shown"][:12], "ffmpeg": qf["shown"][:12],
                                      "reencodeIsNearest": qr["shown"] == [step * k for k in range(len(qr["shown"]))]}
                    r["psnr"] = {"reencode": qr["psnr"], "ffmpeg": qf["psnr"]}
                    qb = quality(src[key], out["best"], w, h) if "best" in out else None
                    if qb:
                        # Counted only when it shows what reencode shows: else it is another output.
                        differ = sum(1 for x, y in zip(qr["shown"], qb["shown"]) if x != y) + abs(len(qr["shown"]) - len(qb["shown"]))
                        r["selection"] |= {"best": qb["shown"][:12], "bestSameFrames": differ == 0, "bestDiffer": differ}
                        r["psnr"]["best"] = qb["psnr"]
            if key in CODEC_ROWS:
                # Every frame kept by both: the same source frames, and their fidelity to the source.
                qr, qf = quality(src[key], out["re"], 1920, 1080), quality(src[key], out["ff"], 1920, 1080)
                if qr and qf:
                    r["selection"] = {"reencode": qr["shown"][:12], "ffmpeg": qf["shown"][:12], "sameFrames": qr["shown"] == qf["shown"]}
                    r["psnr"] = {"reencode": qr["psnr"], "ffmpeg": qf["psnr"]}
                r["rssTarget"] = CODEC_ROW_RSS_TARGET
            results[key] = r
        elif key == "e":
            r = summarize(run_batch(src["e"], a.runs, a.jobs))
            r["title"] = titles[key]
            r["target"] = TARGETS["e"]
            r["throughputRatio"] = r["ffmpeg"]["wall"] / r["reencode"]["wall"]
            # --jobs N holds N conversions at once; per conversion is the like-for-like memory figure.
            r["jobs"] = a.jobs
            r["rssPerConversionRatio"] = r["reencode"]["rss"] / a.jobs / r["ffmpeg"]["rss"]
            results[key] = r
        elif key == "j":
            samples, out = run_pair(key, src[key], a.runs)
            r = summarize(samples)
            r["title"] = titles[key]
            seconds = Fraction(round(probe(src[key])["duration"] * SLOMO_FPS), SLOMO_FPS)
            r.update(slomo_check(src[key], {"reencode": out["re"], "ffmpeg": out["ff"]}, seconds))
            qr, qb = quality(src[key], out["re"], SLOMO_W, SLOMO_H), quality(src[key], out["best"], SLOMO_W, SLOMO_H)
            if qr and qb and "selection" in r:
                # Counted only when it shows what reencode shows: else it is another output.
                differ = sum(1 for x, y in zip(qr["shown"], qb["shown"]) if x != y) + abs(len(qr["shown"]) - len(qb["shown"]))
                r["selection"] |= {"bestSameFrames": differ == 0, "bestDiffer": differ, "bestShown": qb["shown"][:4]}
                r["psnr"]["best"] = qb["psnr"]
            results[key] = r
        elif key == "k":
            samples, out = run_pair(key, src[key], a.runs)
            r = summarize(samples)
            r["title"] = titles[key]
            r.update(music_check(src[key], {"reencode": out["re"], "ffmpeg": out["ff"]}, clip_seconds(src[key])))
            results[key] = r
        elif key == "l":
            samples, out = run_pair(key, src[key], a.runs)
            r = summarize(samples)
            r["title"] = titles[key]
            r.update(xfade_check(src[key], src["lSecond"], {"reencode": out["re"], "ffmpeg": out["ff"]}, crossfade_lossless(src[key])))
            results[key] = r
        elif key == "m":
            samples, out = run_pair(key, src[key], a.runs)
            r = summarize(samples)
            r["title"] = titles[key]
            r.update(concat_check(src["mClips"], {"reencode": out["re"], "ffmpeg": out["ff"]}))
            results[key] = r
        elif key == "g":
            results[key] = memory_over_length(src, a.runs) | {"title": titles[key]}
        elif key == "o":
            results[key] = stills_run(src[key], a.runs) | {"title": titles[key]}
        elif key == "n":
            results[key] = ladder_run(src[key], a.runs) | {"title": titles[key]}
        elif key == "p":
            results[key] = hls_ladder_run(src[key], a.runs) | {"title": titles[key]}
        elif key == "t":
            results[key] = smart_chunks.smart_run(sys.modules[__name__], src[key], a.runs) | {"title": titles[key]}
        elif key == "u":
            results[key] = smart_chunks.chunk_run(sys.modules[__name__], src[key]) | {"title": titles[key]}

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    versions = {
        "reencode": sh([str(REENCODE), "--version"]).stdout.strip(),
        "ffmpeg": sh(["ffmpeg", "-version"]).stdout.splitlines()[0],
        "swift": sh(["swift", "--version"]).stdout.splitlines()[0] if shutil.which("swift") else "?",
    }
    meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "cores": os.cpu_count(), "cpu": cpu,
            "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            "runs": a.runs, "quick": a.quick, "versions": versions}
    RESULTS.mkdir(parents=True, exist_ok=True)
    # Each group has its own files: running one leaves the other's reference numbers as they are.
    if "n" in results:
        ladder = results.pop("n")
        (RESULTS / "renditions.json").write_text(json.dumps({"machine": meta, "scenarios": {"n": ladder}}, indent=2) + "\n")
        lines = ladder_report(ladder, meta, a.runs, a.quick)
        (RESULTS / "renditions.md").write_text("\n".join(lines))
        print("\n".join(lines))
    if "p" in results:
        hls = results.pop("p")
        (RESULTS / "hls-ladder.json").write_text(json.dumps({"machine": meta, "scenarios": {"p": hls}}, indent=2) + "\n")
        lines = hls_ladder_report(hls, meta, a.runs, a.quick)
        (RESULTS / "hls-ladder.md").write_text("\n".join(lines))
        print("\n".join(lines))
    if "t" in results or "u" in results:
        group = {k: results.pop(k) for k in ("t", "u") if k in results}
        (RESULTS / "smart-chunks.json").write_text(json.dumps({"machine": meta, "scenarios": group}, indent=2) + "\n")
        lines = smart_chunks.report(group.get("t"), group.get("u"), meta, a.runs, a.quick)
        (RESULTS / "smart-chunks.md").write_text("\n".join(lines))
        print("\n".join(lines))
    if "o" in results:
        stills = {"o": results.pop("o")}
        (RESULTS / "stills.json").write_text(json.dumps({"machine": meta, "scenarios": stills}, indent=2) + "\n")
        lines = stills_report(stills, meta, a.runs, a.quick)
        (RESULTS / "stills.md").write_text("\n".join(lines))
        print("\n".join(lines))
    for name, group in (("latest", {k: r for k, r in results.items() if k not in COMPOSITION_KEYS}),
                        ("compositions", {k: r for k, r in results.items() if k in COMPOSITION_KEYS})):
        if not group:
            continue
        group = keep_earlier(group, meta, name)
        (RESULTS / f"{name}.json").write_text(json.dumps({"machine": meta, "scenarios": group}, indent=2) + "\n")
        if name == "latest":
            (RESULTS / "latest.svg").write_text(svg(group) + "\n")
        lines = report(group, meta, a.runs, a.quick, chart=name == "latest")
        (RESULTS / f"{name}.md").write_text("\n".join(lines))
        print("\n".join(lines))


def keep_earlier(group, meta, name):
    """latest.* or compositions.*: the scenarios run now (each marked with this run's machine line),
    and the ones not run kept from the file as they were, with their own run's (so `--scenarios k`
    leaves (j)'s reference numbers in place, and `--scenarios a,h` the other rows of latest.*)."""
    group = {k: r | {"machine": meta} for k, r in group.items()}
    try:
        old = json.loads((RESULTS / f"{name}.json").read_text())
    except (OSError, ValueError):
        return group
    kept = {k: {"machine": old.get("machine")} | r for k, r in old.get("scenarios", {}).items() if k not in group}
    return {k: (group | kept)[k] for k in sorted(group | kept)}


def music_notes(r):
    """(k)'s checks, in words: lengths, the music's level on its 220 Hz note and the clip's tone, frames shown."""
    t, o = r["timeline"], r["outputs"]
    notes = [f"clip {t['seconds']:g} s = {t['frames']} frames, {t['audioSamples']} samples",
             "frames " + " vs ".join(str(o[x]['frames']) for x in ("reencode", "ffmpeg")),
             "duration " + " vs ".join(f"{o[x]['duration']:.3f} s" for x in ("reencode", "ffmpeg")),
             "audio samples " + " vs ".join(str(o[x]['audioSamples']) for x in ("reencode", "ffmpeg"))]
    lv = r.get("levels")
    if lv:
        def dbfs(x):
            return f"{20 * __import__('math').log10(x):.1f}" if x else "-inf"
        rows = [f"{tm:g} s: {dbfs(e)}/{dbfs(a)}/{dbfs(b)}" for tm, e, a, b in zip(lv["times"], lv["expected220"], lv["reencode"]["220"], lv["ffmpeg"]["220"])]
        notes.append("music's 220 Hz note, dBFS recipe/reencode/ffmpeg: " + ", ".join(rows))
        for x in ("reencode", "ffmpeg"):
            worst = max(abs(20 * __import__('math').log10(a / e)) for e, a in zip(lv["expected220"], lv[x]["220"]) if a and e)
            tone = [v for v in lv[x]["440"] if v]
            notes.append(f"{x}: 220 Hz within {worst:.2f} dB of the recipe; clip's 440 Hz tone {min(tone):.3f}–{max(tone):.3f} (0.2 at volume 1)")
    sel = r.get("selection")
    if sel:
        notes.append(f"pictures: reencode {sel['reencode']['count']} frames{', every source frame once' if sel['reencode']['everyFrameOnce'] else ', NOT every source frame once'}; "
                     f"ffmpeg {sel['ffmpeg']['count']}{', every source frame once' if sel['ffmpeg']['everyFrameOnce'] else ', NOT every source frame once'}; "
                     f"{'the same' if sel['same'] else 'NOT the same'} source frames")
    return notes


def output_notes(o):
    """Both outputs' frame count, duration, sound length and pixel format, side by side."""
    return ["frames " + " vs ".join(str(o[x]['frames']) for x in ("reencode", "ffmpeg")),
            "duration " + " vs ".join(f"{o[x]['duration']:.3f} s" for x in ("reencode", "ffmpeg")),
            "audio samples " + " vs ".join(str(o[x]['audioSamples']) for x in ("reencode", "ffmpeg")),
            "pixel format " + " vs ".join(str(o[x].get('pixelFormat')) for x in ("reencode", "ffmpeg"))]


def xfade_notes(r):
    """(l)'s checks, in words: lengths, stamps outside the fade, the mix inside it, the sound's level."""
    t, o = r["timeline"], r["outputs"]
    notes = [f"timeline {t['seconds']:g} s = {t['frames']} frames, {t['audioSamples']} samples; fade at output frames {t['fadeFrames'][0]}–{t['fadeFrames'][1]}",
             *output_notes(o)]
    pics = r.get("pictures")
    if pics:
        for x in ("reencode", "ffmpeg"):
            p = pics[x]
            stamps = ("the expected stamps outside the fade (first clip 0–134, second clip 45–179)" if not p["stampsWrong"] else
                      f"{p['stampsWrong']} output frames outside the fade show OTHER source frames (first: {p['firstWrong']})")
            ll = p["lossless"]
            notes.append(f"{x}: {p['count']} frames, {stamps}; in the fade the luma is within {p['maxDeviation']:.2f} code values (mean absolute) "
                         f"of the mix (encoding noise outside the fade: {p['noiseOutside']:.2f}); encoded losslessly, within {ll['maxDeviation']:.2f}, "
                         f"the second clip's fitted weight within {ll['maxWeightError']:.3f} of x = k/30")
    snd = r.get("sound")
    if snd:
        for x in ("reencode", "ffmpeg"):
            sd = snd[x]
            mid = min(sd["windows"], key=lambda w: abs(w["t"] - XFADE_CUT))  # the window nearest the cut (the click's left out)
            e = mid["expectedShare"]
            curve = "x (√ of each share)" if x == "reencode" else "sin²(πx/2) (quarter sines)"
            notes.append(f"{x}'s sound: the two tones' summed power {sd['powerMinDb']:+.2f} to {sd['powerMaxDb']:+.2f} dB over 4–6 s "
                         f"({'within' if sd['within1dB'] else 'NOT within'} 1 dB), the 660 Hz share of it within {sd['maxShareError']:.3f} of {curve}; "
                         f"at {mid['t']:.3f} s 440 Hz {mid['a']:.3f}, 660 Hz {mid['b']:.3f} (expected {0.2 * (1 - e) ** 0.5:.3f}, {0.2 * e ** 0.5:.3f})")
    return notes


def concat_notes(r):
    """(m)'s checks, in words: lengths, the stamps, and the sound at each join against mid-segment."""
    t, o = r["timeline"], r["outputs"]
    spans = ", ".join(f"{a}–{b}" for a, b in t["expectedFrames"])
    notes = [f"timeline {t['seconds']:g} s = {t['frames']} frames, {t['audioSamples']} samples; joins at {', '.join(f'{j:g}' for j in t['joins'])} s",
             *output_notes(o)]
    pics = r.get("pictures")
    if pics:
        for x in ("reencode", "ffmpeg"):
            p = pics[x]
            stamps = (f"the expected stamps ({spans})" if p["asExpected"] else
                      f"{p['wrong']} output frames show OTHER source frames than {spans} (first: {p['firstWrong']})")
            joins = "; ".join(" → ".join(map(str, j)) for j in p["atJoins"])
            notes.append(f"{x}: {p['count']} frames, {stamps}, at the joins {joins}; PSNR {p['psnr']:.2f} dB (lowest frame {p['psnrMin']:.2f})")
    snd = r.get("sound")
    if snd:
        for x in ("reencode", "ffmpeg"):
            sd = snd[x]
            rows = []
            for j in sd["joins"]:
                n = j["near"]
                rows.append(f"at {j['join']:g} s the tone changes {j['changeMs']:+.2f} ms from the join (levels {j['levels'][0]:.3f} → {j['levels'][1]:.3f}, "
                            f"lag against the clip's own samples {j['lagMs'][0]:+.3f}/{j['lagMs'][1]:+.3f} ms), within ±{1000 * CONCAT_NEAR:.0f} ms: "
                            f"longest near-silent run {n['silentRunMs']:.2f} ms, 5 ms level {n['levelMinDb']:+.2f} to {n['levelMaxDb']:+.2f} dB, "
                            f"peak {n['peak']:.3f}, off the two tones by {j['residualPeak']:.3f} at most")
            c = sd["control"]
            near = [x["near"] for x in c]
            times = ", ".join(f"{x['t']:g}" for x in c)
            lags = ", ".join(f"{x['lagMs']:+.3f}" for x in c)
            rows.append(f"mid-segment ({times} s): longest near-silent run {max(n['silentRunMs'] for n in near):.2f} ms, "
                        f"5 ms level {min(n['levelMinDb'] for n in near):+.2f} to {max(n['levelMaxDb'] for n in near):+.2f} dB, "
                        f"peak {max(n['peak'] for n in near):.3f}, off the tone by {max(x['residualPeak'] for x in c):.3f} at most, lag {lags} ms")
            notes.append(f"{x}'s sound: " + "; ".join(rows))
    return notes


def slomo_notes(r):
    """(j)'s checks, in words: lengths against the timeline, and which source frames are shown."""
    t, o = r["timeline"], r["outputs"]
    notes = [f"timeline {t['seconds']:g} s = {t['frames']} frames, {t['audioSamples']} samples",
             "frames " + " vs ".join(str(o[x]['frames']) for x in ("reencode", "ffmpeg")),
             "duration " + " vs ".join(f"{o[x]['duration']:.3f} s" for x in ("reencode", "ffmpeg")),
             "audio samples " + " vs ".join(str(o[x]['audioSamples']) for x in ("reencode", "ffmpeg"))]
    for x in ("reencode", "ffmpeg"):
        if o[x].get("silences") is not None:
            gaps = ", ".join(f"{1000 * d:.0f} ms at {t:.2f} s" for t, d in o[x]["silences"]) or "none"
            notes.append(f"{x}'s sound silent: {gaps}")
    if o["reencode"].get("clicks") is not None:
        notes.append("clicks at " + "; ".join(", ".join(f"{c:.3f}" for c in cs) for cs in
                     (t["clicks"], o["reencode"]["clicks"], o["ffmpeg"]["clicks"])) + " s (timeline; reencode; ffmpeg)")
    sel = r.get("selection")
    if sel:
        for x in ("reencode", "ffmpeg"):
            s = sel[x]
            notes.append(f"{x} shows {', '.join(map(str, s['head']))} … (1–2 s: {', '.join(map(str, s['slowedFirst']))} … "
                         f"{', '.join(map(str, s['slowedLast']))}{', every frame once' if s['slowedEveryFrameOnce'] else ', NOT every frame once'}) "
                         f"then {', '.join(map(str, s['tail']))} …{'' if x != 'reencode' or s['asExpected'] else ' (NOT the expected frames)'}")
        if "bestShown" in sel:
            notes.append(f"best ffmpeg (-skip_frame noref) shows {', '.join(map(str, sel['bestShown']))} …; "
                         + ("the same frames as reencode" if sel["bestSameFrames"] else
                            f"OTHER source frames than reencode in {sel['bestDiffer']} output frames: information only"))
        d = sel["differ"]
        notes.append(f"{d['count']} output frames show another source frame in ffmpeg's output ({d['inSlowed']} of them in 1–2 s; "
                     f"ffmpeg − reencode: {', '.join(f'{x:+d}' for x in d['offsets']) or 'none'})")
    return notes


def report(results, meta, runs, quick, chart):
    versions = meta["versions"]
    lines = [f"# Benchmark results — {meta['date']}", "",
             f"{meta['cores']} cores, {meta['cpu']}, {meta['memory_gib']} GiB; {versions['ffmpeg']}; {versions['swift']}; "
             f"median of {runs} alternating runs{' (quick inputs)' if quick else ''}.", "",
             "Ratios are reencode's over plain ffmpeg's, and (\"vs best\") over the best ffmpeg command's: `-skip_frame noref` "
             "before `-i`, for the high-frame-rate scenarios; in parentheses when that command shows other source frames than "
             "reencode (then it makes another output, and counts only as information).", "",
             "| scenario | reencode wall | ffmpeg wall | best ffmpeg wall | bound | wall ratio | vs best | target | CPU ratio | CPU vs best | RSS ratio | notes |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k, r in results.items():
        if k == "g":
            if "growth" not in r:  # a run from before (g) measured an hour
                lines.append(f"| (g) {r['title']} | | | | | | | | | | {r['ratio']['rss']:.3f} | peak RSS {r['rss10']} kB (10 s) vs {r['rss60']} kB (60 s) |")
                continue
            g, pk = r["growth"], r["peak"]
            lines.append(f"| (g) {r['title']} | {r['reencode']['wall']:.1f} s | {r['ffmpeg']['wall']:.1f} s | | | {r['ratio']['wall']:.2f} | | | "
                         f"{r['ratio']['cpu']:.2f} | | {r['ratio']['rss']:.3f} | peak RSS, {r['seconds'][0] / 60:.0f} → {r['seconds'][1] / 60:.0f} min source: reencode {pk['reencode'][0]} → "
                         f"{pk['reencode'][1]} kB, ffmpeg {pk['ffmpeg'][0]} → {pk['ffmpeg'][1]} kB; growth per hour of media "
                         f"reencode {g['reencode'] / 1024:.1f} MB, ffmpeg {g['ffmpeg'] / 1024:.1f} MB (growth ratio {g['ratio']:.2f}); "
                         f"the RSS ratio is the long source's |")
            continue
        notes = []
        sel = r.get("selection") or {}
        best_ok = sel.get("bestSameFrames", True)
        if "best" in sel:
            notes.append(f"shown source frames: reencode {', '.join(map(str, sel['reencode'][:4]))} …, ffmpeg {', '.join(map(str, sel['ffmpeg'][:4]))} …, "
                         f"best ffmpeg {', '.join(map(str, sel['best'][:4]))} …"
                         + ("; best ffmpeg shows the same frames as reencode" if best_ok else
                            f"; best ffmpeg shows OTHER source frames in {sel['bestDiffer']} output frames: information only"))
        if "floor" in r:
            notes.append(f"encoder floor {r['floor']:.2f} s ({100 * r['floorShare']:.0f} % of reencode's wall)")
        if "bound" in r:
            notes.append(f"bound (floor ∥ needed decoding + audio) {r['bound']:.2f} s = {r['boundRatio']:.2f} × ffmpeg; "
                         f"reencode {r['reencode']['wall'] / r['bound']:.2f} × the bound"
                         + (f" (paired {r['reencodeOverBoundPaired']:.2f})" if "reencodeOverBoundPaired" in r else ""))
        pairs = [(name, p) for name, p in (("ffmpeg", paired(r, "ffmpeg")), ("the best command", paired(r, "best"))) if p]
        if pairs:
            notes.append("paired (median over the rounds of each round's ratio): "
                         + ", ".join(f"wall {p['wall']:.2f}, CPU {p['cpu']:.2f} vs {name}" for name, p in pairs))
        if r.get("machine") and r["machine"].get("date") != meta.get("date"):
            m = r["machine"]
            notes.append(f"run of {m['date']}, median of {m['runs']}{' (quick inputs)' if m.get('quick') else ''}")
        if k == "k":
            notes += music_notes(r)
        elif k == "l":
            notes += xfade_notes(r)
        elif k == "m":
            notes += concat_notes(r)
        elif "timeline" in r:
            notes += slomo_notes(r)
        elif "outputs" in r:
            o = r["outputs"]
            notes.append(f"frames {o['reencode']['frames']} vs {o['ffmpeg']['frames']}")
        if "psnr" in r and r["psnr"]["reencode"]:
            notes.append(f"PSNR {r['psnr']['reencode']:.2f} vs {r['psnr']['ffmpeg']:.2f} dB"
                         + (f" (best ffmpeg {r['psnr']['best']:.2f})" if r["psnr"].get("best") else ""))
        if "rssTarget" in r:
            same = (r.get("selection") or {}).get("sameFrames")
            notes.append(f"targets: wall and CPU ≤ 1.0, peak RSS ≤ {r['rssTarget']:.2f} × ffmpeg's"
                         + ("" if same is None else "; every output frame shows " + ("the same source frame as ffmpeg's" if same else "NOT the source frame ffmpeg's shows")))
        if "throughputRatio" in r:
            notes.append(f"throughput {r['throughputRatio']:.2f}× the loop (target ≥ {1 / TARGETS['e']:.2f})")
        if "rssPerConversionRatio" in r:
            notes.append(f"RSS is {r['jobs']} conversions at once: {r['rssPerConversionRatio']:.2f} × ffmpeg's per conversion")
        tgt = f"≤ {r['target']:.2f}" if r.get("target") and k != "e" else ""

        def info(x):  # the best command's figures count only when it shows reencode's frames
            return x if best_ok else f"({x})"
        best_wall = info(f"{r['best']['wall']:.2f} s") if "best" in r else ""
        best_ratio = info(f"{r['bestRatio']['wall']:.2f}") if "bestRatio" in r else ""
        best_cpu = info(f"{r['bestRatio']['cpu']:.2f}") if "bestRatio" in r else ""
        bound = f"{r['bound']:.2f} s" if "bound" in r else ""
        lines.append(f"| ({k}) {r['title']} | {r['reencode']['wall']:.2f} s | {r['ffmpeg']['wall']:.2f} s | {best_wall} | {bound} | "
                     f"{r['ratio']['wall']:.2f} | {best_ratio} | {tgt} | {r['ratio']['cpu']:.2f} | {best_cpu} | {r['ratio']['rss']:.2f} | {'; '.join(notes)} |")
    lines += ["", "![ratios](latest.svg)", ""] if chart else [""]
    return lines


if __name__ == "__main__":
    sys.exit(main())
