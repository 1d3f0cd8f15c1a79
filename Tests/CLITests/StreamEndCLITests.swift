import Foundation
import Pipeline
import Recipe
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Cut-off sources that state no length, or whose cut track is not converted, on the command
/// line: the exact error (file, track, time where the data ends, why), exit 1, nothing written.
@Suite("Cut-off Ogg, MPEG-PS and partly read FLV on the command line")
struct StreamEndCLITests {
    /// `src` cut to its first `bytes` bytes, as `path`.
    static func cut(_ src: String, _ bytes: Int, _ path: String) throws {
        try Data(contentsOf: URL(fileURLWithPath: src)).prefix(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func expectRefused(_ recipe: String, _ src: String, _ dir: Scratch, _ reason: String) throws {
        let out = dir.file("out.m4a")
        let r = try Binary.run(["run", repo.appendingPathComponent("recipes/\(recipe).yaml").path, "-i", src, "-o", out], timeLimit: 60)
        #expect(r.status == 1, "\(src): \(r.stderr)")
        let pattern = #"^(warning: .*\n)*error: \#(NSRegularExpression.escapedPattern(for: src)): track #[01] at [0-9.]+s: the file is truncated or damaged: "# + reason + #"\n$"#
        #expect(r.stderr.range(of: pattern, options: .regularExpression) != nil, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("extract-audio-m4a on an Ogg cut between pages, an MPEG-PS cut between packs, an FLV cut after a sample: 1, the file, the time, why")
    func refused() throws {
        let dir = Scratch()
        let made = dir.file("made.mp4")
        try BatchFixture.clip(made, seconds: 2)
        let ogg = dir.file("whole.ogg")
        try InterlacedCLITests.ffmpeg(["-i", made, "-vn", "-c:a", "libvorbis", "-page_duration", "200000", ogg])
        // The last page is the end-of-stream page: cut before it.
        let pages = try Data(contentsOf: URL(fileURLWithPath: ogg))
        let lastPage = try #require(pages.lastRange(of: Data("OggS".utf8))?.lowerBound)
        try Self.cut(ogg, lastPage, dir.file("cut.ogg"))
        try Self.expectRefused("extract-audio-m4a", dir.file("cut.ogg"), dir,
                               #"its media ends at [0-9.]+s, but a whole Ogg stream ends each of its streams with an end-of-stream page, and its last page of stream 0x[0-9a-f]{8} is not one"#)
        let mpg = dir.file("whole.mpg")
        try InterlacedCLITests.ffmpeg(["-i", made, "-c:v", "mpeg2video", "-q:v", "2", "-c:a", "mp2", "-f", "vob", mpg])
        let size = try FileManager.default.attributesOfItem(atPath: mpg)[.size] as! Int
        try Self.cut(mpg, size / 2 / 2048 * 2048, dir.file("cut.mpg"))
        try Self.expectRefused("extract-audio-m4a", dir.file("cut.mpg"), dir,
                               #"its media ends at [0-9.]+s inside a picture \(its slices stop at row [0-9]+ of [0-9]+\), and the program stream has no end code"#)
        // A DVD title's part, split at 1 GiB wherever that fell: the message says to join them.
        try Self.cut(mpg, size / 2 / 2048 * 2048, dir.file("VTS_01_1.VOB"))
        try Self.expectRefused("extract-audio-m4a", dir.file("VTS_01_1.VOB"), dir,
                               #"its media ends at [0-9.]+s inside a picture \(its slices stop at row [0-9]+ of [0-9]+\), and the program stream has no end code; a DVD title's VOB parts are split every 1 GiB wherever that falls: join them first \(cat VTS_01_1.VOB VTS_01_2.VOB … > title.vob\)"#)
        let flv = dir.file("whole.flv")
        try InterlacedCLITests.ffmpeg(["-i", made, "-c:v", "flv1", "-c:a", "libmp3lame", "-ar", "44100", flv])
        let flvSize = try FileManager.default.attributesOfItem(atPath: flv)[.size] as! Int
        try Self.cut(flv, flvSize / 2, dir.file("cut.flv"))
        let r = try Binary.run(["run", repo.appendingPathComponent("recipes/extract-audio-m4a.yaml").path, "-i", dir.file("cut.flv"), "-o", dir.file("out.m4a")], timeLimit: 60)
        #expect(r.status == 1 && r.stderr.contains("error: \(dir.file("cut.flv")): track #") && r.stderr.contains(": the file is truncated or damaged"), "\(r.stderr)")
        // The whole files convert.
        for whole in [ogg, mpg, flv] {
            let out = dir.file("ok.m4a")
            let ok = try Binary.run(["run", repo.appendingPathComponent("recipes/extract-audio-m4a.yaml").path, "-i", whole, "-o", out, "--quiet"], timeLimit: 60)
            #expect(ok.status == 0, "\(whole): \(ok.stderr)")
            try? FileManager.default.removeItem(atPath: out)
        }
    }
}
