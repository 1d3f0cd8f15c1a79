import Foundation
import Pipeline
import Recipe
import Testing

/// Smart rendering of streams whose parameter sets travel in band (`avc3`, `hev1` sample entries:
/// DASH and broadcast files carry their SPS/PPS/VPS before each keyframe): the copied groups keep
/// their in-band sets byte for byte, the encoded runs bring their own, and the output shows the
/// frames and times of a full encode and decodes without an error.
@Suite("reencode run with smart rendering of in-band parameter sets (avc3, hev1)", .serialized)
struct SmartInBandCLITests {
    /// The stamped source of `SmartRenderCLITests`, its stream copied under `tag` with the
    /// parameter sets put before every keyframe (`*_mp4toannexb` writes them there, and the MP4
    /// muxer turns the start codes back into length prefixes, keeping those NAL units).
    static func makeSource(_ dir: Scratch, codec: VideoCodec, tag: String) throws -> String {
        let plain = dir.file("plain.mp4"), src = dir.file("inband.mp4")
        try SmartRenderCLITests.makeSource(plain, seconds: 6, codec: codec)
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-y", "-i", plain, "-map", "0", "-c", "copy", "-tag:v", tag,
                                                         "-bsf:v", codec == .h264 ? "h264_mp4toannexb" : "hevc_mp4toannexb", src])
        try #require(r.status == 0, "\(r.stderr)")
        let probe = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string",
                                                              "-of", "csv=p=0", src])
        try #require(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == tag)
        // Every keyframe grew by its parameter sets; the other pictures are as they were.
        let before = try CopiedCompositionCLITests.packets(plain), after = try CopiedCompositionCLITests.packets(src)
        try #require(before.count == after.count && zip(before, after).allSatisfy { ($0.hash == $1.hash) != $1.key })
        return src
    }

    @Test("a trim (1.5–4.2 s) of H.264 as avc3 and HEVC as hev1: frames 45…125 at a full encode's times, 2.0–4.0 s the source's own packets (their in-band sets included), nothing else of the source's, a clean decode",
          arguments: [(VideoCodec.h264, "avc3"), (VideoCodec.hevc, "hev1")])
    func trim(_ codec: VideoCodec, _ tag: String) throws {
        let dir = Scratch()
        let src = try Self.makeSource(dir, codec: codec, tag: tag)
        let name = codec == .h264 ? "h264" : "hevc"
        let r = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "smart.mp4", codec: name, timing: SmartRenderCLITests.trim), src)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mp4")
        try SmartRenderCLITests.checkFrames(out, stamps: Array(45..<126))
        let full = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "full.mp4", codec: name, smart: "off", timing: SmartRenderCLITests.trim), src)
        #expect(full.status == 0, "\(full.stderr)")
        let a = try CompositionRunCLITests.stamps(out), b = try CompositionRunCLITests.stamps(dir.file("full.mp4"))
        #expect(a.map(\.stamp) == b.map(\.stamp))
        #expect(a.map(\.pts) == b.map(\.pts))
        // 2.0–4.0 s (two whole groups) are the source's packets byte for byte — the first one too:
        // its parameter sets are in it already; the encoded pictures are none of the source's.
        let source = try CopiedCompositionCLITests.packets(src).sorted { $0.pts < $1.pts }
        let made = try CopiedCompositionCLITests.packets(out).sorted { $0.pts < $1.pts }
        #expect(made.count == 81)
        #expect(Array(made[15..<75]).map(\.hash) == Array(source[60..<120]).map(\.hash))
        #expect(Set((made[0..<15] + made[75...]).map(\.hash)).isDisjoint(with: source.map(\.hash)))
    }
}
