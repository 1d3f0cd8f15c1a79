import Foundation
import Pipeline
import Recipe
import Testing

/// End to end: the shipped recipes give no track more than its source has. A poor sound track
/// (24 kb/s, 16 kHz, mono) through `aac-stereo` stays 16 kHz mono at the source's bit rate; an
/// anamorphic 4:2:2 PAL picture through `hevc-archive` stays 720x576 at 16:15 in 4:2:2. `plan` says
/// why, and ffprobe reads the same from the outputs.
@Suite("Settings never raise what the source has (run, plan, ffprobe)")
struct NeverRaisedCLITests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func probe(_ file: String, _ selector: String, _ entries: String) throws -> [String: String] {
        try PlanTruthCLITests.probe(file, selector, entries)
    }

    @Test("aac-stereo on a 24 kb/s 16 kHz mono track: 16 kHz mono, no more than 24 kb/s, and the plan says why")
    func poorSound() throws {
        let dir = Scratch()
        let src = dir.file("voice.m4a")
        var a = GeneratedAudioFormat(sampleRate: 16000, channels: 1)
        a.bitrate = 24_000
        let s = try FrameSource(path: src, video: nil, audio: a)
        try s.appendAudio(count: 16000 * 4) { _, n in Float(sin(Double(n) * 0.11)) * 0.3 }
        try s.finish()
        let sourceRate = try #require(Int(try Self.probe(src, "a:0", "bit_rate")["bit_rate"] ?? ""))
        let recipe = dir.file("r.yaml")
        try """
        recipe: 1
        output: "{dir}/{stem}-out.m4a"
        reader:
          outputs:
            sound: { track: audio }
        writer:
          inputs:
            - { source: sound, settings: aac-stereo }

        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", recipe, "-i", src], timeLimit: 60)
        #expect(plan.status == 0, "\(plan.stderr)")
        let lines = plan.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  sample-rate     16000        sample-rate.kept: the source's rate (never raised)"), "\(plan.stdout)")
        #expect(lines.contains("  channels        1            channels.kept: the source's 1 channel fits within 2"), "\(plan.stdout)")
        #expect(lines.contains("  bitrate         \(sourceRate)".padding(toLength: 31, withPad: " ", startingAt: 0)
                               + "audio-bitrate.source: the source's \(kbps(sourceRate)): the preset's 128 kb/s would be more than it has, and a re-encode adds nothing (never raised unless the recipe asks)"),
                "\(plan.stdout)")
        let run = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try Self.probe(dir.file("voice-out.m4a"), "a:0", "sample_rate,channels,bit_rate")
        #expect(out["sample_rate"] == "16000" && out["channels"] == "1", "\(out)")
        // AAC's rate control lands near its target: far below the 128 kb/s the preset names.
        let written = try #require(Int(out["bit_rate"] ?? ""))
        #expect(written <= sourceRate * 5 / 4, "\(written) b/s from a \(sourceRate) b/s source")
    }

    @Test("hevc-archive on anamorphic 4:2:2 PAL: 720x576 at 16:15, 4:2:2 kept, and the plan says so")
    func anamorphic422() throws {
        let dir = Scratch()
        let src = dir.file("dv.mov")
        var v = GeneratedVideoFormat(width: 720, height: 576, frameRate: FrameRate(frames: 25))
        v.pixelFormat = "yuv422p"
        v.pixelAspect = Ratio(16, 15)
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: src, video: v, audio: nil)
        for i in 0..<5 { try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        #expect(try Self.probe(src, "v:0", "pix_fmt,sample_aspect_ratio") == ["pix_fmt": "yuv422p", "sample_aspect_ratio": "16:15"])
        let recipe = Self.repo.appendingPathComponent("recipes/hevc-archive.yaml").path
        let plan = try Binary.run(["plan", recipe, "-i", src], timeLimit: 60)
        #expect(plan.status == 0, "\(plan.stderr)")
        let lines = plan.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  size            720x576      size.source: the source's stored size"), "\(plan.stdout)")
        #expect(lines.contains("  pixel-aspect    16:15        pixel-aspect.source: the source's: its pictures keep their stored size and are shown at 768x576, as the source's are"), "\(plan.stdout)")
        #expect(lines.contains("  pixel-format    yuv422p      pixel-format.keep-chroma: the source is 4:2:2: HEVC keeps it"), "\(plan.stdout)")
        let run = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try Self.probe(dir.file("dv-hevc.mp4"), "v:0", "codec_name,width,height,sample_aspect_ratio,display_aspect_ratio,pix_fmt")
        #expect(out == ["codec_name": "hevc", "width": "720", "height": "576", "sample_aspect_ratio": "16:15",
                        "display_aspect_ratio": "4:3", "pix_fmt": "yuv422p"])
    }
}
