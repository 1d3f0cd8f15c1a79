import Foundation
import Pipeline
import Recipe
import Testing

/// A source's alpha channel that the output drops is said (a `dropped` notice, item `alpha`) for
/// every codec but the one profile that keeps it, and the written file indeed has none.
@Suite("Alpha dropped")
struct AlphaNoticeTests {
    static func plan(_ src: String, _ out: String, _ mode: TrackMode) throws -> ConversionPlan {
        try Planner.plan(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.video, 0), mode)]))
    }

    static func alphaNotices(_ p: ConversionPlan) -> [String] {
        p.notices.filter { $0.item == "alpha" }.map { "\($0.kind.rawValue) #\($0.sourceTrack ?? -1): \($0.message)" }
    }

    @Test("H.264, VP9 and ProRes 422 say the alpha is dropped; ProRes 4444 and a copy do not")
    func notices() throws {
        let dir = Scratch()
        let src = dir.file("alpha.mov")
        try ProResTests.alphaSource(src)
        let cases: [(String, TrackMode, [String])] = [
            ("h264.mp4", .video(VideoSettings(codec: .h264)),
             ["dropped #0: the source's alpha channel is dropped: H.264 is written as yuv420p, which has none (ProRes 4444 keeps it: 'codec: prores')"]),
            ("vp9.webm", .video(VideoSettings(codec: .vp9)),
             ["dropped #0: the source's alpha channel is dropped: VP9 is written as yuv444p10le, which has none (ProRes 4444 keeps it: 'codec: prores')"]),
            ("p422.mov", .video(VideoSettings(codec: .prores, profile: "standard")),
             ["dropped #0: the source's alpha channel is dropped: ProRes is written as yuv422p10le, which has none (profile 4444 keeps it)"]),
            ("p4444.mov", .video(VideoSettings(codec: .prores)), []),
            ("copy.mov", .passthrough, []),
        ]
        for (name, mode, expected) in cases {
            let p = try Self.plan(src, dir.file(name), mode)
            #expect(Self.alphaNotices(p) == expected, "\(name)")
        }
    }

    @Test("the H.264 file written has no alpha plane, as the notice says")
    func written() throws {
        let dir = Scratch()
        let src = dir.file("alpha.mov"), out = dir.file("h264.mp4")
        try ProResTests.alphaSource(src)
        let p = try Self.plan(src, out, .video(VideoSettings(codec: .h264)))
        try ExportSession(plan: p).run()
        let f = try ProResTests.stream(out)
        #expect(f["pix_fmt"] == "yuv420p")
    }
}
