import Foundation
import Recipe

/// A fragmented MP4 as the writer made it for one rendition (ftyp, moov, then a moof and an mdat
/// per fragment, an mfra at the end), read for what a package needs: where the init segment and
/// each fragment lie, and each fragment's times and first samples per track.
struct FragmentedFile {
    /// One track of the moov.
    struct Track {
        let id: UInt32
        /// `vide`, `soun`, …
        let handler: String
        let timescale: UInt32
        /// The sample entry's codec, RFC 6381 (`CodecString`); nil: one a playlist cannot name.
        let codec: String?
        let sampleEntry: String
        /// Display size (tkhd) for video; channels for sound.
        let width: Int, height: Int, channels: Int
        /// trex's default sample duration and flags.
        let defaultDuration: UInt32, defaultFlags: UInt32
        /// Decode time minus presentation time at the track's start, in its timescale: the edit
        /// list's media time (AAC's priming, a B-frame delay) less any empty edit before it.
        let presentationShift: Int64
        var isVideo: Bool { handler == "vide" }
        var isAudio: Bool { handler == "soun" }
    }

    /// One track's run in one fragment.
    struct Run {
        let track: UInt32
        /// tfdt: the decode time of its first sample, in the track's timescale.
        let start: UInt64
        /// The sum of its samples' durations, in the track's timescale.
        let duration: UInt64
        let samples: Int
        /// Its first sample is a sync sample (an IDR for video).
        let startsWithSync: Bool
        /// Its first sample's composition offset (presentation minus decode time).
        let firstOffset: Int64
    }

    /// One moof and its mdat: the bytes of a media segment.
    struct Fragment {
        let bytes: Range<Int>
        let runs: [Run]
    }

    let path: String
    /// ftyp and moov: the init segment.
    let header: Range<Int>
    let tracks: [Track]
    let fragments: [Fragment]

    static func read(_ path: String) throws(MediaError) -> FragmentedFile {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            let err = errno
            throw MediaError(.io, "cannot open the written rendition: \(String(cString: strerror(err)))", file: path, code: .errno(err))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ISOBoxes.malformed("it cannot be measured", path) }
        let boxes = try ISOBoxes.topLevel(fd, length: Int(st.st_size), file: path)
        guard boxes.count >= 2, boxes[0].type == "ftyp", boxes[1].type == "moov" else {
            throw ISOBoxes.malformed("it does not start with ftyp and moov (\(boxes.prefix(2).map(\.type).joined(separator: ", ")))", path)
        }
        let moov = try ISOBoxes.read(fd, offset: boxes[1].offset, length: boxes[1].size, file: path)
        let tracks = try Self.tracks(moov, file: path)
        var fragments: [Fragment] = []
        var k = 2
        while k < boxes.count, boxes[k].type == "moof" {
            guard k + 1 < boxes.count, boxes[k + 1].type == "mdat" else { throw ISOBoxes.malformed("fragment \(fragments.count + 1) has no mdat after its moof", path) }
            let moof = try ISOBoxes.read(fd, offset: boxes[k].offset, length: boxes[k].size, file: path)
            fragments.append(Fragment(bytes: boxes[k].offset..<boxes[k + 1].end, runs: try runs(moof, tracks: tracks, file: path)))
            k += 2
        }
        // What may follow the fragments: the random access index, or padding.
        if let other = boxes[k...].first(where: { !["mfra", "free", "skip"].contains($0.type) }) {
            throw ISOBoxes.malformed("a \(other.type) box follows the fragments", path)
        }
        guard !fragments.isEmpty else { throw ISOBoxes.malformed("it holds no fragment", path) }
        return FragmentedFile(path: path, header: boxes[0].offset..<boxes[1].end, tracks: tracks, fragments: fragments)
    }

    /// The tracks of `moov` (its bytes, header included).
    private static func tracks(_ moov: [UInt8], file: String) throws(MediaError) -> [Track] {
        let top = 0..<moov.count
        guard let inside = ISOBoxes.children(moov, ISOBoxes.child("moov", moov, top).map { $0.payload } ?? top) else {
            throw ISOBoxes.malformed("its moov cannot be read", file)
        }
        var defaults: [UInt32: (UInt32, UInt32)] = [:]
        if let mvex = inside.first(where: { $0.type == "mvex" }) {
            for trex in ISOBoxes.children(moov, mvex.payload) ?? [] where trex.type == "trex" && trex.size >= 32 {
                let p = trex.payload.lowerBound
                defaults[ISOBoxes.be32(moov, p + 4)] = (ISOBoxes.be32(moov, p + 12), ISOBoxes.be32(moov, p + 20))
            }
        }
        var movieTimescale: UInt32 = 1000
        if let mvhd = inside.first(where: { $0.type == "mvhd" }) {
            let p = mvhd.payload.lowerBound
            movieTimescale = ISOBoxes.be32(moov, p + (moov[p] == 1 ? 20 : 12))
        }
        var tracks: [Track] = []
        for trak in inside where trak.type == "trak" {
            guard let track = Self.track(moov, trak, defaults: defaults, movieTimescale: movieTimescale) else { throw ISOBoxes.malformed("track \(tracks.count + 1) of its moov cannot be read", file) }
            tracks.append(track)
        }
        return tracks
    }

    private static func track(_ b: [UInt8], _ trak: ISOBox, defaults: [UInt32: (UInt32, UInt32)], movieTimescale: UInt32) -> Track? {
        guard let tkhd = ISOBoxes.child("tkhd", b, trak.payload), let mdia = ISOBoxes.child("mdia", b, trak.payload),
              let mdhd = ISOBoxes.child("mdhd", b, mdia.payload), let hdlr = ISOBoxes.child("hdlr", b, mdia.payload),
              let minf = ISOBoxes.child("minf", b, mdia.payload), let stbl = ISOBoxes.child("stbl", b, minf.payload),
              let stsd = ISOBoxes.child("stsd", b, stbl.payload) else { return nil }
        let t = tkhd.payload.lowerBound, m = mdhd.payload.lowerBound
        let id = ISOBoxes.be32(b, t + (b[t] == 1 ? 20 : 12))
        let timescale = ISOBoxes.be32(b, m + (b[m] == 1 ? 20 : 12))
        let handler = String(decoding: b[(hdlr.payload.lowerBound + 8)..<(hdlr.payload.lowerBound + 12)], as: UTF8.self)
        // The display size: tkhd's last 8 bytes, 16.16 fixed point.
        let width = Int(ISOBoxes.be32(b, tkhd.end - 8) >> 16), height = Int(ISOBoxes.be32(b, tkhd.end - 4) >> 16)
        guard let entry = ISOBoxes.children(b, (stsd.payload.lowerBound + 8)..<stsd.end)?.first else { return nil }
        var channels = 0
        if handler == "soun", entry.size >= 8 + 20 { channels = Int(ISOBoxes.be16(b, entry.payload.lowerBound + 16)) }
        let (duration, flags) = defaults[id] ?? (0, 0)
        let shift = ISOBoxes.child("edts", b, trak.payload).map { presentationShift(b, $0, timescale: timescale, movieTimescale: movieTimescale) } ?? 0
        return Track(id: id, handler: handler, timescale: timescale, codec: CodecString.of(b, entry: entry, handler: handler),
                     sampleEntry: entry.type, width: width, height: height, channels: channels, defaultDuration: duration, defaultFlags: flags,
                     presentationShift: shift)
    }

    /// The edit list's (edts/elst) media time of its first edit that shows media, less the
    /// empty edits before it (in the movie's timescale, converted), in the track's timescale.
    private static func presentationShift(_ b: [UInt8], _ edts: ISOBox, timescale: UInt32, movieTimescale: UInt32) -> Int64 {
        guard let elst = ISOBoxes.child("elst", b, edts.payload) else { return 0 }
        let p = elst.payload.lowerBound
        let wide = b[p] == 1
        let count = Int(ISOBoxes.be32(b, p + 4))
        var at = p + 8, empty: Int64 = 0
        for _ in 0..<count {
            let size = wide ? 20 : 12
            guard at + size <= elst.end else { break }
            let duration = wide ? Int64(bitPattern: ISOBoxes.be64(b, at)) : Int64(ISOBoxes.be32(b, at))
            let media = wide ? Int64(bitPattern: ISOBoxes.be64(b, at + 8)) : Int64(Int32(bitPattern: ISOBoxes.be32(b, at + 4)))
            if media >= 0 { return media - empty }
            empty += duration * Int64(timescale) / Int64(max(movieTimescale, 1))
            at += size
        }
        return 0
    }

    /// Each traf of `moof` as a run: tfhd, tfdt and its truns.
    private static func runs(_ b: [UInt8], tracks: [Track], file: String) throws(MediaError) -> [Run] {
        guard let moof = ISOBoxes.children(b, 0..<b.count)?.first, let trafs = ISOBoxes.children(b, moof.payload) else {
            throw ISOBoxes.malformed("a moof cannot be read", file)
        }
        var runs: [Run] = []
        for traf in trafs where traf.type == "traf" {
            guard let boxes = ISOBoxes.children(b, traf.payload), let tfhd = boxes.first(where: { $0.type == "tfhd" }),
                  let tfdt = boxes.first(where: { $0.type == "tfdt" }) else { throw ISOBoxes.malformed("a traf has no tfhd or tfdt", file) }
            var p = tfhd.payload.lowerBound
            let hflags = ISOBoxes.be32(b, p) & 0xFFFFFF
            let id = ISOBoxes.be32(b, p + 4)
            let track = tracks.first { $0.id == id }
            var duration = track?.defaultDuration ?? 0, flags = track?.defaultFlags ?? 0
            p += 8
            if hflags & 0x1 != 0 { p += 8 }
            if hflags & 0x2 != 0 { p += 4 }
            if hflags & 0x8 != 0 { duration = ISOBoxes.be32(b, p); p += 4 }
            if hflags & 0x10 != 0 { p += 4 }
            if hflags & 0x20 != 0 { flags = ISOBoxes.be32(b, p) }
            let d = tfdt.payload.lowerBound
            let start = b[d] == 1 ? ISOBoxes.be64(b, d + 4) : UInt64(ISOBoxes.be32(b, d + 4))
            var total: UInt64 = 0, samples = 0, firstSync: Bool?, firstOffset: Int64?
            for trun in boxes where trun.type == "trun" {
                var q = trun.payload.lowerBound
                let rflags = ISOBoxes.be32(b, q) & 0xFFFFFF
                let count = Int(ISOBoxes.be32(b, q + 4))
                q += 8
                if rflags & 0x1 != 0 { q += 4 }
                var first: UInt32?
                if rflags & 0x4 != 0 { first = ISOBoxes.be32(b, q); q += 4 }
                for s in 0..<count {
                    var sampleFlags = s == 0 ? (first ?? flags) : flags
                    if rflags & 0x100 != 0 { total += UInt64(ISOBoxes.be32(b, q)); q += 4 } else { total += UInt64(duration) }
                    if rflags & 0x200 != 0 { q += 4 }
                    if rflags & 0x400 != 0 { sampleFlags = ISOBoxes.be32(b, q); q += 4 }
                    if rflags & 0x800 != 0 {
                        // Version 1: signed offsets.
                        let raw = ISOBoxes.be32(b, q)
                        if firstOffset == nil { firstOffset = b[trun.payload.lowerBound] == 1 ? Int64(Int32(bitPattern: raw)) : Int64(raw) }
                        q += 4
                    }
                    guard q <= trun.end else { throw ISOBoxes.malformed("a trun is shorter than its samples", file) }
                    // sample_is_non_sync_sample (ISO/IEC 14496-12 §8.8.3.1).
                    if firstSync == nil { firstSync = sampleFlags & 0x10000 == 0 }
                }
                samples += count
            }
            runs.append(Run(track: id, start: start, duration: total, samples: samples, startsWithSync: firstSync ?? false, firstOffset: firstOffset ?? 0))
        }
        return runs
    }
}
