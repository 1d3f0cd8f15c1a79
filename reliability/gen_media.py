#!/usr/bin/env python3
"""Hostile-media generator: a few hundred damaged, odd or unusable "media" files, deterministic.

    reliability/gen_media.py --out DIR [--seed N] [--bench PATH] [--base DIR]

Small valid bases are made with the project's own writer (`reencode-bench make-source`): mp4, mov,
mkv (video 160x120 30 fps + AAC) and m4a (AAC only); the others (MPEG-TS, AVI, FLV, WebM, MPEG-PS,
WAV, FLAC, MP3, Ogg) are the mp4 converted by the ffmpeg command line (FFMPEG_BASES). Every hostile file is derived from a base
with a seeded random generator, so the same seed gives the same bytes.

Writes DIR/cases/* and DIR/manifest.json: one entry per case with its family, a description and its
input class, which decides the exit codes the runner accepts (see run.py).
Python 3 standard library only.
"""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys

from stream_ends import add_unit_cuts

BASES = [
    # name, make-source arguments
    ("v.mp4", ["--seconds", "2", "--width", "160", "--height", "120", "--fps", "30"]),
    ("v.mov", ["--seconds", "2", "--width", "160", "--height", "120", "--fps", "30"]),
    ("v.mkv", ["--seconds", "2", "--width", "160", "--height", "120", "--fps", "30"]),
    ("a.m4a", ["--seconds", "2", "--audio-only"]),
]

# The other containers people bring (issue 23 item 17), made from v.mp4 by the ffmpeg command line
# (the project's writer makes only MP4, MOV, Matroska and M4A): name, ffmpeg output arguments.
FFMPEG_BASES = [
    ("v.ts", ["-c", "copy", "-f", "mpegts"]),
    ("v.avi", ["-c:v", "mpeg4", "-c:a", "libmp3lame"]),
    ("v.flv", ["-c:v", "flv1", "-c:a", "libmp3lame", "-ar", "44100"]),
    ("v.webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"]),
    ("v.mpg", ["-c:v", "mpeg2video", "-c:a", "mp2", "-f", "vob"]),
    ("a.wav", ["-vn", "-c:a", "pcm_s16le"]),
    ("a.flac", ["-vn", "-c:a", "flac"]),
    ("a.mp3", ["-vn", "-c:a", "libmp3lame"]),
    ("a.ogg", ["-vn", "-c:a", "libvorbis"]),
]

# Containers that state no length and show no end: their lengths are read from their last
# timestamps, so a file cut between two samples is a shorter valid file (docs/reliability.md). The
# runner does not call a short output from one of these "damage accepted". (Ogg and MPEG-PS state
# none either, but show how a whole one ends: stream_ends.py.)
STATES_NO_LENGTH = {"ts"}

ISO_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf", b"udta", b"mvex"}


def make_bases(bench, base_dir):
    os.makedirs(base_dir, exist_ok=True)
    for name, extra in BASES:
        path = os.path.join(base_dir, name)
        if not os.path.exists(path):
            subprocess.run([bench, "make-source", *extra, path], check=True)
    for name, args in FFMPEG_BASES:
        path = os.path.join(base_dir, name)
        if not os.path.exists(path) and shutil.which("ffmpeg"):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(base_dir, "v.mp4"), *args, path], check=True)
    return sorted(n for n in os.listdir(base_dir) if not n.startswith("."))


def sample_ends(path):
    """Byte offsets where a sample (packet) ends, in file order, as ffprobe lists them ([] without it)."""
    if not shutil.which("ffprobe"):
        return []
    r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "packet=pos,size", "-of", "csv=p=0", path],
                       capture_output=True, text=True)
    ends = []
    for line in r.stdout.split("\n"):
        parts = line.strip().split(",")
        if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
            ends.append(int(parts[0]) + int(parts[1]))
    return sorted(set(ends))


def iso_boxes(data, start=0, end=None, path=()):
    """Yields (path, offset, size, header_size) for every box, descending into containers."""
    end = len(data) if end is None else end
    i = start
    while i + 8 <= end:
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        header = 8
        if size == 1 and i + 16 <= end:
            size = struct.unpack(">Q", data[i + 8:i + 16])[0]
            header = 16
        elif size == 0:
            size = end - i
        if size < header or i + size > end:
            return
        yield (path + (kind,), i, size, header)
        if kind in ISO_CONTAINERS:
            yield from iso_boxes(data, i + header, i + size, path + (kind,))
        elif kind == b"stsd":
            pass
        i += size


def find_boxes(data, kind):
    return [(o, s, h) for (p, o, s, h) in iso_boxes(data) if p[-1] == kind]


# Full-box field patches: (box, description, function(data, offset, header) -> list of (pos, bytes)).
def _fullbox_version(data, o, h):
    return data[o + h]


def patch_mvhd_like(field):
    """mvhd/mdhd: version 0 = creation(4) modification(4) timescale(4) duration(4);
    version 1 = creation(8) modification(8) timescale(4) duration(8)."""
    def f(data, o, h, value):
        v = _fullbox_version(data, o, h)
        base = o + h + 4
        if field == "timescale":
            pos = base + (16 if v == 1 else 8)
            return [(pos, struct.pack(">I", value & 0xFFFFFFFF))]
        pos = base + (20 if v == 1 else 12)
        return [(pos, struct.pack(">Q", value & (2**64 - 1)) if v == 1 else struct.pack(">I", value & 0xFFFFFFFF))]
    return f


def patch_tkhd_duration(data, o, h, value):
    v = _fullbox_version(data, o, h)
    base = o + h + 4
    # v0: creation(4) modification(4) track_id(4) reserved(4) duration(4); v1: 8 8 4 4 8
    pos = base + (24 if v == 1 else 16)
    return [(pos, struct.pack(">Q", value & (2**64 - 1)) if v == 1 else struct.pack(">I", value & 0xFFFFFFFF))]


def patch_table_entry(entry_size, field_offset, width, index=0):
    """stts/ctts/stsz/stco/elst-like tables: version+flags(4) count(4) entries."""
    def f(data, o, h, value):
        pos = o + h + 8 + index * entry_size + field_offset
        if pos + width > o + struct.unpack(">I", data[o:o + 4])[0]:
            return []
        fmt = {4: ">I", 8: ">Q"}[width]
        return [(pos, struct.pack(fmt, value & (2 ** (8 * width) - 1)))]
    return f


def patch_count(data, o, h, value):
    return [(o + h + 4, struct.pack(">I", value & 0xFFFFFFFF))]


def patch_stsz_size(data, o, h, value):
    # version+flags(4) sample_size(4) count(4) entries(4 each)
    if struct.unpack(">I", data[o + h + 4:o + h + 8])[0] != 0:
        return [(o + h + 4, struct.pack(">I", value & 0xFFFFFFFF))]
    return [(o + h + 12, struct.pack(">I", value & 0xFFFFFFFF))]


def patch_elst(field):
    def f(data, o, h, value):
        v = _fullbox_version(data, o, h)
        base = o + h + 8
        if v == 1:   # segment_duration(8) media_time(8) rate(4)
            pos, fmt, mask = base + (0 if field == "duration" else 8), ">Q", 2**64 - 1
        else:        # segment_duration(4) media_time(4) rate(4)
            pos, fmt, mask = base + (0 if field == "duration" else 4), ">I", 2**32 - 1
        return [(pos, struct.pack(fmt, value & mask))]
    return f


BIG64 = 2**63 - 1
ISO_PATCHES = [
    ("mvhd", "timescale=0", patch_mvhd_like("timescale"), 0),
    ("mvhd", "timescale=1", patch_mvhd_like("timescale"), 1),
    ("mvhd", "duration=2^63-1", patch_mvhd_like("duration"), BIG64),
    ("mvhd", "duration=-1", patch_mvhd_like("duration"), -1),
    ("tkhd", "duration=2^63-1", patch_tkhd_duration, BIG64),
    ("mdhd", "timescale=0", patch_mvhd_like("timescale"), 0),
    ("mdhd", "timescale=1", patch_mvhd_like("timescale"), 1),
    ("mdhd", "timescale=2^32-1", patch_mvhd_like("timescale"), 2**32 - 1),
    ("mdhd", "duration=2^63-1", patch_mvhd_like("duration"), BIG64),
    ("stts", "delta=2^32-1", patch_table_entry(8, 4, 4), 2**32 - 1),
    ("stts", "delta=0", patch_table_entry(8, 4, 4), 0),
    ("stts", "count=2^31", patch_table_entry(8, 0, 4), 2**31),
    ("stts", "entries=2^32-1", patch_count, 2**32 - 1),
    ("ctts", "offset=2^31-1", patch_table_entry(8, 4, 4), 2**31 - 1),
    ("ctts", "offset=-2^31", patch_table_entry(8, 4, 4), -(2**31)),
    ("elst", "segment_duration=2^63-1", patch_elst("duration"), BIG64),
    ("elst", "media_time=2^62", patch_elst("media_time"), 2**62),
    ("elst", "media_time=-2", patch_elst("media_time"), -2),
    ("stsz", "sample_size=2^31", patch_stsz_size, 2**31),
    ("stsz", "entries=2^32-1", lambda d, o, h, v: [(o + h + 8, struct.pack(">I", v))], 2**32 - 1),
    ("stco", "offset=2^32-1", patch_table_entry(4, 0, 4), 2**32 - 1),
    ("stco", "entries=2^30", patch_count, 2**30),
    ("stsc", "samples_per_chunk=2^32-1", patch_table_entry(12, 4, 4), 2**32 - 1),
    ("stsc", "first_chunk=0", patch_table_entry(12, 0, 4), 0),
]

# Matroska elements found by ID (a simple byte search is enough on our own small files).
MKV_PATCHES = [
    (b"\x2a\xd7\xb1", "TimecodeScale", [b"\x88" + b"\x00" * 8, b"\x88" + b"\xff" * 8, b"\x81\x01"]),
    (b"\x44\x89", "Duration", [b"\x88" + struct.pack(">d", float("inf")), b"\x88" + struct.pack(">d", float("nan")),
                               b"\x88" + struct.pack(">d", -1e300), b"\x88" + struct.pack(">d", 9e18)]),
    (b"\x23\xe3\x83", "DefaultDuration", [b"\x84" + b"\x00" * 4, b"\x84" + b"\xff" * 4]),
]


class Generator:
    def __init__(self, out, bases, base_dir, seed):
        self.out = out
        self.cases_dir = os.path.join(out, "cases")
        self.bases = bases
        self.base_dir = base_dir
        self.rng = random.Random(seed)
        self.manifest = []

    def data(self, base):
        with open(os.path.join(self.base_dir, base), "rb") as f:
            return f.read()

    def add(self, family, name, desc, klass, data=None, base=None):
        path = os.path.join(self.cases_dir, name)
        if data is not None:
            with open(path, "wb") as f:
                f.write(data)
        self.manifest.append({"name": name, "family": family, "description": desc, "class": klass,
                              "base": base, "size": len(data) if data is not None else None,
                              "states_length": not (base or name).endswith(tuple("." + e for e in STATES_NO_LENGTH))})

    def generate(self):
        os.makedirs(self.cases_dir, exist_ok=True)
        for base in self.bases:
            stem, ext = base.rsplit(".", 1)
            d = self.data(base)
            # A valid control per base: the runner must see exit 0 and an output here.
            self.add("valid", f"valid-{stem}.{ext}", f"unchanged {base}", "valid", d, base)
            # Truncations at k/21 of the length (the MKV defect is at 1/21-3/21).
            for k in range(1, 21):
                n = len(d) * k // 21
                self.add("truncate", f"trunc-{stem}-{k:02d}of21.{ext}", f"{base} cut to {k}/21 ({n} of {len(d)} bytes)",
                         "damaged", d[:n], base)
            # Cuts between two samples, at about 1/4, 1/2 and 3/4: no sample is short, so only
            # what the container states of its length betrays them.
            ends = sample_ends(os.path.join(self.base_dir, base))
            for q in (1, 2, 3):
                n = max([e for e in ends if e <= len(d) * q // 4] or [0])
                n += n & 1 if ext in ("avi", "wav") else 0  # RIFF chunks are padded to even sizes
                if 0 < n < len(d):
                    self.add("truncate", f"cut-{stem}-q{q}.{ext}", f"{base} cut after a sample at {q}/4 ({n} of {len(d)} bytes)",
                             "damaged", d[:n], base)
            add_unit_cuts(self, base, stem, ext, d)  # between Ogg pages, MPEG-PS packs (stream_ends.py)
            # Bit flips: 1-32 random bits anywhere.
            for i in range(10):
                b = bytearray(d)
                flips = self.rng.choice([1, 2, 4, 8, 32])
                where = []
                for _ in range(flips):
                    pos = self.rng.randrange(len(b))
                    bit = self.rng.randrange(8)
                    b[pos] ^= 1 << bit
                    where.append(f"{pos}:{bit}")
                self.add("bitflip", f"flip-{stem}-{i:02d}.{ext}", f"{base} with {flips} bits flipped ({' '.join(where[:4])}{' …' if flips > 4 else ''})",
                         "damaged", bytes(b), base)
            # Zeroed ranges: small and large, at the start, middle and end.
            for i in range(6):
                b = bytearray(d)
                length = self.rng.choice([16, 256, 4096, len(d) // 4])
                start = [0, len(d) // 2, max(0, len(d) - length)][i % 3] if i < 3 else self.rng.randrange(len(d))
                b[start:start + length] = bytes(min(length, len(d) - start))
                self.add("zeroed", f"zero-{stem}-{i}.{ext}", f"{base} with bytes {start}..{start + length} zeroed",
                         "damaged", bytes(b), base)
            # Header corruption: the first bytes garbled in four ways.
            for i, (how, fn) in enumerate([
                ("first 8 bytes random", lambda b: bytes(self.rng.randrange(256) for _ in range(8)) + b[8:]),
                ("first 64 bytes zero", lambda b: bytes(64) + b[64:]),
                ("first 1 KiB shuffled", lambda b: bytes(self.rng.sample(list(b[:1024]), len(b[:1024]))) + b[1024:]),
                ("a 4 KiB random prefix", lambda b: bytes(self.rng.randrange(256) for _ in range(4096)) + b),
            ]):
                self.add("header", f"head-{stem}-{i}.{ext}", f"{base}: {how}", "damaged", fn(d), base)
            if ext in ("mp4", "mov", "m4a"):
                self.iso_patches(base, stem, ext, d)
            if ext == "mkv":
                self.mkv_patches(base, stem, ext, d)
            # The first 100 bytes of a real file: a header and nothing else.
            self.add("tiny", f"first100-{stem}.{ext}", f"the first 100 bytes of {base}", "notmedia", d[:100], base)

        exts = ["mp4", "mov", "mkv", "m4a", "ts"]
        for ext in exts:
            self.add("tiny", f"empty.{ext}", "0 bytes", "notmedia", b"")
            self.add("tiny", f"one.{ext}", "1 byte", "notmedia", b"\x00")
            self.add("tiny", f"hundred.{ext}", "100 random bytes", "notmedia", bytes(self.rng.randrange(256) for _ in range(100)))
            for size in (1024, 65536):
                self.add("random", f"random-{size}.{ext}", f"{size} random bytes", "notmedia",
                         bytes(self.rng.randrange(256) for _ in range(size)))
            self.add("random", f"text.{ext}", "a text file", "notmedia", b"this is not media\n" * 20)
            self.add("random", f"yaml.{ext}", "a recipe", "notmedia", b"recipe: 1\nname: x\n")
        # Valid media under a wrong extension: content decides, so these convert.
        swaps = [("v.mp4", "mkv"), ("v.mkv", "mp4"), ("a.m4a", "mov"), ("v.mov", "m4a"), ("v.ts", "mp4"),
                 ("v.mp4", "ts"), ("v.mkv", "avi"), ("v.mp4", "MP4")]
        for base, ext in swaps:
            if base in self.bases:
                self.add("wrongext", f"wrongext-{base.replace('.', '-')}.{ext}", f"valid {base} named .{ext}", "valid",
                         self.data(base), base)
        self.specials()
        with open(os.path.join(self.out, "manifest.json"), "w") as f:
            json.dump({"cases": self.manifest}, f, indent=1)
        return len(self.manifest)

    def iso_patches(self, base, stem, ext, d):
        for box, desc, fn, value in ISO_PATCHES:
            found = find_boxes(d, box.encode())
            if not found:
                continue
            b = bytearray(d)
            applied = 0
            for (o, s, h) in found:  # every track, so the patched value cannot be avoided
                for pos, raw in fn(d, o, h, value):
                    b[pos:pos + len(raw)] = raw
                    applied += 1
            if applied:
                self.add("boxes", f"box-{stem}-{box}-{desc.replace('=', '_').replace('^', 'p')}.{ext}",
                         f"{base}: {box} {desc} ({len(found)} boxes)", "damaged", bytes(b), base)

    def mkv_patches(self, base, stem, ext, d):
        for eid, name, values in MKV_PATCHES:
            pos = d.find(eid)
            if pos < 0:
                continue
            # Replace the element's size and value.
            size_byte = d[pos + len(eid)]
            old_len = 1 + (size_byte & 0x7F if size_byte & 0x80 else 0)
            for i, v in enumerate(values):
                # A longer value shifts what follows (parents' sizes go wrong too: hostile either way).
                pad = bytes(max(0, old_len - len(v)))
                b = d[:pos + len(eid)] + v + pad + d[pos + len(eid) + old_len:]
                self.add("boxes", f"ebml-{stem}-{name}-{i}.{ext}", f"{base}: {name} set to {v.hex()}", "damaged", b, base)

    def specials(self):
        c = self.cases_dir
        fifo = os.path.join(c, "fifo.mp4")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        self.add("special", "fifo.mp4", "a FIFO named .mp4 (nobody writes to it)", "special")
        os.makedirs(os.path.join(c, "dir.mp4"), exist_ok=True)
        self.add("special", "dir.mp4", "a directory named .mp4", "special")
        for a, b in (("loop-a.mp4", "loop-b.mp4"), ("loop-b.mp4", "loop-a.mp4")):
            if not os.path.lexists(os.path.join(c, a)):
                os.symlink(b, os.path.join(c, a))
        self.add("special", "loop-a.mp4", "a symlink loop", "special")
        if not os.path.lexists(os.path.join(c, "dangling.mp4")):
            os.symlink("does-not-exist.mp4", os.path.join(c, "dangling.mp4"))
        self.add("special", "dangling.mp4", "a dangling symlink", "special")
        if not os.path.lexists(os.path.join(c, "zero-device.mp4")):
            os.symlink("/dev/zero", os.path.join(c, "zero-device.mp4"))
        self.add("special", "zero-device.mp4", "a symlink to /dev/zero (endless input)", "special")
        if not os.path.lexists(os.path.join(c, "null-device.mp4")):
            os.symlink("/dev/null", os.path.join(c, "null-device.mp4"))
        self.add("special", "null-device.mp4", "a symlink to /dev/null", "special")
        path = os.path.join(c, "unreadable.mp4")
        if "v.mp4" in self.bases:
            shutil.copyfile(os.path.join(self.base_dir, "v.mp4"), path)
            os.chmod(path, 0)
            # root reads anything: say so, the runner then expects a conversion.
            klass = "valid" if os.geteuid() == 0 else "special"
            self.add("special", "unreadable.mp4", "a valid mp4 with mode 000" + (" (root: readable)" if klass == "valid" else ""), klass)
        if not os.path.lexists(os.path.join(c, "missing.mp4")):
            self.add("special", "missing.mp4", "a file that does not exist", "special")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bench", default=os.path.join(repo, ".build/release/reencode-bench"))
    p.add_argument("--base", help="folder for the valid bases (default OUT/base; reused when present)")
    a = p.parse_args()
    base_dir = a.base or os.path.join(a.out, "base")
    cases = os.path.join(a.out, "cases")
    if os.path.isdir(cases):
        # Make the folder writable again (unreadable.mp4) and start clean: same seed, same bytes.
        for root, dirs, files in os.walk(cases):
            for n in files:
                p2 = os.path.join(root, n)
                if not os.path.islink(p2):
                    os.chmod(p2, 0o644)
        shutil.rmtree(cases)
    bases = make_bases(a.bench, base_dir)
    n = Generator(a.out, bases, base_dir, a.seed).generate()
    print(f"{n} hostile media cases in {cases} (seed {a.seed}, bases: {' '.join(bases)})")


if __name__ == "__main__":
    sys.exit(main())
