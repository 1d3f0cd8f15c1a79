import Foundation
import Testing

/// A package that cannot be made is refused with nothing written; a stopped or killed run leaves
/// no package folder, and a killed run's temporary folder is removed by the next run.
@Suite("reencode run: HLS packages refused, stopped and killed leave nothing behind", .serialized)
struct HLSPackageRefusalCLITests {
    static func recipe(segment: String, path: String = "pkg") -> String {
        """
        recipe: 1
        reader: { outputs: { v: { track: video }, a: { track: audio } } }
        outputs:
          - path: \(path)
            format: hls
            segment: \(segment)
            renditions:
              - { name: lo, inputs: [ { source: v, settings: { codec: h264, width: 320, height: 180, codec-options: { preset: ultrafast } } } ] }
              - { name: snd, inputs: [ { source: a, settings: { codec: aac, bitrate: 64k } } ] }
        """
    }

    static func setUp(segment: String, seconds: Int = 2) throws -> Scratch {
        let dir = Scratch()
        try PackageTools.source(dir.file("s.mp4"), seconds: seconds)
        try recipe(segment: segment, path: dir.file("pkg")).write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        return dir
    }

    @Test("a segment of 0, over 60 s, or under one frame (5ms at 30 fps): 65 at the segment's line, nothing written",
          arguments: [("0s", "'segment' must be longer than 0 and at most 60s, not '0s'"),
                      ("61s", "'segment' must be longer than 0 and at most 60s, not '61s'"),
                      ("5ms", "track #0: segments of 0.005s are shorter than one frame at 30 fps (0.033s): each segment starts with a picture of its own")])
    func segmentLength(segment: String, why: String) throws {
        let dir = try Self.setUp(segment: segment)
        let r = try Binary.run(["run", dir.file("r.yaml"), "-i", dir.file("s.mp4")], timeLimit: 60, cwd: dir.path)
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("\(dir.file("r.yaml")):6:14: error: ") && r.stderr.contains(why), "\(r.stderr)")
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }

    @Test("a codec the playlists cannot name (VP9 or AV1 video, Opus or FLAC sound): validate, plan and run refuse it at its codec's line (65), nothing written",
          arguments: [("{ codec: vp9 }", "{ codec: aac }", "7:56", "writer input 1 encodes the video track ('v') as VP9 (codec vp9), but an hls package holds H.264 or HEVC video and AAC sound only"),
                      ("{ codec: av1 }", "{ codec: aac }", "7:56", "writer input 1 encodes the video track ('v') as AV1 (codec av1), but an hls package holds H.264 or HEVC video and AAC sound only"),
                      ("{ codec: h264 }", "{ codec: opus }", "8:57", "writer input 1 encodes the audio track ('a') as Opus (codec opus), but an hls package holds H.264 or HEVC video and AAC sound only"),
                      ("{ codec: hevc }", "{ codec: flac }", "8:57", "writer input 1 encodes the audio track ('a') as FLAC (codec flac), but an hls package holds H.264 or HEVC video and AAC sound only")])
    func codecs(video: String, audio: String, at: String, why: String) throws {
        let dir = Scratch()
        try PackageTools.source(dir.file("s.mp4"), seconds: 1)
        try """
            recipe: 1
            reader: { outputs: { v: { track: video }, a: { track: audio } } }
            outputs:
              - path: \(dir.file("pkg"))
                format: hls
                renditions:
                  - { name: lo, inputs: [ { source: v, settings: \(video) } ] }
                  - { name: snd, inputs: [ { source: a, settings: \(audio) } ] }
            """.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        for command in ["validate", "plan", "run"] {
            let r = try Binary.run([command, dir.file("r.yaml")] + (command == "validate" ? [] : ["-i", dir.file("s.mp4")]), timeLimit: 60, cwd: dir.path)
            #expect(r.status == 65, "\(command): \(r.stderr)")
            #expect(r.stderr.hasPrefix("\(dir.file("r.yaml")):\(at): error: \(why)"), "\(command): \(r.stderr)")
        }
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }

    @Test("a file where the package folder goes: an error naming it (73), the file untouched, nothing written")
    func fileInTheWay() throws {
        let dir = try Self.setUp(segment: "1s")
        try "keep".write(toFile: dir.file("pkg"), atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", dir.file("r.yaml"), "-i", dir.file("s.mp4")], timeLimit: 60, cwd: dir.path)
        #expect(r.status == 73)
        #expect(r.stderr == "error: \(dir.file("pkg")): is a file: an hls output is a folder of segments and playlists; name another path or remove the file\n")
        let kept = try String(contentsOfFile: dir.file("pkg"), encoding: .utf8)
        #expect(dir.contents == ["pkg", "r.yaml", "s.mp4"] && kept == "keep")
    }

    @Test("an existing package: 73 without --overwrite (untouched); replaced whole with it; a folder that is no package is never replaced")
    func existing() throws {
        let dir = try Self.setUp(segment: "1s")
        let run = { (extra: [String]) in try Binary.run(["run", dir.file("r.yaml"), "-i", dir.file("s.mp4")] + extra, timeLimit: 120, cwd: dir.path) }
        #expect(try run([]).status == 0)
        try "stale".write(toFile: dir.file("pkg/old.txt"), atomically: true, encoding: .utf8)
        let again = try run([])
        #expect(again.status == 73 && again.stderr == "error: \(dir.file("pkg")): already exists (use --overwrite to replace it)\n", "\(again.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("pkg/old.txt")))
        let replaced = try run(["--overwrite"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("pkg/old.txt")) && FileManager.default.fileExists(atPath: dir.file("pkg/master.m3u8")))
        #expect(dir.contents == ["pkg", "r.yaml", "s.mp4"])
        try FileManager.default.removeItem(atPath: dir.file("pkg"))
        try FileManager.default.createDirectory(atPath: dir.file("pkg"), withIntermediateDirectories: false)
        let other = try run(["--overwrite"])
        #expect(other.status == 73 && other.stderr.contains("\(dir.file("pkg")): is a folder without master.m3u8 or manifest.mpd: only a package folder is replaced"), "\(other.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("pkg")).isEmpty)
    }

    @Test("SIGINT while the renditions are encoded: 130, no package folder and no temporary folder")
    func interrupted() throws {
        let dir = try Self.setUp(segment: "1s", seconds: 20)
        let r = try UnderWay.run(["run", dir.file("r.yaml"), "-i", dir.file("s.mp4")], signal: SIGINT, tempUnder: dir.path)
        #expect(r.status == 130, "\(r.stderr)")
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }

    @Test("SIGKILL leaves the temporary folder; the next run for that package removes it and makes the package")
    func killed() throws {
        let dir = try Self.setUp(segment: "1s", seconds: 20)
        _ = try UnderWay.run(["run", dir.file("r.yaml"), "-i", dir.file("s.mp4")], signal: SIGKILL, tempUnder: dir.path)
        #expect(dir.contents.contains { $0.hasPrefix(".pkg.reencode-tmp-") }, "\(dir.contents)")
        let r = try Binary.run(["run", dir.file("r.yaml"), "-i", dir.file("s.mp4")], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(dir.contents == ["pkg", "r.yaml", "s.mp4"])
    }
}
