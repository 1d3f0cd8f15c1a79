import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Matroska states a track's tags in capitals (`HANDLER_NAME`): they are the same tags as an
/// MP4's, kept and warned about the same way.
@Suite("Track tags of a Matroska source")
struct MatroskaTrackTagTests {
    func convert(_ src: String, _ out: String) throws -> ConversionPlan {
        let req = ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings()))])
        let plan = try Planner.plan(req)
        try ExportSession(plan: plan).run()
        return plan
    }

    @Test("an MKV track's handler name is kept in MP4 and MKV, and its title beside it is said dropped in MP4")
    func handlerName() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try KeptMedia.make(src, video: false, kept: KeptItems(), audioMetadata: ["title": "Commentary", "handler_name": "Stereo Mix", "language": "fra"])
        #expect(try Asset.load(src).audioTracks.first?.metadata["HANDLER_NAME"] == "Stereo Mix", "Matroska's spelling")

        let mp4 = dir.file("out.mp4")
        #expect(try convert(src, mp4).notices == [PlanNotice(.dropped, "track-title", track: 0, "the track title \"Commentary\" is dropped: MP4 files name a track by its handler name, which is kept (\"Stereo Mix\")")])
        let a = try #require(try Asset.load(mp4).audioTracks.first)
        #expect(a.metadata["handler_name"] == "Stereo Mix")
        #expect(a.language == "fra")

        let mkv = dir.file("out.mkv")
        #expect(try convert(src, mkv).notices == [])
        let m = try #require(try Asset.load(mkv).audioTracks.first)
        #expect(m.tag("handler_name") == "Stereo Mix")
        #expect(m.tag("title") == "Commentary")
    }

    @Test("a writer's default handler name (FFmpeg's SoundHandler) gives way to the track's title in MP4, without a warning")
    func defaultHandlerName() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try KeptMedia.make(src, video: false, kept: KeptItems(), audioMetadata: ["title": "Commentary", "handler_name": "SoundHandler"])
        let mp4 = dir.file("out.mp4")
        #expect(try convert(src, mp4).notices == [])
        #expect(try Asset.load(mp4).audioTracks.first?.metadata["handler_name"] == "Commentary")
    }
}
