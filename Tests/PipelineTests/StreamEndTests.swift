import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Files cut off where no sample is short, judged by how a whole one ends (issue 23 item 17):
/// an Ogg stream cut between two pages lacks its end-of-stream page; an MPEG program stream cut
/// between two packs (as ffmpeg writes them, with no end code) ends inside a picture. And a file
/// whose header states its length is judged by it even when only some of its tracks are
/// converted. Each cut fails as cut off (exit 1), naming the file and a time within it, nothing
/// written; each whole file converts, every track and each alone.
@Suite("Cut between pages, packs, or with tracks left unread")
struct StreamEndTests {
    /// Extension → ffmpeg arguments (from our writer's MP4), whether it has pictures, and what
    /// the refusal says of the file's end.
    static let containers: [String: (args: [String], video: Bool, says: String)] = [
        // Pages of 0.2 s (ffmpeg's default is 1 s): several pages of sound to cut between.
        "ogg": (["-vn", "-c:a", "libvorbis", "-page_duration", "200000"], false, "a whole Ogg stream ends each of its streams with an end-of-stream page"),
        "ogv": (["-c:v", "libtheora", "-q:v", "5", "-c:a", "libvorbis"], true, "a whole Ogg stream ends each of its streams with an end-of-stream page"),
        // Pictures of several packs: at a low bit rate ffmpeg ends each picture with its pack
        // (padded), and a cut there, where a picture ends, cannot be known.
        "mpg": (["-c:v", "mpeg2video", "-q:v", "2", "-c:a", "mp2", "-f", "vob"], true, "inside a picture (its slices stop at row"),
    ]

    /// Where a page (Ogg) or a pack (MPEG-PS: ffmpeg writes 2048-byte packs) ends, or a
    /// Matroska cluster starts (its demuxer ends quietly there), before the file's end.
    static func unitEnds(_ path: String, ext: String) throws -> [Int] {
        let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        if ext == "mpg" {
            try #require(d.count % 2048 == 0, "ffmpeg's program stream is not in 2048-byte packs")
            return Array(stride(from: 2048, to: d.count, by: 2048))
        }
        if ext == "mkv" || ext == "webm" {
            return (1..<(d.count - 4)).filter { d[$0] == 0x1F && d[$0 + 1] == 0x43 && d[$0 + 2] == 0xB6 && d[$0 + 3] == 0x75 }.dropFirst().map { $0 }
        }
        var ends: [Int] = [], i = 0
        while i + 27 <= d.count, d[i..<(i + 4)].elementsEqual("OggS".utf8) {
            let n = Int(d[i + 26])
            i += 27 + n + d[(i + 27)..<(i + 27 + n)].reduce(0) { $0 + Int($1) }
            ends.append(i)
        }
        try #require(i == d.count, "\(path): not a run of Ogg pages")
        // Not the headers' pages (each stream's first two or three), nor the file's end.
        return Array(ends.dropFirst(ext == "ogv" ? 5 : 2).dropLast())
    }

    static func convert(_ src: String, _ out: String, video: Bool, audio: Bool = true) throws {
        var tracks: [TrackRequest] = []
        if video { tracks.append(TrackRequest(.type(.video, 0), .video(.fast()))) }
        if audio { tracks.append(TrackRequest(.type(.audio, 0), .audio(AudioSettings()))) }
        try runConversion(ConversionRequest(source: src, output: out, tracks: tracks))
    }

    static func make(_ ext: String, args: [String], in dir: Scratch) throws -> String {
        let made = dir.file("made.mp4")
        if !FileManager.default.fileExists(atPath: made) { try DamageTests.source(made) }
        let src = dir.file("whole.\(ext)")
        try #require(try FFmpegCLI.run(["-i", made] + args + [src]), "ffmpeg (scripts/setup.sh installs it) could not make \(ext)")
        return src
    }

    /// Converting `cut` fails as cut off, saying `says`, at a time within `whole`; nothing written.
    static func expectCutOff(_ cut: String, whole: TimeRange, says: String, video: Bool, audio: Bool = true, _ what: String) throws {
        let out = cut + (video ? ".v" : "") + (audio ? ".a" : "") + ".mp4"
        do {
            try convert(cut, out, video: video, audio: audio)
            Issue.record("\(what): converted")
        } catch let e as MediaError {
            #expect(e.kind == .processing && e.exitCode == 1, "\(what): \(e)")
            #expect(e.file == cut, "\(what): \(e)")
            #expect(e.time.map { whole.contains($0) } == true, "\(what): \(e)")
            #expect(e.message.hasPrefix("the file is truncated or damaged"), "\(what): \(e)")
            #expect(says.isEmpty || e.message.contains(says), "\(what): \(e)")
        }
        #expect(!FileManager.default.fileExists(atPath: out), "\(what): left an output")
    }

    @Test("Ogg (Vorbis; Theora and Vorbis) cut between pages, MPEG-PS cut between packs, at 1/4, 1/2, 3/4: fails as cut off; the whole file converts",
          arguments: ["ogg", "ogv", "mpg"])
    func cutBetweenUnits(ext: String) throws {
        let c = try #require(Self.containers[ext])
        let dir = Scratch()
        let src = try Self.make(ext, args: c.args, in: dir)
        try Self.convert(src, dir.file("whole-ok.mp4"), video: c.video)
        if c.video { try Self.convert(src, dir.file("whole-audio.mp4"), video: false) }
        let whole = try DamageTests.extent(src)
        let size = try DamageTests.size(src)
        let ends = try Self.unitEnds(src, ext: ext)
        try #require(ends.count >= 4, "\(ext): \(ends.count) places to cut")
        for q in 1...3 {
            let n = ends[ends.count * q / 4]
            let cut = dir.file("cut\(q).\(ext)")
            try DamageTests.cut(src, to: n, as: cut)
            try Self.expectCutOff(cut, whole: whole, says: c.says, video: c.video, "\(ext) cut at \(n) of \(size) bytes")
            // The pictures show a program stream's end even where only its sound is converted.
            if ext == "mpg" {
                try Self.expectCutOff(cut, whole: whole, says: c.says, video: false, "\(ext) cut at \(n), sound only")
            }
        }
    }

    @Test("cut after a whole sample (FLV) or before a cluster (MKV, WebM), one track converted (the sound; the pictures): judged by the length the header states",
          arguments: ["flv", "webm", "mkv"])
    func someTracksRead(ext: String) throws {
        let dir = Scratch()
        // Matroska in clusters of 0.2 s (our writer's 2 s file is one cluster): places to cut.
        let args = ext == "mkv" ? ["-c", "copy"] : try #require(StatedLengthTests.containers[ext]).args
        let src = try Self.make(ext, args: args + (ext == "flv" ? [] : ["-cluster_time_limit", "200"]), in: dir)
        let whole = try DamageTests.extent(src)
        let size = try DamageTests.size(src)
        // Matroska cut inside a cluster: its demuxer says so itself ("File ended prematurely").
        let ends = ext == "flv" ? try StatedLengthTests.sampleEnds(src) : try Self.unitEnds(src, ext: ext)
        try Self.convert(src, dir.file("whole-audio.mp4"), video: false)
        try Self.convert(src, dir.file("whole-video.mp4"), video: true, audio: false)
        for q in 1...3 {
            let n = try #require(ends.last { $0 <= size * q / 4 })
            let cut = dir.file("cut\(q).\(ext)")
            try DamageTests.cut(src, to: n, as: cut)
            for (video, audio) in [(false, true), (true, false)] {
                try Self.expectCutOff(cut, whole: whole, says: "", video: video, audio: audio,
                                      "\(ext) cut at \(n) of \(size) bytes, \(video ? "pictures" : "sound") only")
            }
        }
    }

    @Test("Ogg pages: a page counts only where its checksum holds; junk between and after pages is passed over")
    func oggPages() throws {
        let dir = Scratch()
        let src = try Self.make("ogg", args: try #require(Self.containers["ogg"]).args, in: dir)
        let d = try Data(contentsOf: URL(fileURLWithPath: src))
        #expect(OggPages.unfinished(src) == [])
        // A tag after the last page, and a page's byte flipped (its checksum fails: the page
        // before it is the stream's last whole one).
        let tagged = dir.file("tagged.ogg")
        try (d + Data("TAG".utf8) + Data(repeating: 0x20, count: 125)).write(to: URL(fileURLWithPath: tagged))
        #expect(OggPages.unfinished(tagged) == [])
        // Its last page starts where the one before ends.
        let lastPage = try #require(try Self.unitEnds(src, ext: "ogg").last)
        var flipped = d
        flipped[lastPage + 30] ^= 0x01
        let bad = dir.file("flipped.ogg")
        try flipped.write(to: URL(fileURLWithPath: bad))
        #expect(OggPages.unfinished(bad)?.count == 1)
        let none = dir.file("none.ogg")
        try Data(repeating: 0x4F, count: 4096).write(to: URL(fileURLWithPath: none))
        #expect(OggPages.unfinished(none) == nil)
    }
}
