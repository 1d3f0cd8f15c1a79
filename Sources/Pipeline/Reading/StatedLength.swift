import Foundation
import Recipe

/// What a file states of its own length, checked once a reader has read it to its end. A file cut
/// off between two samples ends quietly — its demuxer logs nothing, no sample is short — so only
/// what the file said it holds betrays the cut: a RIFF file's byte count (AVI, WAV) and the
/// length a header states (`Asset.statedEnd`: Matroska's and WebM's Duration, FLV's onMetaData,
/// FLAC's sample count, an MP3's Xing frame count). Ogg and MPEG program streams state no length,
/// but show how a whole one ends (`StreamEnds`): an Ogg stream's end-of-stream pages, an MPEG
/// program stream's last picture whole (or its end code). MPEG-TS states none and shows none, so
/// a cut between its packets cannot be known; MP4 and MOV are judged by their index.
struct StatedLength {
    /// The media's end the header states; nil where it states none.
    let end: MediaTime?
    let path: String
    /// FFmpeg's demuxer name (`ogg`, `mpeg` …).
    let container: String
    /// The latest end of a sample read (its time plus its length), on any track: the reader
    /// reads every track's packets where the header states a length, wanted or not, so a track
    /// that is not converted still shows where the file's media ends.
    private(set) var readEnd: MediaTime = .invalid
    /// The longest sample read: the slack allowed between the stated end and the last one's.
    private(set) var longest: MediaTime = .zero
    /// An MPEG program stream's last MPEG-1/2 picture read, and its picture height.
    private var lastPicture: (packet: Packet, height: Int)?

    init(end: MediaTime?, path: String, container: String) {
        self.end = end; self.path = path; self.container = container
    }

    /// Whether every track's packets must be read (not discarded by the demuxer) for the
    /// judgment: the stated end is the last track's, and a program stream's pictures show its end.
    var needsEveryTrack: Bool { end != nil || container == "mpeg" }

    mutating func saw(_ packet: Packet, stream: SourceStream, pts: MediaTime) {
        let duration = MediaTime(ts: packet.duration, timeBase: stream.timeBase)
        if container == "mpeg", stream.isMPEGVideo {
            // A reference, not a copy; where even that cannot be had, no judgment.
            lastPicture = (try? packet.reference()).map { ($0, stream.height) }
        }
        guard pts.isNumeric else { return }
        let d = duration.isNumeric && duration > .zero ? duration : .zero
        if d > longest { longest = d }
        if !readEnd.isNumeric || pts + d > readEnd { readEnd = pts + d }
    }

    /// Why the file is cut off, or nil when it holds what it states.
    func shortfall() -> String? {
        // A RIFF file's byte count says it exactly; its stream lengths may not (an AVI header
        // can count more frames than a whole file holds).
        if let (stated, size) = RIFFSize.stated(path) {
            return stated > size ? "it is \(size) bytes, but its RIFF header states \(stated)" : nil
        }
        let media = readEnd.isNumeric ? "its media ends at \(readEnd.secondsDescription)" : "it ends"
        if container == "ogg", let open = OggPages.unfinished(path), !open.isEmpty {
            let streams = open.map { String(format: "0x%08x", $0) }.joined(separator: ", ")
            return "\(media), but a whole Ogg stream ends each of its streams with an end-of-stream page, and its last page of stream \(streams) is not one"
        }
        if let (packet, height) = lastPicture, let (last, rows) = MPEGPicture.rows(packet.bytes, height: height),
           last < rows, !MPEGPicture.hasEndCode(path) {
            // A DVD title is split every 1 GiB wherever that falls: its parts are cut one by one.
            let dvd = FilePaths.pathExtension(of: path).lowercased() == "vob"
                ? "; a DVD title's VOB parts are split every 1 GiB wherever that falls: join them first (cat VTS_01_1.VOB VTS_01_2.VOB … > title.vob)" : ""
            return "\(media) inside a picture (its slices stop at row \(last) of \(rows)), and the program stream has no end code" + dvd
        }
        guard let end, readEnd.isNumeric else { return nil }
        // Two samples, or 0.1 s where they state no length: stated lengths are rounded (to the
        // millisecond), and a track's last sample may end a little before another's.
        let slack = longest > .zero ? longest * 2 : MediaTime(value: 1, timescale: 10)
        guard readEnd + slack < end else { return nil }
        return "\(media), but its header states \(end.secondsDescription)"
    }
}

/// The top-level chunks of a RIFF file (AVI, WAV; an OpenDML AVI over 1 GiB has several): each
/// states its size, so a file cut short is shorter than they say.
enum RIFFSize {
    /// (the bytes the chunks state — up to the end of the first that runs past the file's end,
    /// where one does — the file's size); nil when it is not RIFF or states an unknown size (0
    /// or 0xFFFFFFFF, as a writer that could not go back leaves it).
    static func stated(_ path: String) -> (stated: Int64, size: Int64)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let size = Int64(st.st_size)
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 8)
        var chunks = 0
        // Bounded: a hostile file of tiny chunks is not walked for ever.
        while offset + 8 <= size && chunks < 4096 {
            chunks += 1
            guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 8, off_t(offset)) }) == 8,
                  header[0..<4].elementsEqual("RIFF".utf8) else { break }
            let stated = Int64(header[4]) | Int64(header[5]) << 8 | Int64(header[6]) << 16 | Int64(header[7]) << 24
            if stated == 0 || stated == 0xFFFF_FFFF { return nil }
            let end = offset + 8 + stated + (stated & 1)
            // The last chunk's pad byte may be missing.
            if end > size + (stated & 1) { return (offset + 8 + stated, size) }
            offset = end
        }
        return offset > 0 ? (min(offset, size), size) : nil
    }
}
