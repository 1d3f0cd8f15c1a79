import Foundation
import Recipe

/// One rendition split into its init segment and media segments inside the package folder,
/// with what its playlists say of it.
struct RenditionSegments {
    struct Segment {
        /// On the rendition's main track's timeline (its first segment starts at 0), in `timescale` ticks.
        let start: UInt64
        /// Its tfdt: the decode time the muxer gave its first sample (DASH's `t`).
        let decodeTime: UInt64
        let duration: UInt64
        /// moof and mdat.
        let bytes: Int
        /// Its main track's first sample is a sync sample.
        let startsWithSync: Bool
    }

    let name: String
    let tracks: [FragmentedFile.Track]
    /// The track that times the segments: the first video track, else the first.
    let main: FragmentedFile.Track
    let timescale: UInt32
    let segments: [Segment]
    /// Video samples per second over the whole rendition, as samples per ticks; nil: no video.
    let frameRate: (samples: UInt64, ticks: UInt64)?

    var hasVideo: Bool { main.isVideo }
    var hasAudio: Bool { tracks.contains(where: \.isAudio) }
    func seconds(_ ticks: UInt64) -> Double { Double(ticks) / Double(timescale) }
    var duration: Double { seconds(segments.reduce(0) { $0 + $1.duration }) }
    /// The highest of its segments' bit rates (bits per second).
    var peakBitrate: Double { segments.map { Double($0.bytes * 8) / max(seconds($0.duration), 1e-9) }.max() ?? 0 }
    var averageBitrate: Double { Double(segments.reduce(0) { $0 + $1.bytes } * 8) / max(duration, 1e-9) }
    /// Frames per second.
    var framesPerSecond: Double? { frameRate.map { Double($0.samples) * Double(timescale) / Double($0.ticks) } }
    var audioTrack: FragmentedFile.Track? { tracks.first(where: \.isAudio) }
    var longestSegment: Double { segments.map { seconds($0.duration) }.max() ?? 0 }

    /// Splits `file` (the rendition's fragmented MP4) into `folder/init.mp4` and
    /// `folder/seg-N.m4s`, byte for byte as the muxer wrote them.
    static func split(_ file: String, into folder: String, name: String) throws(MediaError) -> RenditionSegments {
        let parsed = try FragmentedFile.read(file)
        guard let main = parsed.tracks.first(where: \.isVideo) ?? parsed.tracks.first else {
            throw ISOBoxes.malformed("it has no track", file)
        }
        for t in parsed.tracks where t.codec == nil {
            throw MediaError(.unsupported, "a playlist cannot name its \(t.sampleEntry) track's codec: a package takes H.264, HEVC and AAC", file: FilePaths.join(folder, "init.mp4"))
        }
        if mkdir(folder, 0o777) != 0 {
            let err = errno
            throw MediaError(.cannotCreateOutput, "cannot create the rendition's folder: \(String(cString: strerror(err)))", file: folder, code: .errno(err))
        }
        let fd = open(file, O_RDONLY)
        guard fd >= 0 else { throw ISOBoxes.malformed("it cannot be opened again", file) }
        defer { close(fd) }
        try copy(fd, parsed.header, to: FilePaths.join(folder, "init.mp4"), source: file)
        // Presentation times (decode time, the first sample's composition offset, less the
        // edit list's shift): what a player shows, so what the playlists say. The first segment
        // starts at 0 (AAC's priming before it is not shown).
        var starts: [Int64] = [], decodeTimes: [UInt64] = [], syncs: [Bool] = []
        var end: Int64 = 0
        for (k, fragment) in parsed.fragments.enumerated() {
            try copy(fd, fragment.bytes, to: FilePaths.join(folder, "seg-\(k + 1).m4s"), source: file)
            guard let run = fragment.runs.first(where: { $0.track == main.id }) else {
                throw ISOBoxes.malformed("fragment \(k + 1) has no samples of track \(main.id)", file)
            }
            let start = Int64(run.start) + run.firstOffset - main.presentationShift
            starts.append(k == 0 ? 0 : start)
            decodeTimes.append(run.start)
            syncs.append(run.startsWithSync)
            end = Int64(run.start) + Int64(run.duration) + run.firstOffset - main.presentationShift
        }
        var segments: [Segment] = []
        for k in starts.indices {
            let next = k + 1 < starts.count ? starts[k + 1] : end
            guard next > starts[k] else { throw ISOBoxes.malformed("segment \(k + 1) has no duration", file) }
            segments.append(Segment(start: UInt64(starts[k]), decodeTime: decodeTimes[k], duration: UInt64(next - starts[k]),
                                    bytes: parsed.fragments[k].bytes.count, startsWithSync: syncs[k]))
        }
        var frameRate: (samples: UInt64, ticks: UInt64)?
        if main.isVideo {
            let samples = parsed.fragments.flatMap(\.runs).filter { $0.track == main.id }.reduce(0) { $0 + $1.samples }
            let ticks = segments.reduce(0) { $0 + $1.duration }
            if ticks > 0 { frameRate = (UInt64(samples), ticks) }
        }
        return RenditionSegments(name: name, tracks: parsed.tracks, main: main, timescale: main.timescale, segments: segments, frameRate: frameRate)
    }

    /// Writes `range` of the file on `fd` to a new file `path`.
    private static func copy(_ fd: Int32, _ range: Range<Int>, to path: String, source: String) throws(MediaError) {
        let out = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o666)
        guard out >= 0 else {
            let err = errno
            throw ResourceShortage.error(err, "cannot create a segment", otherwise: .cannotCreateOutput, file: path)
        }
        defer { close(out) }
        let chunk = 1 << 20
        var at = range.lowerBound
        while at < range.upperBound {
            let bytes = try ISOBoxes.read(fd, offset: at, length: min(chunk, range.upperBound - at), file: source)
            var done = 0
            while done < bytes.count {
                let wrote = bytes.withUnsafeBytes { write(out, $0.baseAddress! + done, bytes.count - done) }
                if wrote < 0 {
                    let err = errno
                    if err == EINTR { continue }
                    throw ResourceShortage.error(err, "cannot write a segment", otherwise: .io, file: path)
                }
                done += wrote
            }
            at += bytes.count
        }
    }
}
