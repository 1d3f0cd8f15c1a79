import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A chunk encoder is held to its share of the cores (`ResolvedVideoSettings.encoderThreads`):
/// FFmpeg's thread count bounds x264, libvpx and libaom, but x265 sizes its thread pool and
/// SVT-AV1 its logical processors by the machine's cores whatever the count, so several chunk
/// encoders at once would each take every core. Those two are told through their parameter string.
@Suite("Chunk encoders' threads")
struct ChunkThreadsTests {
    static func options(_ codec: VideoCodec, threads: Int?, asked: [String: String] = [:]) throws -> [String: String] {
        var r = try SettingsAssistant.system.video(source: SettingsAssistantTests.video(1280, 720), settings: VideoSettings(codec: codec, codecOptions: asked))
        r.encoderThreads = threads
        return Dictionary(uniqueKeysWithValues: VideoSink.encoderOptions(r))
    }

    @Test("x265 gets pools=N and SVT-AV1 lp=N after the recipe's own parameters; x264 only the thread count; none without a share")
    func bounded() throws {
        #expect(try Self.options(.hevc, threads: 3)["x265-params"] == "log-level=error:pools=3")
        #expect(try Self.options(.hevc, threads: 2, asked: ["x265-params": "bframes=4"])["x265-params"] == "bframes=4:log-level=error:pools=2")
        #expect(try Self.options(.hevc, threads: nil)["x265-params"] == "log-level=error")
        #expect(try Self.options(.av1, threads: 4)["svtav1-params"] == "lp=4")
        #expect(try Self.options(.h264, threads: 4).keys.allSatisfy { !$0.contains("params") })
    }
}
