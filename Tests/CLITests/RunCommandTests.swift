import Foundation
import Pipeline
import Recipe
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A 120 fps frame-stamped source with audio, `seconds` long.
private func makeSource(_ path: String, seconds: Int = 3, width: Int = 640, height: Int = 360) throws {
    let rate = FrameRate(frames: 120)
    let s = try FrameSource(path: path, video: .droppableH264(width: width, height: height, frameRate: rate), audio: GeneratedAudioFormat())
    for i in 0..<(seconds * 120) {
        try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
        if i % 120 == 119 { try s.appendAudio(count: 48000) { _, n in Float(sin(Double(n) * 0.06)) * 0.3 } }
    }
    try s.finish()
}

@Suite("reencode run, validate, plan, presets", .serialized)
struct RunCommandTests {
    @Test("every recipe in recipes/ runs end to end on a generated source")
    func everyRecipe() throws {
        let recipes = try FileManager.default.contentsOfDirectory(atPath: repo.appendingPathComponent("recipes").path)
            .filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(recipes.count >= 7)
        for name in recipes {
            let dir = Scratch()
            let src = dir.file("clip.mp4")
            try makeSource(src)
            let recipePath = repo.appendingPathComponent("recipes/\(name)").path
            let recipe = try RecipeParser.parse(String(contentsOfFile: recipePath, encoding: .utf8), file: name).get()
            if recipe.composition != nil {
                if name == "music-bed.yaml" {
                    try FileManager.default.createDirectory(atPath: dir.file("samples"), withIntermediateDirectories: true)
                    try FileManager.default.copyItem(atPath: repo.appendingPathComponent("samples/music.m4a").path, toPath: dir.file("samples/music.m4a"))
                }
                if name == "concat.yaml" || name == "crossfade.yaml" || name == "pip.yaml" {
                    // Its intro and outro are the shipped samples, relative to the current folder.
                    try FileManager.default.createDirectory(atPath: dir.file("samples"), withIntermediateDirectories: true)
                    for f in ["intro.mp4", "outro.mp4"] {
                        try FileManager.default.copyItem(atPath: repo.appendingPathComponent("samples/\(f)").path, toPath: dir.file("samples/\(f)"))
                    }
                }
                let r = try Binary.run(["run", recipePath, "-i", src, "--quiet"], cwd: dir.path)
                let text = try String(contentsOfFile: recipePath, encoding: .utf8).components(separatedBy: "\n")
                /// The recipe line:col of `token` in the first line that starts with `prefix` (after blanks).
                func at(_ prefix: String, _ token: String? = nil) -> String {
                    guard let i = text.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(prefix) }),
                          let r = text[i].range(of: token ?? prefix) else { return "?" }
                    return "\(i + 1):\(text[i].distance(from: text[i].startIndex, to: r.lowerBound) + 1)"
                }
                switch name {
                case "cut-out.yaml":
                    // 0–1 s and 2–3 s of the 120 fps clip, joined: frames 0–119 then 240–359.
                    #expect(r.status == 0, "\(name): \(r.stderr)")
                    // Under out/ of the folder it runs in (the recipe's output path), as each composition recipe with a sample.
                    #expect(dir.contents == ["clip.mp4", "out"] && FileManager.default.fileExists(atPath: dir.file("out/clip-cut.mp4")))
                    let stamps = try SampleReaderStamps.read(dir.file("out/clip-cut.mp4"))
                    #expect(stamps == (Array(0..<120) + Array(240..<360)).map { Optional($0) }, "\(name)")
                    #expect(abs(try Asset.load(dir.file("out/clip-cut.mp4")).duration.seconds - 2) < 0.05)
                case "smart-cut.yaml":
                    // Made for long recordings (1:00–1:30 cut out): the 3 s clip has no 90 s, said at the segment.
                    #expect(r.status == 65, "\(name): \(r.stderr)")
                    #expect(r.stderr.hasPrefix("\(recipePath):\(at("- { start: 90s", "90s")): error: \(src): segment 2: it starts at 90.000s, at or after the end of \(src) (3.000s)\n"), "\(r.stderr)")
                    #expect(dir.contents == ["clip.mp4"])
                case "slomo-240-to-30.yaml":
                    // 1 s + 1–2 s at 1/8 speed + 1 s: 10 s, its sound stretched with its pitch kept.
                    #expect(r.status == 0, "\(name): \(r.stderr)")
                    #expect(dir.contents == ["clip.mp4", "out"])
                    #expect(abs(try Asset.load(dir.file("out/clip-slomo.mp4")).duration.seconds - 10) < 0.05)
                case "phone-slow-motion.yaml":
                    // The clip holds no slow-motion data: it plays as stored (the plan warns),
                    // every frame in order, its sound kept.
                    #expect(r.status == 0, "\(name): \(r.stderr)")
                    #expect(dir.contents == ["clip-flattened.mp4", "clip.mp4"])
                    let out = dir.file("clip-flattened.mp4")
                    #expect(try SampleReaderStamps.read(out) == (0..<360).map { Optional($0) }, "\(name)")
                    #expect(try Asset.load(out).audioTracks.count == 1)
                case "concat.yaml":
                    // samples/intro.mp4 (2 s, 1280x720, 25 fps), the 3 s 640x360 clip at 120 fps,
                    // samples/outro.mp4 (2 s, 640x480 4:3, 60 fps): 7 s at 120 fps in 1280x720.
                    #expect(r.status == 0, "\(name): \(r.stderr)")
                    let out = dir.file("out/clip-with-intro.mp4")
                    let video = try #require(try Asset.load(out).track(.video, ordinal: 0))
                    #expect(video.format.width == 1280 && video.format.height == 720)
                    let reader = try SampleReader(path: out, track: .type(.video, 0))
                    var pictures: [DecodedPicture] = []
                    while let p = try reader.nextPicture() { pictures.append(p) }
                    #expect(pictures.count == 840)
                    #expect(pictures.first?.stamp == 0 && pictures[239].stamp == 50 - 1 && pictures[240].stamp == 0 && pictures[599].stamp == 359)
                    // The outro is pillarboxed: 960x720 in the middle.
                    #expect(pictures[600].stamp(x: 160, y: 0, width: 960, height: 720) == 0)
                    #expect(pictures[839].stamp(x: 160, y: 0, width: 960, height: 720) == 119)
                    let audio = try #require(try Asset.load(out).track(.audio, ordinal: 0))
                    #expect(abs(audio.duration.seconds - 7) < 0.03, "sound lasts \(audio.duration.seconds) s")
                case "fade-in-out.yaml":
                    // The 3 s clip from black and silence over its first second, to them over its last.
                    #expect(r.status == 0, "\(name): \(r.stderr)")
                    let out = dir.file("out/clip-faded.mp4")
                    let reader = try SampleReader(path: out, track: .type(.video, 0))
                    var pictures: [DecodedPicture] = []
                    while let p = try reader.nextPicture() { pictures.append(p) }
                    #expect(pictures.count == 360)
                    func mean(_ p: DecodedPicture) -> Double { Double(p.luma.reduce(0) { $0 + Int($1) }) / Double(p.luma.count) }
                    #expect(mean(pictures[0]) < 2, "the first picture is black: \(mean(pictures[0]))")
                    // Untouched between the fades: every frame its own.
                    #expect(pictures[120..<240].map(\.stamp) == (120..<240).map { Optional($0) })
                    // Halfway through each fade, half the brightness of the same picture unfaded.
                    let full = mean(pictures[120])
                    #expect(abs(mean(pictures[60]) / full - 0.5) < 0.05, "at 0.5 s: \(mean(pictures[60]) / full) of full")
                    #expect(abs(mean(pictures[300]) / full - 0.5) < 0.05, "at 2.5 s: \(mean(pictures[300]) / full) of full")
                    let sound = try SampleReader(path: out, track: .type(.audio, 0))
                    var x: [Float] = []
                    while let a = try sound.nextAudio() { x += a.samples }
                    func rms(_ t: Double) -> Double {
                        let a = Int(t * 48000) - 480
                        return (x[a..<(a + 960)].reduce(0.0) { $0 + Double($1) * Double($1) } / 960).squareRoot()
                    }
                    #expect(abs(20 * log10(rms(0.5) / rms(1.5)) + 6.02) < 1, "the sound at 0.5 s: \(20 * log10(rms(0.5) / rms(1.5))) dB")
                    #expect(rms(2.99) < rms(1.5) / 20, "silent at the end")
                case "music-bed.yaml":
                    // The 3 s clip with samples/music.m4a (8 s) under it: cut at 3 s, at -6 dB, then
                    // -18 dB from 1.5 s, faded out over the last second. The music's 220 Hz note
                    // is measured where nothing else changes: its level follows the recipe.
                    #expect(r.status == 0, "\(name): \(r.stderr)")
                    let out = dir.file("out/clip-music.mp4")
                    #expect(try SampleReaderStamps.read(out) == (0..<360).map { Optional($0) }, "\(name)")
                    let audio = try #require(try Asset.load(out).track(.audio, ordinal: 0))
                    #expect(abs(audio.duration.seconds - 3) < 0.03, "the music is cut where the clip ends: \(audio.duration.seconds) s")
                    let reader = try SampleReader(path: out, track: .type(.audio, 0))
                    var x: [Float] = []
                    while let a = try reader.nextAudio() { x += a.samples }
                    /// The 220 Hz magnitude of 100 ms (Hann window) from `t`.
                    func note(at t: Double) -> Double {
                        let a = Int(t * 48000), n = 4800
                        var s1 = 0.0, s2 = 0.0
                        let c = 2 * cos(2 * Double.pi * 220 / 48000)
                        for i in 0..<n {
                            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1))
                            let s0 = w * Double(x[a + i]) + c * s1 - s2
                            s2 = s1; s1 = s0
                        }
                        return (s1 * s1 + s2 * s2 - c * s1 * s2).squareRoot()
                    }
                    /// The music's own swell (make-sample.sh --music) at the window's middle.
                    func swell(_ t: Double) -> Double { 0.75 + 0.25 * sin(Double.pi * (t + 0.05)) }
                    let early = note(at: 0.7), late = note(at: 1.7)
                    let expected = 20 * log10(swell(1.7) * pow(10, -18.0 / 20) / (swell(0.7) * pow(10, -6.0 / 20)))
                    #expect(abs(20 * log10(late / early) - expected) < 1, "the music lowered by 12 dB: \(20 * log10(late / early)) dB, expected \(expected)")
                    #expect(20 * log10(note(at: 2.9) / early) < -25, "faded out at the end: \(20 * log10(note(at: 2.9) / early)) dB")
                case "crossfade.yaml":
                    // samples/intro.mp4 (2 s, 1280x720, 25 fps), the 3 s clip (640x360, 120 fps),
                    // samples/outro.mp4 (2 s, 640x480, 60 fps), cross-faded over 1.5–2.5 s and
                    // 4.75–5.25 s: still 7 s at 120 fps in 1280x720; outside the fades each shows itself.
                    #expect(r.status == 0, "\(name): \(r.stderr)")
                    let out = dir.file("out/clip-crossfaded.mp4")
                    let reader = try SampleReader(path: out, track: .type(.video, 0))
                    var pictures: [DecodedPicture] = []
                    while let p = try reader.nextPicture() { pictures.append(p) }
                    #expect(pictures.count == 840)
                    #expect(pictures[0].stamp == 0 && pictures[179].stamp == 37, "the intro before the first fade")
                    #expect(pictures[300].stamp == 60 && pictures[570].stamp == 330, "the clip between the fades (its 0.5 s, its 2.75 s)")
                    #expect(pictures[630].stamp(x: 160, y: 0, width: 960, height: 720) == 15 && pictures[839].stamp(x: 160, y: 0, width: 960, height: 720) == 119, "the outro after")
                    // The first fade's middle: neither picture alone (no stamp reads), between their brightness.
                    #expect(pictures[240].stamp == nil)
                    let audio = try #require(try Asset.load(out).track(.audio, ordinal: 0))
                    #expect(abs(audio.duration.seconds - 7) < 0.03, "sound lasts \(audio.duration.seconds) s")
                case "pip.yaml":
                    // The 3 s clip (640x360) with samples/intro.mp4 in 442,14 173x97 (69%, 4%, 27%, 27%)
                    // from 0.5 s for 2 s, fading in over 0.5–1 s and out over 2–2.5 s.
                    #expect(r.status == 0, "\(name): \(r.stderr)")
                    let out = dir.file("out/clip-pip.mp4")
                    let reader = try SampleReader(path: out, track: .type(.video, 0))
                    var pictures: [DecodedPicture] = []
                    while let p = try reader.nextPicture() { pictures.append(p) }
                    #expect(pictures.count == 360)
                    #expect((0..<60).allSatisfy { pictures[$0].stamp == $0 } && (300..<360).allSatisfy { pictures[$0].stamp == $0 }, "the clip alone before and after the inset")
                    // While opaque (1–2 s), the rectangle shows the intro's frame nearest its time (ties to the earlier).
                    let inset = (120..<240).map { pictures[$0].stamp(x: 442, y: 14, width: 173, height: 97) }
                    #expect(inset == (120..<240).map { k in Optional(((k - 60) * 5 + 11) / 24) }, "\(inset)")
                    #expect(try Asset.load(out).audioTracks.count == 1)
                default:
                    Issue.record("\(name): a composition recipe this test does not know")
                }
                continue
            }
            if let role = recipe.outputs.lazy.compactMap(\.spec.package).first {
                // hls-ladder.yaml, cmaf.yaml: a folder beside the source, named as the recipe's path says, that
                // ffmpeg reads whole through master.m3u8 (and manifest.mpd where the format writes one).
                let folder = FilePaths.name(of: RecipeCompiler.expand(role.folder.value, source: src))
                let r = try Binary.run(["run", recipePath, "-i", src, "--quiet"], cwd: dir.path)
                #expect(r.status == 0, "\(name): \(r.stderr)")
                #expect(dir.contents == [folder, "clip.mp4"].sorted(), "\(name)")
                let format = role.format.value
                for playlist in (format.writesHLS ? ["master.m3u8"] : []) + (format == .hls ? [] : ["manifest.mpd"]) {
                    let read = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-count_frames", "-show_entries", "stream=codec_type,nb_read_frames",
                                                                         "-of", "csv=p=0", dir.file("\(folder)/\(playlist)")])
                    // ffprobe lists each stream under every variant (program) too: every video one has all 360 pictures, or, for
                    // `ladder: auto`, whose two rungs on this clip are at most 30 fps in the specification, every fourth of the 120 fps: 90.
                    let pictures = recipe.outputs.contains(where: { $0.spec.package?.ladder != nil }) ? 90 : 360
                    let streams = read.stdout.split(separator: "\n").map(String.init), video = streams.filter { $0.hasPrefix("video,") }
                    #expect(read.status == 0 && read.stderr.isEmpty && video.count >= 2 && video.allSatisfy { $0 == "video,\(pictures)" } && streams.contains { $0.hasPrefix("audio,") },
                            "\(name) \(playlist): \(read.stdout) \(read.stderr)")
                }
                if recipe.outputs.contains(where: { $0.spec.package?.ladder != nil }) {
                    // `ladder: auto` on the 640x360 clip: the specification's 416x234 and 640x360 (its own size) rungs, the larger dropped;
                    // the one nearer 2000 kb/s listed first.
                    let variants = try WrittenPackage(folder: dir.file(folder)).variants()
                    #expect(variants.map(\.uri) == ["360p-365k/playlist.m3u8", "234p-145k/playlist.m3u8"] && variants.map { $0.attributes["RESOLUTION"] } == ["640x360", "416x234"]
                            && variants.map { $0.attributes["FRAME-RATE"] } == ["30.000", "30.000"],
                            "\(name): \(variants)")
                }
                continue
            }
            // Still images (`images:` outputs) are named from the source: each its frame, read back.
            let stills = try RecipeCompiler.compileOutputs(recipe, input: src).images.map(\.plan)
            let stillFiles = Set(stills.flatMap { p in p.stills.map(\.path) + [p.sheet?.webVTT].compactMap { $0 } })
            let r = try Binary.run(["run", recipePath, "-i", src, "--quiet"], cwd: dir.path)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let made = dir.contents.filter { $0 != "clip.mp4" }
            let produced = made.first == "out" ? try FileManager.default.contentsOfDirectory(atPath: dir.file("out")).map { "out/" + $0 } : made
            #expect(stillFiles.isSubset(of: produced.map(dir.file)), "\(name) made \(produced), not all of \(stillFiles.sorted())")
            for still in stills.filter({ $0.sheet == nil }).flatMap(\.stills) {
                let frame = Int((still.shown.seconds * 120).rounded())
                #expect(try SampleReaderStamps.read(still.path).first == frame, "\(name): \(still.path) shows another frame than \(frame)")
            }
            let media = produced.filter { !stillFiles.contains(dir.file($0)) }
            // One file per media output of the recipe (`outputs:` lists several), each checked alike.
            try #require(media.count == recipe.eachOutput.count, "\(name) made \(produced)")
            for file in media.sorted() {
                let out = dir.file(file)
                let expected = recipe.timeRange.map { MediaTime.min($0.range.end, MediaTime(seconds: 3)) - $0.start } ?? MediaTime(seconds: 3)
                let asset = try Asset.load(out)
                #expect(abs(asset.duration.seconds - expected.seconds) < 0.05, "\(name): duration \(asset.duration.secondsDescription)")
                if let video = asset.videoTracks.first {
                    let stamps = try SampleReaderStamps.read(out)
                    #expect(!stamps.isEmpty)
                    #expect(stamps.allSatisfy { $0 != nil }, "\(name): unreadable frames")
                    let s = stamps.compactMap { $0 }
                    #expect(s == s.sorted(), "\(name): frames out of order")
                    // The first frame is the one at the session start.
                    let startFrame = Int(WideArithmetic.mulDiv(recipe.timeRange?.start.value ?? 0, 120, Int64(recipe.timeRange?.start.timescale ?? 1)))
                    #expect(s.first == startFrame, "\(name): starts at frame \(String(describing: s.first))")
                    _ = video
                } else {
                    #expect(asset.audioTracks.count == 1)
                }
                _ = try CodecRecipeChecks.check(name, recipe: recipePath, out: out, source: src)
            }
        }
    }

    @Test("SIGINT and SIGTERM during run: exit 130 / 143, nothing left behind")
    func interrupt() throws {
        let dir = Scratch()
        let src = dir.file("long.mp4")
        try makeSource(src, seconds: 8, width: 1280, height: 720)
        let recipe = dir.file("slow.yaml")
        try """
            # slow on purpose
            recipe: 1
            reader: { outputs: { v: { track: video }, a: { track: audio } } }
            writer:
              inputs:
                - { source: v, settings: { codec: h264, codec-options: { preset: veryslow } } }
                - { source: a }
            """.write(toFile: recipe, atomically: true, encoding: .utf8)
        for (sig, code) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let r = try UnderWay.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4")], signal: sig, tempUnder: dir.path)
            #expect(r.status == code)
            #expect(r.stderr.contains("cancelled: no output written"))
            #expect(dir.contents == ["long.mp4", "slow.yaml"])
        }
    }

    @Test("--progress json: lines parse, rise monotonically to 1.0, then a done line")
    func progressJSON() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try makeSource(src, seconds: 4, width: 1280, height: 720)
        let recipe = repo.appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        let r = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("o.mp4"), "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == r.stdout.split(separator: "\n").count, "every line is JSON")
        let progress = objects.filter { $0["type"] as? String == "progress" }.compactMap { $0["fraction"] as? Double }
        #expect(progress.count >= 2)
        #expect(progress == progress.sorted())
        #expect(progress.last == 1.0)
        let done = try #require(objects.last)
        #expect(done["type"] as? String == "done")
        #expect(done["output"] as? String == dir.file("o.mp4"))
        #expect(abs((done["duration"] as? Double ?? 0) - 4) < 0.01)
    }

    @Test("plan --json names every setting's origin")
    func planJSON() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try makeSource(src, seconds: 1)
        let recipe = repo.appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        let r = try Binary.run(["plan", recipe, "-i", src, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let tracks = try #require(o["tracks"] as? [[String: Any]])
        #expect(tracks.count == 2)
        #expect(tracks[0]["presets"] as? [String] == ["video-30", "h264-1920x1080"])
        let settings = try #require(tracks[0]["settings"] as? [[String: String]])
        let rate = try #require(settings.first { $0["setting"] == "frame-rate" })
        #expect(rate["value"] == "30" && rate["origin"] == "assistant" && rate["rule"] == "frame-rate.cap")
        let quality = try #require(settings.first { $0["setting"] == "quality" })
        #expect(quality["value"] == "21" && quality["origin"] == "preset video-30")
        let size = try #require(settings.first { $0["setting"] == "size" })
        #expect(size["value"] == "640x360" && size["rule"] == "size.no-upscale")
        #expect(dir.contents == ["clip.mp4"], "plan writes nothing")
    }

    @Test("presets --json lists the catalogue")
    func presets() throws {
        let r = try Binary.run(["presets", "--json"])
        #expect(r.status == 0)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        let names = list.compactMap { $0["name"] as? String }
        #expect(names == ["passthrough", "low-quality", "medium-quality", "highest-quality", "h264-640x480", "h264-960x540",
                          "h264-1280x720", "h264-1920x1080", "h264-3840x2160", "hevc-1920x1080", "hevc-3840x2160",
                          "hevc-highest-quality", "av1-1080p", "av1-archive", "vp9-1080p", "prores-proxy", "prores-lt", "prores-422", "prores-hq", "prores-4444",
                          "m4a", "aac-stereo", "opus-stereo", "flac", "alac"])
        #expect((list.first { $0["name"] as? String == "flac" }?["audio"] as? [String: Any])?["codec"] as? String == "flac")
        #expect(list.first { $0["name"] as? String == "flac" }?["video"] == nil)
        let p1080 = try #require(list.first { $0["name"] as? String == "h264-1920x1080" })
        #expect((p1080["video"] as? [String: Any])?["width"] as? Int == 1920)
        #expect(list.first { $0["name"] as? String == "m4a" }?["video"] == nil)
    }

    @Test("validate reports every error with its position, exit 65; exit codes for missing files and existing outputs")
    func validateAndExitCodes() throws {
        let dir = Scratch()
        let bad = dir.file("bad.yaml")
        try "recipe: 1\nreader: { outputs: { v: { track: video } } }\nwriter:\n  inputs:\n    - { source: w, settings: { framerate: 30 } }\n"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let v = try Binary.run(["validate", bad, repo.appendingPathComponent("recipes/web-1080p.yaml").path])
        #expect(v.status == 65)
        #expect(v.stderr.contains("\(bad):5:32: error: unknown key 'framerate' in the settings of writer input 1 (did you mean 'frame-rate'?)"))
        #expect(v.stdout.contains("web-1080p.yaml: ok"))

        #expect(try Binary.run(["validate", dir.file("none.yaml")]).status == 66)
        let recipe = repo.appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        let missing = try Binary.run(["run", recipe, "-i", dir.file("absent.mp4"), "-o", dir.file("o.mp4")])
        #expect(missing.status == 66)
        #expect(missing.stderr == "error: \(dir.file("absent.mp4")): no such file\n")

        let src = dir.file("clip.mp4")
        try makeSource(src, seconds: 1)
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir.file("o.mp4")))
        let exists = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("o.mp4")])
        #expect(exists.status == 73)
        #expect(exists.stderr == "error: \(dir.file("o.mp4")): already exists (use --overwrite to replace it)\n")
        let over = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("o.mp4"), "--overwrite"])
        #expect(over.status == 0)
        #expect(over.stdout.hasPrefix("wrote \(dir.file("o.mp4")): 1.000s,"))

        let usage = try Binary.run(["run", recipe, "--progress", "loud"])
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("Error: --progress must be auto, bar, json or none, not 'loud'"))

        let late = dir.file("late.yaml")
        try "recipe: 1\nreader: { outputs: { v: { track: video } } }\nwriter: { inputs: [ { source: v } ] }\nsession:\n  time-range: { start: 5s }\n"
            .write(toFile: late, atomically: true, encoding: .utf8)
        let outside = try Binary.run(["run", late, "-i", src, "-o", dir.file("late.mp4")])
        #expect(outside.status == 65)
        #expect(outside.stderr.hasPrefix("\(late):5:15: error: the time range starts at 5.000s, at or after the end of \(src) (1.000s)"))
    }
}

enum SampleReaderStamps {
    static func read(_ path: String) throws -> [Int?] {
        let r = try SampleReader(path: path, track: .type(.video, 0))
        var out: [Int?] = []
        while let p = try r.nextPicture() { out.append(p.stamp) }
        return out
    }
}
