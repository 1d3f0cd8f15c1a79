import Foundation
import Pipeline
import Recipe
import Testing

/// HDR on the command line: the recipe error for `hdr: keep` with 8 bits, the plan's rule and
/// warning for a tone-mapped source, run's warning.
@Suite("HDR on the command line")
struct HDRCLITests {
    /// 10-bit HEVC tagged BT.2020 HLG, 64x64, 3 frames of flat 50 % grey.
    static func hlgSource(_ path: String) throws {
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
        v.codec = .hevc
        v.pixelFormat = "yuv420p10le"
        v.colorPrimaries = "bt2020"; v.colorTransfer = "arib-std-b67"; v.colorMatrix = "bt2020nc"
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: nil)
        for i in 0..<3 {
            try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: 64, height: 64, sample: 502)
                p.fill(plane: 1, x: 0, y: 0, width: 32, height: 32, sample: 512)
                p.fill(plane: 2, x: 0, y: 0, width: 32, height: 32, sample: 512)
            }
        }
        try s.finish()
    }

    @Test("inspect shows a track's HDR10 metadata (text and JSON)")
    func inspectShowsHDR() throws {
        let dir = Scratch()
        let src = dir.file("pq.mp4")
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
        v.codec = .hevc
        v.pixelFormat = "yuv420p10le"
        v.colorPrimaries = "bt2020"; v.colorTransfer = "smpte2084"; v.colorMatrix = "bt2020nc"
        v.masteringDisplay = MasteringDisplay(red: .init(34000, 16000), green: .init(13250, 34500), blue: .init(7500, 3000),
                                              whitePoint: .init(15635, 16450), minLuminance: 50, maxLuminance: 10_000_000)
        v.contentLightLevel = ContentLightLevel(maxCLL: 1000, maxFALL: 400)
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: src, video: v, audio: nil)
        for i in 0..<2 { try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        let text = try Binary.run(["inspect", src], timeLimit: 60)
        #expect(text.stdout.contains("bt2020/smpte2084/bt2020nc  mastering 0.005-1000 cd/m²  MaxCLL 1000 MaxFALL 400  "), "\(text.stdout)")
        let json = try Binary.run(["inspect", src, "--json"], timeLimit: 60)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let track = try #require((o["tracks"] as? [[String: Any]])?.first)
        let hdr = try #require(track["hdr"] as? [String: Any])
        let m = try #require(hdr["masteringDisplay"] as? [String: Any])
        #expect((m["red"] as? [String: String]) == ["x": "34000/50000", "y": "16000/50000"])
        #expect(m["maxLuminance"] as? String == "10000000/10000" && m["minLuminance"] as? String == "50/10000")
        #expect((hdr["contentLightLevel"] as? [String: Int]) == ["maxCLL": 1000, "maxFALL": 400])
    }

    static func recipe(_ settings: String) -> String {
        """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - source: picture
              settings: \(settings)

        """
    }

    @Test("validate, plan and run refuse hdr: keep with an 8-bit output at its line (65), nothing written")
    func keepRefused() throws {
        let dir = Scratch()
        let src = dir.file("hlg.mp4"), recipe = dir.file("r.yaml")
        try Self.hlgSource(src)
        try Self.recipe("{ codec: h264, hdr: keep }").write(toFile: recipe, atomically: true, encoding: .utf8)
        let expected = "\(recipe):8:32: error: 'hdr: keep' needs a 10-bit output, but this writes 8-bit H.264 (yuv420p): use 'codec: hevc', a 10-bit 'pixel-format' (yuv420p10le) or 'hdr: tone-map'\n"
            + "      settings: { codec: h264, hdr: keep }\n" + String(repeating: " ", count: 31) + "^\n"
        let v = try Binary.run(["validate", recipe], timeLimit: 60)
        #expect(v.status == 65)
        #expect(v.stderr == expected)
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(r.status == 65, "\(command)")
            #expect(r.stderr == expected, "\(command)")
        }
        #expect(dir.contents == ["hlg.mp4", "r.yaml"])
    }

    @Test("plan names the HDR rule and warns that HLG is tone-mapped (text and JSON); run says it before it starts")
    func planAndRun() throws {
        let dir = Scratch()
        let src = dir.file("hlg.mp4"), recipe = dir.file("r.yaml"), out = dir.file("out.mp4")
        try Self.hlgSource(src)
        try Self.recipe("{ codec: h264, codec-options: { preset: ultrafast } }").write(toFile: recipe, atomically: true, encoding: .utf8)
        let text = try Binary.run(["plan", recipe, "-i", src, "-o", out], timeLimit: 60)
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  hdr             tone-map     hdr.tone-map-8-bit: an 8-bit output cannot carry the HLG source's HDR: tone-mapped to BT.709 SDR, as Apple's export presets do"))
        #expect(lines.contains("  color           bt709/bt709/bt709 color.tone-mapped-bt709: SDR pictures are tagged BT.709 (the HLG source's peak: 1000 cd/m²)"))
        #expect(lines.last == "warning: track #0: HDR (HLG) is tone-mapped to BT.709 SDR (yuv420p h264 output)")
        let json = try Binary.run(["plan", recipe, "-i", src, "-o", out, "--json"], timeLimit: 60)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let warnings = try #require(o["warnings"] as? [[String: Any]])
        #expect(warnings.count == 1)
        #expect(warnings.first?["item"] as? String == "hdr" && warnings.first?["kind"] as? String == "changed" && warnings.first?["track"] as? Int == 0)
        let run = try Binary.run(["run", recipe, "-i", src, "-o", out], timeLimit: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("warning: \(src): track #0: HDR (HLG) is tone-mapped to BT.709 SDR (yuv420p h264 output)\n"))
    }
}
