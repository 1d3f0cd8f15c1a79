import Dispatch
import Foundation
import Pipeline
import Recipe
import Testing

/// Every real-world file with a video track (../shared/corpus, named by REENCODE_CORPUS) through
/// recipes/remux-passthrough.yaml into MP4, MOV and Matroska, against `ffmpeg -c copy` of the same
/// tracks (the first video track, the first audio track if any) into the same container: where
/// ffmpeg writes a file, reencode writes one too, with as many samples per track, every sample at
/// its source presentation time with one shift for all tracks (so the A/V offset is the source's).
/// Where ffmpeg writes nothing, reencode refuses and leaves nothing.
@Suite("Passthrough over the real-world corpus", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
struct PassthroughCorpusTests {
    static let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("recipes/remux-passthrough.yaml").path
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let containers = ["mp4", "mov", "mkv"]

    /// Files ffmpeg copies that reencode refuses on purpose: they are cut off, and a cut-off file
    /// is refused whatever the recipe (docs/engine.md, Damage).
    static let cutOff: Set<String> = ["mediabunny/annex-b.mp4", "mediabunny/no-aud.ts"]

    /// Matroska counts time in milliseconds, and so do the edit lists of FFmpeg's MP4/MOV muxer
    /// (a track starting late is delayed by whole ms, rounded down); a sample sharing its time with
    /// the one before it moves by a tick of its time base in MP4/MOV. Add a tick of the output
    /// track's time base for its rounding. None of it is a frame.
    static let tolerance = MediaTime(value: 1, timescale: 1000)

    struct Copy {
        var status: Int32 = -1
        var firstLine = ""
        /// Samples of the first video and first audio track (nil: none).
        var video: [PacketScan.Sample]?
        var audio: [PacketScan.Sample]?
        var leftover: [String] = []
        /// One tick of each output track's time base (video, audio).
        var ticks: (MediaTime, MediaTime) = (.zero, .zero)
    }

    /// A copy starts video at its first sync sample.
    static func copiable(_ video: [PacketScan.Sample]) -> Int {
        video.firstIndex(where: \.isSync).map { video.count - $0 } ?? 0
    }

    /// The samples of a file's first video track (not cover art) and first audio track.
    static func tracks(_ path: String) -> (video: Track?, audio: Track?, samples: [Int: [PacketScan.Sample]])? {
        guard let asset = try? Asset.load(path) else { return nil }
        let samples = (try? PacketScan.samples(path)) ?? [:]
        return (asset.videoTracks.first { !$0.isAttachedPicture }, asset.audioTracks.first, samples)
    }

    @Test("where ffmpeg -c copy writes a file, reencode copies the same samples at the same presentation times")
    func remuxLikeFFmpeg() throws {
        let ffmpeg = try #require(Self.ffmpeg, "the ffmpeg command line is needed for the cross-check")
        let files = CorpusTests.files()
        #expect(files.count > 0, "no files in \(CorpusTests.corpus)")
        var checked = 0
        for name in files {
            let src = CorpusTests.corpus + "/" + name
            guard let source = Self.tracks(src), let sv = source.video else { continue }
            checked += 1
            let maps = ["-map", "0:\(sv.index)"] + (source.audio.map { ["-map", "0:\($0.index)"] } ?? [])
            let dir = Scratch()
            let folder = dir.path
            // ffmpeg and reencode into each container, all at once: six short processes.
            let copies = Locked<[String: Copy]>([:])
            let group = DispatchGroup()
            for ext in Self.containers {
                for tool in ["ffmpeg", "reencode"] {
                    DispatchQueue.global().async(group: group) {
                        let c = Self.copy(folder + "/\(tool).\(ext)") { out in
                            tool == "ffmpeg"
                                ? try Binary.runTool(ffmpeg, ["-nostdin", "-v", "error", "-i", src] + maps + ["-c", "copy", out])
                                : try Binary.run(["run", Self.recipe, "-i", src, "-o", out, "--quiet"], timeLimit: 60)
                        }
                        copies.withLock { $0["\(tool).\(ext)"] = c }
                    }
                }
            }
            group.wait()
            for ext in Self.containers {
                guard let theirs = copies.withLock({ $0["ffmpeg.\(ext)"] }), let ours = copies.withLock({ $0["reencode.\(ext)"] }) else { continue }
                let what = "\(name) → .\(ext)"
                #expect(ours.status >= 0 && ours.status < 128, "\(what): crashed (status \(ours.status))")
                let ffmpegCopied = theirs.status == 0 && !(theirs.video ?? []).isEmpty
                if ours.status == 0 {
                    #expect(!Self.cutOff.contains(name), "\(what): a cut-off file was copied")
                    // Where ffmpeg copies too, as many samples per track; where it cannot, every one.
                    let expected = ffmpegCopied ? (theirs.video?.count ?? 0, theirs.audio?.count ?? 0)
                        : (Self.copiable(source.samples[sv.index] ?? []), source.audio.flatMap { source.samples[$0.index]?.count } ?? 0)
                    #expect((ours.video?.count ?? 0, ours.audio?.count ?? 0) == expected,
                            "\(what): samples (video, audio) \(ours.video?.count ?? 0), \(ours.audio?.count ?? 0); \(ffmpegCopied ? "ffmpeg" : "source") \(expected)")
                    let problems = Self.timing(source: (source.samples[sv.index] ?? [], source.audio.flatMap { source.samples[$0.index] }),
                                               output: (ours.video ?? [], ours.audio), ticks: ours.ticks)
                    #expect(problems.isEmpty, "\(what): \(problems.joined(separator: "; "))")
                } else {
                    #expect(!ffmpegCopied || Self.cutOff.contains(name), "\(what): ffmpeg copies it, reencode fails: \(ours.firstLine)")
                    #expect(ours.leftover.isEmpty, "\(what): failed but left \(ours.leftover)")
                    #expect(ours.firstLine.contains("error: "), "\(what): unclear failure: \(ours.firstLine)")
                    if Self.cutOff.contains(name) {
                        #expect(ours.firstLine.contains("the file is truncated or damaged"), "\(what): \(ours.firstLine)")
                    }
                }
            }
        }
        #expect(checked > 50, "only \(checked) files with a video track")
    }

    /// Runs one copy into `path` and reads what it wrote.
    static func copy(_ path: String, _ run: (String) throws -> Binary.Result) -> Copy {
        var c = Copy()
        guard let r = try? run(path) else { return c }
        c.status = r.status
        // Warnings (tracks not taken, …) come before the error line.
        c.firstLine = r.stderr.split(separator: "\n").first { !$0.hasPrefix("warning: ") }.map(String.init) ?? ""
        if r.status == 0, let out = tracks(path) {
            c.video = out.video.flatMap { out.samples[$0.index] }
            c.audio = out.audio.flatMap { out.samples[$0.index] }
            c.ticks = (out.video?.timeBase ?? .zero, out.audio?.timeBase ?? .zero)
        } else {
            let url = URL(fileURLWithPath: path)
            let folder = url.deletingLastPathComponent().path, name = url.lastPathComponent
            c.leftover = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.contains(name) }
        }
        return c
    }

    /// Every output sample sits at a source sample's presentation time, in order, moved by one
    /// shift for every track (taken from the last video samples: a copy runs to the end).
    /// Tracks whose source states no pts for some samples (AVI, broken MPEG) are not compared.
    static func timing(source: (video: [PacketScan.Sample], audio: [PacketScan.Sample]?),
                       output: (video: [PacketScan.Sample], audio: [PacketScan.Sample]?), ticks: (MediaTime, MediaTime)) -> [String] {
        var problems: [String] = []
        var shift: MediaTime?
        for (kind, src, out, tick) in [("video", source.video, output.video, ticks.0), ("audio", source.audio ?? [], output.audio ?? [], ticks.1)] {
            guard !out.isEmpty, !src.isEmpty, !src.contains(where: { $0.pts == nil }) else { continue }
            let s = src.compactMap(\.pts), o = out.compactMap(\.pts)
            guard let lastS = s.last, let lastO = o.last else { continue }
            let d = shift ?? lastS - lastO
            shift = d
            var i = 0
            for (n, t) in o.enumerated() {
                while i < s.count && abs(t + d - s[i]) > tolerance + tick { i += 1 }
                if i == s.count {
                    problems.append("\(kind) sample \(n) at \((t + d).secondsDescription) (source timeline) is at no source time in order")
                    break
                }
                i += 1
            }
        }
        return problems
    }

    static func abs(_ t: MediaTime) -> MediaTime { t.value < 0 ? t.negated : t }
}

extension Binary {
    /// Runs another command line (ffmpeg) and waits.
    static func runTool(_ tool: String, _ args: [String]) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return finish(p, out, err)
    }
}
