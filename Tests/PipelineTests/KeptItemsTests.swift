import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Nothing a user cares about disappears silently: chapters, capture metadata, track names and
/// cover art are kept where the output container can hold them, and each one that cannot be
/// kept (or that the recipe leaves out) is a notice of the plan.
@Suite("Kept, or said: chapters, metadata, cover art, tracks left out")
struct KeptItemsTests {
    @discardableResult
    func convert(_ src: String, _ out: String, video: Bool = true, audio: Bool = true, copy: Bool = false,
                 range: TimeRange? = nil) throws -> ConversionPlan {
        var tracks: [TrackRequest] = []
        if video { tracks.append(TrackRequest(.type(.video, 0), copy ? .passthrough : .video(.fast()))) }
        if audio { tracks.append(TrackRequest(.type(.audio, 0), copy ? .passthrough : .audio(AudioSettings()))) }
        var req = ConversionRequest(source: src, output: out, tracks: tracks)
        req.timeRange = range
        let plan = try Planner.plan(req)
        try ExportSession(plan: plan).run()
        return plan
    }

    static let allChapters = ["0.000000,1.000000,One", "1.000000,2.500000,Two", "2.500000,3.000000,Three"]

    @Test("chapters are kept in MP4, MOV, MKV and M4A, with their times and titles, whether tracks are encoded or copied",
          arguments: ["mp4", "mov", "mkv", "m4a"], [false, true])
    func chaptersKept(ext: String, copy: Bool) throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        try KeptMedia.make(src, kept: KeptItems(chapters: KeptMedia.threeChapters))
        guard try FFprobe.chapters(src) != nil else { return }
        #expect(try FFprobe.chapters(src) == Self.allChapters)
        let out = dir.file("out.\(ext)")
        let plan = try convert(src, out, video: ext != "m4a", copy: copy)
        #expect(try FFprobe.chapters(out) == Self.allChapters)
        // The source's chapter text track is its chapters, not a track the recipe left out: the
        // only notice is the video track an M4A cannot take.
        #expect(plan.notices == (ext == "m4a" ? [PlanNotice(.dropped, "track", track: 0, "video h264 \"VideoHandler\" is not written: no writer input takes it")] : []))
    }

    @Test("a trim moves chapters to the output's start, cuts them to the range and drops (and names) those outside it")
    func chaptersTrimmed() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try KeptMedia.make(src, kept: KeptItems(chapters: KeptMedia.threeChapters))
        let out = dir.file("out.mp4")
        let plan = try convert(src, out, range: TimeRange(start: MediaTime(value: 3, timescale: 2), end: MediaTime(value: 27, timescale: 10)))
        guard let chapters = try FFprobe.chapters(out) else { return }
        // The trim is cut at the source's frames (this MKV's video starts 21 ms in): 1.521–2.721 s,
        // and the chapters are moved by the start the output really has.
        #expect(plan.timeRange.start == MediaTime(value: 1521, timescale: 1000))
        #expect(chapters == ["0.000000,0.979000,Two", "0.979000,1.200000,Three"])
        #expect(plan.notices.filter { $0.item != "time-range" } == [PlanNotice(.dropped, "chapters", "1 of 3 chapters lie outside the time range: \"One\"")])
    }

    @Test("QuickTime capture metadata (make, model, location, software, date) survives MOV → MP4, MOV and MKV",
          arguments: ["mp4", "mov", "mkv"])
    func captureMetadataKept(ext: String) throws {
        let dir = Scratch()
        let src = dir.file("phone.mov")
        try KeptMedia.make(src, kept: KeptItems(metadata: KeptMedia.iPhoneKeys, quickTimeKeys: true))
        let out = dir.file("out.\(ext)")
        let plan = try convert(src, out)
        #expect(plan.notices.isEmpty)
        guard let tags = try FFprobe.tags(out) else { return }
        // Matroska stores tag names in capitals.
        let found = Dictionary(tags.map { (ext == "mkv" ? $0.key.lowercased() : $0.key, $0.value) }) { a, _ in a }
        for (key, value) in KeptMedia.iPhoneKeys {
            #expect(found[ext == "mkv" ? key.lowercased() : key] == value, "\(key) in \(ext): \(tags)")
        }
        if ext == "mp4" {
            // Also as the 3GPP location players outside Apple's read (FFmpeg reads its
            // fixed-point numbers back as 4 decimals and the altitude as 6).
            #expect(found["location"] == "+12.3456-098.7654+10.000000/")
        }
    }

    @Test("an MP4's location becomes the QuickTime location key in a MOV")
    func locationIntoMOV() throws {
        let dir = Scratch()
        let src = dir.file("android.mp4")
        try KeptMedia.make(src, kept: KeptItems(metadata: ["location": KeptMedia.location]))
        let out = dir.file("out.mov")
        #expect(try convert(src, out).notices.isEmpty)
        guard let tags = try FFprobe.tags(out) else { return }
        #expect(tags["com.apple.quicktime.location.ISO6709"] == "+12.3456-098.7654+10.000000/")
    }

    @Test("an Android capture rate (com.android.capture.fps) is kept in MP4 and MKV", arguments: ["mp4", "mkv"])
    func androidCaptureRateKept(ext: String) throws {
        let dir = Scratch()
        let src = dir.file("slowmo.mp4")
        try KeptMedia.make(src, audio: false, kept: KeptItems(metadata: ["com.android.capture.fps": "240.000000", "com.android.version": "13"], quickTimeKeys: true))
        let out = dir.file("out.\(ext)")
        let plan = try convert(src, out, audio: false)
        #expect(plan.notices.isEmpty)
        guard let tags = try FFprobe.tags(out) else { return }
        let found = Dictionary(tags.map { ($0.key.lowercased(), $0.value) }) { a, _ in a }
        #expect(found["com.android.capture.fps"] == "240.000000")
        #expect(found["com.android.version"] == "13")
    }

    @Test("beside cover art an MP4 keeps iTunes-style items, QuickTime keys mapped to them, and names the keys it drops")
    func quickTimeKeysBesideCoverArt() throws {
        let dir = Scratch()
        let src = dir.file("song.mkv")
        let cover = try TestPicture.make(codec: "png")
        try KeptMedia.make(src, video: false, kept: KeptItems(metadata: [
            "title": "A Song", "com.apple.quicktime.make": "TestMaker", "com.apple.quicktime.location.ISO6709": KeptMedia.location,
            "com.apple.quicktime.creationdate": "2020-05-06", "com.apple.quicktime.artist": "Someone",
        ], pictures: [cover]))
        let out = dir.file("out.m4a")
        let plan = try convert(src, out, video: false)
        #expect(plan.notices == [PlanNotice(.dropped, "metadata", "metadata com.apple.quicktime.make is dropped: M4A files hold these only as QuickTime keys, which cannot be written beside cover art")])
        guard let tags = try FFprobe.tags(out) else { return }
        #expect(tags["title"] == "A Song")
        #expect(tags["artist"] == "Someone")
        #expect(tags["date"] == "2020-05-06")
        #expect(tags["location"] != nil)
        #expect(tags.keys.filter { $0.hasPrefix("com.") }.isEmpty)
        #expect(try FFprobe.coverBytes(out, dir: dir) == cover.bytes)
    }

    @Test("cover art is kept as it is in MP4, M4A and MKV; a MOV says it is dropped", arguments: ["mp4", "m4a", "mkv", "mov"], ["png", "mjpeg"])
    func coverArt(ext: String, codec: String) throws {
        let dir = Scratch()
        let src = dir.file("song.m4a")
        let cover = try TestPicture.make(codec: codec, width: 40, height: 30)
        try KeptMedia.make(src, video: false, kept: KeptItems(metadata: ["title": "A Song"], pictures: [cover]))
        #expect(try FFprobe.coverBytes(src, dir: dir) == cover.bytes || FFprobe.path == nil)
        let out = dir.file("out.\(ext)")
        let plan = try convert(src, out, video: false)
        if ext == "mov" {
            #expect(plan.notices == [PlanNotice(.dropped, "cover-art", track: 1, "cover art (\(codec) 40x30) is dropped: MOV files as FFmpeg writes them hold no cover art (.mp4, .m4a and .mkv keep it)")])
            #expect(try FFprobe.coverBytes(out, dir: dir) == nil)
        } else {
            #expect(plan.notices.isEmpty)
            #expect(try FFprobe.coverBytes(out, dir: dir) == cover.bytes || FFprobe.path == nil)
        }
    }

    @Test("track language and handler name are kept; a track title is kept in MKV and becomes the handler name in MP4")
    func trackNames() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try KeptMedia.make(src, kept: KeptItems(), audioMetadata: ["language": "fra", "title": "Commentary"])
        for ext in ["mp4", "mkv"] {
            let out = dir.file("out.\(ext)")
            #expect(try convert(src, out).notices.isEmpty)
            guard let audio = try FFprobe.stream(out, "a:0", "index") else { return }
            #expect(audio["language"] == "fra")
            if ext == "mkv" { #expect(audio["title"] == "Commentary") } else { #expect(audio["handler_name"] == "Commentary") }
        }
        let mp4 = dir.file("named.mp4")
        try KeptMedia.make(mp4, kept: KeptItems(), audioMetadata: ["language": "deu", "handler_name": "Stereo Mix"])
        let out = dir.file("named-out.mov")
        #expect(try convert(mp4, out).notices.isEmpty)
        let audio = try FFprobe.stream(out, "a:0", "index")
        // QuickTime states German as `ger` (FFmpeg loses `deu` there); read back as `deu`.
        #expect(audio == nil || audio?["handler_name"] == "Stereo Mix" && audio?["language"] == "ger")
        #expect(try Asset.load(out).audioTracks.first?.language == "deu")
        // A language QuickTime has no code for is said, not lost silently.
        let rare = dir.file("rare.mp4")
        try KeptMedia.make(rare, kept: KeptItems(), audioMetadata: ["language": "haw"])
        #expect(try convert(rare, dir.file("rare.mov")).notices == [PlanNotice(.dropped, "track-language", track: 1, "the track language 'haw' is dropped: MOV files state only the languages of QuickTime's list (.mp4 and .mkv keep it)")])
    }

    @Test("a track the recipe does not take is named in a notice: index, type, codec, name, language")
    func tracksLeftOut() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        try KeptMedia.make(src, kept: KeptItems(), audioMetadata: ["language": "deu", "handler_name": "Stereo Mix"])
        let plan = try convert(src, dir.file("out.mp4"), audio: false)
        #expect(plan.notices == [PlanNotice(.dropped, "track", track: 1, "audio aac \"Stereo Mix\" (deu) is not written: no writer input takes it")])
        #expect(plan.notices.map(\.description) == ["track #1: audio aac \"Stereo Mix\" (deu) is not written: no writer input takes it"])
    }
}

@Suite("Chapters cut to a time range")
struct ChapterClippingTests {
    let range = TimeRange(start: MediaTime(seconds: 10), end: MediaTime(seconds: 20))

    @Test("a chapter is moved to the range start and cut at both ends; one outside is gone")
    func clipped() {
        #expect(Chapter(start: MediaTime(seconds: 5), end: MediaTime(seconds: 12), title: "a").clipped(to: range)
                == Chapter(start: .zero, end: MediaTime(seconds: 2), title: "a"))
        #expect(Chapter(start: MediaTime(seconds: 15), end: MediaTime(seconds: 25), title: "b").clipped(to: range)
                == Chapter(start: MediaTime(seconds: 5), end: MediaTime(seconds: 10), title: "b"))
        #expect(Chapter(start: MediaTime(seconds: 20), end: MediaTime(seconds: 25), title: "c").clipped(to: range) == nil)
        #expect(Chapter(start: MediaTime(seconds: 2), end: MediaTime(seconds: 10), title: "d").clipped(to: range) == nil)
        let open = TimeRange(start: MediaTime(seconds: 10), duration: .positiveInfinity)
        #expect(Chapter(start: MediaTime(seconds: 30), end: MediaTime(seconds: 40), title: "e").clipped(to: open)
                == Chapter(start: MediaTime(seconds: 20), end: MediaTime(seconds: 30), title: "e"))
    }

    @Test("a chapter mark without length is kept when it lies in the range")
    func pointMarks() {
        #expect(Chapter(start: MediaTime(seconds: 12), end: MediaTime(seconds: 12), title: "p").clipped(to: range)
                == Chapter(start: MediaTime(seconds: 2), end: MediaTime(seconds: 2), title: "p"))
        #expect(Chapter(start: MediaTime(seconds: 20), end: MediaTime(seconds: 20), title: "q").clipped(to: range) == nil)
    }
}

@Suite("How a track left out is named")
struct TrackDescriptionTests {
    func track(_ type: MediaType, codec: String, tag: String?, metadata: [String: String] = [:]) -> Track {
        var f = FormatDescription(mediaType: type, codec: codec)
        f.codecTag = tag
        return Track(index: 3, ordinal: 0, format: f, timeBase: MediaTime(value: 1, timescale: 1000), startTime: .zero,
                     duration: MediaTime(seconds: 1), language: metadata["language"], metadata: metadata, isAttachedPicture: false)
    }

    @Test("type, codec (the container's code when FFmpeg knows no codec), name without control characters, language")
    func names() {
        #expect(Keeping.describe(track(.data, codec: "none", tag: "tmcd", metadata: ["handler_name": "\u{0B}Cam TCD", "language": "eng"])) == "timecode tmcd \"Cam TCD\" (eng)")
        #expect(Keeping.describe(track(.data, codec: "bin_data", tag: "gpmd", metadata: ["handler_name": "Cam MET  "])) == "data gpmd \"Cam MET\"")
        #expect(Keeping.describe(track(.unknown, codec: "none", tag: nil)) == "track of unknown type")
        #expect(Keeping.describe(track(.subtitle, codec: "subrip", tag: nil, metadata: ["title": "Director's notes", "handler_name": "x", "language": "fra"])) == "subtitle subrip \"Director's notes\" (fra)")
    }
}

@Suite("Chapters a writer cannot state")
struct HostileChapterTests {
    @Test("a chapter whose time does not fit in nanoseconds is left out; the others are written")
    func hugeTimes() throws {
        let dir = Scratch()
        let out = dir.file("huge.mkv")
        let huge = MediaTime(value: Int64.max / 2, timescale: 1)
        try KeptMedia.make(out, audio: false, kept: KeptItems(chapters: [
            Chapter(start: .zero, end: MediaTime(seconds: 1), title: "Fine"),
            Chapter(start: huge, end: huge + MediaTime(seconds: 1), title: "Far"),
        ]))
        #expect(try FFprobe.chapters(out) == nil || FFprobe.chapters(out) == ["0.000000,1.000000,Fine"])
    }

    @Test("the plan names such a chapter as dropped")
    func said() {
        let huge = MediaTime(value: Int64.max / 2, timescale: 1)
        let (kept, notices) = Keeping.keptChapters([
            Chapter(start: .zero, end: MediaTime(seconds: 1), title: "Fine"),
            Chapter(start: huge, end: huge + MediaTime(seconds: 1), title: "Far"),
        ], range: TimeRange(start: .zero, duration: .positiveInfinity))
        #expect(kept == [Chapter(start: .zero, end: MediaTime(seconds: 1), title: "Fine")])
        #expect(notices == [PlanNotice(.dropped, "chapters", "1 of 2 chapters have times no output can state: \"Far\"")])
    }
}
