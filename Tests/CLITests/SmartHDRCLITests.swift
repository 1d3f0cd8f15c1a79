import Foundation
import Pipeline
import Recipe
import Testing

/// A smart-rendered HDR10 track states its static metadata in the container as a full encode
/// does (MP4's `mdcv` and `clli`), though its copied pictures came from a file that stated it
/// only in their SEI.
@Suite("reencode run with smart rendering of HDR10", .serialized)
struct SmartHDRCLITests {
    static func sideData(_ file: String) throws -> [String] {
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data",
                                                          "-of", "compact", file])
        return r.stdout.split(separator: "\n").map(String.init).filter { $0.contains("side_data_type") }
    }

    @Test("a smart trim of 10-bit PQ HEVC whose MP4 states no mastering display: the output states the SEI's, as the full encode does; frames and times the full encode's")
    func hdr10() throws {
        let dir = Scratch()
        let src = dir.file("hdr.mp4")
        let params = "keyint=30:min-keyint=30:scenecut=0:open-gop=0:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:"
            + "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400:hdr10=1:log-level=error"
        let made = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=5",
                                                            "-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-x265-params", params,
                                                            "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc",
                                                            "-tag:v", "hvc1", src])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try Self.sideData(src) == [], "FFmpeg 5.1 writes no mdcv: the source states it in SEI only")
        var outputs: [String: [String]] = [:]
        for smart in ["require", "off"] {
            let recipe = dir.file("\(smart).yaml")
            try """
                recipe: 1
                output: "{dir}/\(smart).mp4"
                reader:
                  outputs:
                    picture: { track: video }
                writer:
                  inputs:
                    - { source: picture, settings: { codec: hevc, smart: \(smart) } }
                session:
                  time-range: { start: 1.5s, end: 4.2s }
                """.write(toFile: recipe, atomically: true, encoding: .utf8)
            let r = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
            #expect(r.status == 0, "\(smart): \(r.stderr)")
            outputs[smart] = try Self.sideData(dir.file("\(smart).mp4"))
        }
        #expect(outputs["require"] == outputs["off"])
        #expect(outputs["require"]?.count == 2 && outputs["require"]?.first?.contains("red_x=34000/50000") == true, "\(outputs)")
        let a = try CompositionRunCLITests.stamps(dir.file("require.mp4")).map(\.pts), b = try CompositionRunCLITests.stamps(dir.file("off.mp4")).map(\.pts)
        #expect(a == b && a.count == 81)
    }
}
