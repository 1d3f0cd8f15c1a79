import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A composition keeps its files' chapters where its segments play them.
@Suite("Chapters on a composition's timeline")
struct CompositionChapterTests {
    static func plan(_ paths: [String], _ segments: [SegmentRequest], out: String) throws -> ConversionPlan {
        var req = ConversionRequest(source: paths[0], output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "ultrafast"]))),
        ])
        req.sources = Array(paths.dropFirst())
        req.timeline = segments
        return try Planner.plan(req)
    }

    static func describe(_ cs: [Chapter]) -> [String] {
        cs.map { "\($0.title ?? "-") \($0.start.secondsDescription)–\($0.end.secondsDescription)" }
    }

    @Test("a cut inside a chapter joins its two parts; later chapters move up; the output file holds them")
    func cutOut() throws {
        let dir = Scratch()
        let src = dir.file("a.mp4")
        try KeptMedia.make(src, audio: false, kept: KeptItems(chapters: KeptMedia.threeChapters))  // One 0–1, Two 1–2.5, Three 2.5–3
        let out = dir.file("cut.mp4")
        let plan = try Self.plan([src], [SegmentRequest(end: MediaTime(value: 3, timescale: 2)),
                                         SegmentRequest(start: MediaTime(seconds: 2))], out: out)
        #expect(Self.describe(plan.kept.chapters) == ["One 0.000s–1.000s", "Two 1.000s–2.000s", "Three 2.000s–2.500s"])
        #expect(!plan.notices.contains { $0.item == "chapters" })
        try ExportSession(plan: plan).run()
        #expect(Self.describe(try Asset.load(out).chapters) == ["One 0.000s–1.000s", "Two 1.000s–2.000s", "Three 2.000s–2.500s"])
    }

    @Test("two files, the second slowed to half speed: its chapters start after the first file and last twice as long; unshown ones are said")
    func twoFilesScaled() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4")
        try KeptMedia.make(a, audio: false, kept: KeptItems(chapters: [Chapter(start: .zero, end: MediaTime(seconds: 3), title: "Intro")]))
        try KeptMedia.make(b, audio: false, kept: KeptItems(chapters: KeptMedia.threeChapters))
        let plan = try Self.plan([a, b], [SegmentRequest(source: 0),
                                          SegmentRequest(source: 1, end: MediaTime(value: 3, timescale: 2), timing: .speed(SegmentSpeed(numerator: 1, denominator: 2)!))],
                                 out: dir.file("o.mp4"))
        #expect(Self.describe(plan.kept.chapters) == ["Intro 0.000s–3.000s", "One 3.000s–5.000s", "Two 5.000s–6.000s"])
        let notice = plan.notices.first { $0.item == "chapters" }
        #expect(notice?.message == "1 of 3 chapters of b.mp4 lie outside its segments: \"Three\"")
    }
}
