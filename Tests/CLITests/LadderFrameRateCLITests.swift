import Foundation
import Pipeline
import Recipe
import Testing

/// The frame-rate column of Apple's HLS authoring specification on `ladder: auto`: against a
/// 60 fps frame-stamped 960x540 source, the four smallest rungs (at most 30 fps) show every other
/// source picture at 30 fps, the 960x540 rung (the source's rate) every picture at 60 fps; the
/// segments of every rendition start at the same instants with the same source picture; the
/// master playlist says each rung's real rate and lists the 2000 kb/s rung first.
@Suite("reencode plan/run: ladder: auto's frame-rate column against a 60 fps source", .serialized)
struct LadderFrameRateCLITests {
    static let low = ["234p-145k", "360p-365k", "432p-730k", "432p-1100k"], top = "540p-2000k"

    /// A 60 fps frame-stamped 960x540 H.264 source with 48 kHz sound, 2 s.
    static func source(_ path: String) throws {
        let rate = FrameRate(frames: 60)
        let s = try FrameSource(path: path, video: .droppableH264(width: 960, height: 540, frameRate: rate), audio: GeneratedAudioFormat())
        for i in 0..<120 {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            if i % 60 == 59 { try s.appendAudio(count: 48000) { _, n in Float(sin(Double(n) * 0.05)) * 0.3 } }
        }
        try s.finish()
    }

    static func setUp() throws -> Scratch {
        let dir = Scratch()
        try source(dir.file("s.mp4"))
        try LadderCLITests.recipe(dir.file("pkg")).write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        return dir
    }

    /// One run, shared by the checks of what it wrote (its folder is left in the temporary
    /// folder: a static is never deinitialised).
    struct Made: Sendable {
        let path: String
        let status: Int32
        let stderr: String
        var package: WrittenPackage { WrittenPackage(folder: path + "/pkg") }
    }
    static let made: Made = {
        let path = NSTemporaryDirectory() + "reencode-cli-tests/ladder-fps-\(UInt32.random(in: 0...UInt32.max))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try! source(path + "/s.mp4")
        try! LadderCLITests.recipe(path + "/pkg").write(toFile: path + "/r.yaml", atomically: true, encoding: .utf8)
        let r = try! Binary.run(["run", path + "/r.yaml", "-i", path + "/s.mp4"], timeLimit: 300, cwd: path)
        return Made(path: path, status: r.status, stderr: r.stderr)
    }()

    @Test("plan: per rung its frame rate against the specification's column and the source's; the small rungs' frame-rate capped to 30; JSON alike")
    func plan() throws {
        let dir = try Self.setUp()
        let r = try Binary.run(["plan", dir.file("r.yaml"), "-i", dir.file("s.mp4"), "--estimate", "fast"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let rates = lines.filter { $0.hasPrefix("ladder ") && $0.contains(" fps (") }
        #expect(rates == Self.low.map { "ladder   rung \($0): 30 fps (the specification's rung: at most 30 fps; the source: 60 fps)" }
                + ["ladder   rung \(Self.top): 60 fps (the specification's rung: the source's rate; the source: 60 fps)"], "\(r.stdout)")
        let frameRates = lines.filter { $0.hasPrefix("  frame-rate ") }.map { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map(String.init) }
        #expect(frameRates == ["30", "30", "30", "30", "source"], "\(r.stdout)")
        #expect(lines.filter { $0.hasPrefix("  frame-rate ") }.first?.hasSuffix("frame-rate.cap: the 60 fps source is capped to 30 fps") == true, "\(r.stdout)")

        let j = try Binary.run(["plan", dir.file("r.yaml"), "-i", dir.file("s.mp4"), "--estimate", "fast", "--json"], timeLimit: 120, cwd: dir.path)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let outputs = try #require(o["outputs"] as? [[String: Any]])
        let rungs = outputs.prefix(5).compactMap { ($0["ladder"] as? [String: Any])?["rung"] as? [String: Any] }
        #expect(rungs.map { $0["rendition"] as? String } == Self.low + [Self.top])
        #expect(rungs.map { $0["frameRate"] as? String } == ["30", "30", "30", "30", "60"])
        #expect(rungs.map { $0["maxFrameRate"] as? Int } == [30, 30, 30, 30, nil])
        let all = try #require((outputs[0]["ladder"] as? [String: Any])?["rungs"] as? [[String: Any]])
        #expect(all.map { $0["maxFrameRate"] as? Int } == [30, 30, 30, 30, nil, nil, nil, nil, nil])
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }

    @Test("master.m3u8: the 2000 kb/s rung first, then the others smallest first; FRAME-RATE the rate each rung was written at")
    func master() throws {
        #expect(Self.made.status == 0, "\(Self.made.stderr)")
        let variants = try Self.made.package.variants()
        #expect(variants.map(\.uri) == ([Self.top] + Self.low).map { "\($0)/playlist.m3u8" })
        #expect(variants.map { $0.attributes["FRAME-RATE"] } == ["60.000", "30.000", "30.000", "30.000", "30.000"])
        let read = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-i", Self.made.package.file("master.m3u8"), "-map", "0", "-f", "null", "-"])
        #expect(read.status == 0 && read.stderr.isEmpty, "\(read.stderr)")
    }

    @Test("the small rungs show source pictures 0, 2, 4 … 118 at k/30 s, the 960x540 rung every picture at k/60 s")
    func pictures() throws {
        #expect(Self.made.status == 0, "\(Self.made.stderr)")
        let scratch = Scratch()
        for name in Self.low + [Self.top] {
            try Self.made.package.joined(name, segments: [1, 2], into: scratch.file("v.mp4"))
            let s = try CompositionRunCLITests.stamps(scratch.file("v.mp4"))
            let step = name == Self.top ? 1 : 2, rate = name == Self.top ? 60.0 : 30.0
            #expect(s.map(\.stamp) == stride(from: 0, to: 120, by: step).map { Optional($0) }, "\(name): \(s.map(\.stamp))")
            let off = s.enumerated().filter { k, p in abs(p.pts.seconds - Double(k) / rate) > 1e-6 }
            #expect(s.count == 120 / step && off.isEmpty, "\(name): \(off.prefix(3).map { "\($0.offset): \($0.element.pts.seconds)" })")
        }
    }

    @Test("segments start at 0 s and 1 s in every rendition, with the same source picture; a switch from 60 to 30 fps continues the pictures")
    func segments() throws {
        #expect(Self.made.status == 0, "\(Self.made.stderr)")
        let scratch = Scratch()
        for name in Self.low + [Self.top] {
            #expect(try Self.made.package.media(name).durations == [1, 1], "\(name)")
            for k in [1, 2] {
                try Self.made.package.joined(name, segments: [k], into: scratch.file("seg.mp4"))
                let first = try #require(try CompositionRunCLITests.stamps(scratch.file("seg.mp4")).first)
                #expect(first.stamp == 60 * (k - 1) && abs(first.pts.seconds - Double(k - 1)) < 1e-6, "\(name) segment \(k): \(first)")
            }
        }
        try Self.made.package.joined(Self.top, segments: [1], into: scratch.file("a.mp4"))
        try Self.made.package.joined("234p-145k", segments: [2], into: scratch.file("b.mp4"))
        let a = try CompositionRunCLITests.stamps(scratch.file("a.mp4")).map(\.stamp), b = try CompositionRunCLITests.stamps(scratch.file("b.mp4")).map(\.stamp)
        #expect(a + b == (Array(0..<60) + stride(from: 60, to: 120, by: 2)).map { Optional($0) }, "\(a.suffix(2)) \(b.prefix(2))")
    }

    @Test("a segment length at which the 30 and 60 fps rungs' pictures part (0.05 s): 65 at the segment line from plan and run, before anything is encoded, nothing written")
    func segmentBetweenPictures() throws {
        let dir = Scratch()
        try Self.source(dir.file("s.mp4"))
        try LadderCLITests.recipe(dir.file("pkg")).replacingOccurrences(of: "segment: 1s", with: "segment: 0.05s")
            .write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let why = "r.yaml:6:14: error: segment 2 of \(dir.file("pkg")) would start at 0.067s in rendition 234p-145k (30 fps) but at 0.050s in 540p-2000k (60 fps): "
            + "each starts at its first picture at or after 0.050s, so their segments would not line up; make 'segment' a length at which their pictures meet (whole seconds for 30 and 60 fps)\n"
        for command in ["plan", "run"] {
            let r = try Binary.run([command, "r.yaml", "-i", dir.file("s.mp4")], timeLimit: 60, cwd: dir.path)
            #expect(r.status == 65 && r.stderr.hasPrefix(why), "\(command): \(r.stderr)")
            #expect(!r.stderr.contains("wrote ") && !r.stderr.contains("do not line up"), "\(command): \(r.stderr)")
        }
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }
}
