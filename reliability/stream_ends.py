"""Cuts between the units of containers that state no length (issue 23 item 17, gaps of issue 23).

Ogg and MPEG program streams state no length, but show how a whole one ends: each Ogg logical
stream ends with an end-of-stream page, and an MPEG program stream cut between two packs ends
inside a picture (ffmpeg writes no program end code). gen_media.py's cuts after a whole sample
fall inside a page or a pack, where a short sample betrays them; these cut exactly between two
pages (Ogg) or two 2048-byte packs (MPEG-PS, as ffmpeg and DVDs write them), at about 1/4, 1/2
and 3/4 of the file. run.py's damage oracle judges them: exit 0 with an output under 90 % of the
whole file is "damage accepted".
"""


def unit_ends(data, ext):
    """Byte offsets where an Ogg page or an MPEG-PS pack ends (not the file's end); [] for other
    containers, or where the file is not a plain run of such units."""
    if ext == "mpg":
        if len(data) % 2048 or data[:4] != b"\x00\x00\x01\xba":
            return []
        return list(range(2048, len(data), 2048))
    if ext == "ogg":
        ends, i = [], 0
        while i + 27 <= len(data) and data[i:i + 4] == b"OggS":
            n = data[i + 26]
            i += 27 + n + sum(data[i + 27:i + 27 + n])
            ends.append(i)
        return ends[:-1] if i == len(data) else []
    return []


def add_unit_cuts(gen, base, stem, ext, data):
    """Adds `unitcut-STEM-qQ.EXT` cases to gen_media's Generator: `data` cut between two units."""
    ends = unit_ends(data, ext)
    for q in (1, 2, 3):
        n = max([e for e in ends if e <= len(data) * q // 4] or [0])
        if n:
            what = "pages" if ext == "ogg" else "packs"
            gen.add("truncate", f"unitcut-{stem}-q{q}.{ext}", f"{base} cut between two {what} at {q}/4 ({n} of {len(data)} bytes)",
                    "damaged", data[:n], base)
