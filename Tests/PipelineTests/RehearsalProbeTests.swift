import CFFmpeg
import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A plan's rehearsal opens the decoders from the streams' parameters. Opening the file again for
/// it read the stream information a second time (`avformat_find_stream_info` decodes pictures:
/// 263 M instructions on bench (a)'s 1080p120 H.264, bench/README.md): it borrows the demuxer the
/// source was probed with instead, and the run then takes it.
@Suite("Rehearsal: the probed demuxer is borrowed, not opened again")
struct RehearsalProbeTests {
    @Test("a rehearsal's readers read through the probed demuxer's streams, read no packet, and leave it to the run")
    func rehearsalBorrowsTheProbe() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        try Media.make(src, video: .droppableH264(width: 320, height: 180, frameRate: FrameRate(frames: 120)), frames: 120, audio: true)
        let asset = try Asset.load(src)
        let req = ConversionRequest(source: src, output: dir.file("out.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(rate: FrameRate(frames: 30)))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        let plan = try Planner.plan(req, asset: asset)
        var seen: [(stream: SourceStream, index: Int)] = []
        do {
            let pool = plan.makeReaders(rehearsal: true)
            let taps = try (0..<2).map { output throws(MediaError) in try pool.tap(group: 0, output: output) }
            seen = taps.map { ($0.stream, $0.stream.index) }
            #expect(asset.probed.take() == nil, "the run took the demuxer while the rehearsal had it")
            #expect(throws: MediaError(.processing, "a rehearsal reads no packets", file: src)) { _ = try taps[0].next() }
        }
        let probed = try #require(asset.probed.take(), "the rehearsal did not give the probed demuxer back")
        #expect(seen.count == 2)
        for s in seen { #expect(s.stream == probed.stream(s.index), "stream \(s.index) is not the probed demuxer's") }
    }
}
