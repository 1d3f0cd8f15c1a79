import Foundation
import Testing

/// A real browser plays reencode's WebM: headless Chromium (scripts/browser-play.sh, which
/// installs Debian's `chromium` where it is missing) plays VP9 + Opus and AV1 + Opus outputs to
/// their end, with as many video frames as the file has and none corrupted.
@Suite("WebM in a browser: headless Chromium plays VP9 + Opus and AV1 + Opus to the end", .serialized)
struct WebMBrowserTests {
    static let script = BatchFixture.repo.appendingPathComponent("scripts/browser-play.sh").path

    @Test("each output ends in Chromium at the file's duration, every frame counted, none corrupted")
    func plays() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 2)
        var outputs: [String] = []
        for (name, settings) in [("vp9", "{ codec-options: { cpu-used: '8' } }"), ("av1", "{ codec: av1, codec-options: { preset: '12' } }")] {
            // The sound is left open: WebM's Opus.
            let recipe = try NegotiationCLITests.recipe(dir, ContainerCLITests.recipe("webm", video: settings, audio: "", suffix: name), name: "\(name).yaml")
            let r = try Binary.run(["run", recipe, "-i", src, "--progress", "none", "--quiet"], timeLimit: 120)
            #expect(r.status == 0 && r.stderr == "", "\(name): \(r.stderr)")
            outputs.append(dir.file("clip-\(name).webm"))
        }
        let played = try BatchFixture.daemonShell([Self.script] + outputs)
        if played.status == 77 {
            // Only where Chromium cannot be installed or run (not root, no apt), and it says why.
            print("WebMBrowserTests skipped: \(played.stderr)")
            return
        }
        #expect(played.status == 0, "\(played.stderr)")
        let lines = played.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == outputs.count, "\(played.stdout)")
        for (out, line) in zip(outputs, lines) {
            let prefix = "PLAYBACK \(out) "
            try #require(line.hasPrefix(prefix), "\(line)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(prefix.count).utf8)) as? [String: Any])
            let probed = try HDRCorpusTests.ffprobe(["-count_frames", "-show_entries", "stream=codec_name,nb_read_frames:format=duration", "-of", "default=nw=1", out])
            let codec = probed.first { $0.hasPrefix("codec_name=") }, frames = probed.first { $0.hasPrefix("nb_read_frames=") }.flatMap { Int($0.dropFirst(15)) }
            let duration = probed.first { $0.hasPrefix("duration=") }.flatMap { Double($0.dropFirst(9)) }
            #expect(codec == (out.hasSuffix("-vp9.webm") ? "codec_name=vp9" : "codec_name=av1"))
            #expect(frames == 60)
            #expect(report["state"] as? String == "ended" && report["ended"] as? Bool == true, "\(out): \(report)")
            #expect(report["total"] as? Int == frames, "\(out): \(report)")
            #expect(report["corrupted"] as? Int == 0, "\(out): \(report)")
            #expect((report["duration"] as? Double).map { d in duration.map { abs($0 - d) < 0.0005 } ?? false } == true, "\(out): \(report) vs \(String(describing: duration))")
        }
    }
}
