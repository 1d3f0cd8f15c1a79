import Foundation
@testable import Pipeline
import Recipe
import Testing

/// The run encodes with the encoders its plan's rehearsal opened (`OpenedEncoders`): none is
/// opened twice, and what they make is what encoders opened anew make.
@Suite("Encoders opened once: the run takes those its plan's rehearsal opened")
struct KeptEncoderTests {
    static func plan(_ dir: Scratch, source: String, video: String, out: String) throws -> ConversionPlan {
        let text = """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
                sound: { track: audio }
            output: { path: \(dir.file(out)) }
            writer:
              inputs:
                - { source: picture, settings: \(video) }
                - { source: sound, settings: { codec: aac, bitrate: 96k } }
            """
        let recipe = try RecipeParser.parse(text, file: dir.file("r.yaml")).get()
        return try #require(try RecipeCompiler.compileAll(recipe, input: source).first).plan
    }

    static func source(_ dir: Scratch) throws -> String {
        let src = dir.file("src.mp4")
        try Media.make(src, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30)), frames: 60, audio: true)
        return src
    }

    static let h264 = "{ codec: h264, quality: 23, codec-options: { preset: ultrafast } }"

    @Test("H.264 and AAC: the run opens no encoder, and its packets are byte for byte those of encoders opened anew")
    func sameAsOpenedAnew() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let kept = ExportSession(plans: [try Self.plan(dir, source: src, video: Self.h264, out: "kept.mp4")])
        try kept.runAll()
        #expect(kept.encodersInLastRun == 2)
        #expect(kept.encodersKeptInLastRun == 2)

        let anew = ExportSession(plans: [try Self.plan(dir, source: src, video: Self.h264, out: "anew.mp4").droppingOpenedEncoders()])
        try anew.runAll()
        #expect(anew.encodersInLastRun == 2)
        #expect(anew.encodersKeptInLastRun == 0)
        for selector in ["v:0", "a:0"] {
            let (k, a) = (try SharedEncodeTests.packets(dir.file("kept.mp4"), selector), try SharedEncodeTests.packets(dir.file("anew.mp4"), selector))
            #expect(!k.isEmpty && k == a, "\(selector): the kept encoder made other packets")
        }
        #expect(try SharedEncodeTests.packets(dir.file("kept.mp4"), "v:0").count == 60)
    }

    @Test("settings changed after planning: that track's encoder is opened anew with them (not the rehearsal's), the sound's kept")
    func changedSettingsOpenAnew() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        var changed = try Self.plan(dir, source: src, video: Self.h264, out: "changed.mp4")
        let lane = try #require(changed.lanes.firstIndex { $0.videoSettings != nil })
        guard case .video(var s) = changed.lanes[lane].kind else { Issue.record("no video lane"); return }
        s.quality = 40
        changed.lanes[lane].kind = .video(s)
        let session = ExportSession(plans: [changed])
        try session.runAll()
        #expect(session.encodersInLastRun == 2)
        #expect(session.encodersKeptInLastRun == 1)

        // The video is what quality 40 makes, planned as such.
        try ExportSession(plans: [try Self.plan(dir, source: src, video: "{ codec: h264, quality: 40, codec-options: { preset: ultrafast } }", out: "q40.mp4")]).runAll()
        try ExportSession(plans: [try Self.plan(dir, source: src, video: Self.h264, out: "q23.mp4")]).runAll()
        let (made, q40, q23) = (try SharedEncodeTests.packets(dir.file("changed.mp4"), "v:0"), try SharedEncodeTests.packets(dir.file("q40.mp4"), "v:0"),
                                try SharedEncodeTests.packets(dir.file("q23.mp4"), "v:0"))
        #expect(made.count == 60 && made == q40)
        #expect(made != q23)
    }

    @Test("SVT-AV1 (which codes a picture to close an encoder it was given none): opened once, every picture at its time")
    func svtAV1() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let session = ExportSession(plans: [try Self.plan(dir, source: src, video: "{ codec: av1, codec-options: { preset: 12 } }", out: "av1.mp4")])
        try session.runAll()
        #expect(session.encodersInLastRun == 2)
        #expect(session.encodersKeptInLastRun == 2)
        let stamps = try Media.stamps(dir.file("av1.mp4"))
        #expect(stamps.map(\.stamp) == (0..<60).map { Optional($0) })
        #expect(stamps.map(\.pts) == (0..<60).map { FrameRate(frames: 30).frameDuration * Int64($0) })
    }
}
