import Foundation
import Recipe
import Testing

/// `sources:` and `composition:` (issue 12): each bundled composition recipe's model, exactly.
@Suite("Compositions: the model of a recipe, exactly")
struct CompositionParsingTests {
    static func bundled(_ name: String) throws -> Recipe {
        let text = try String(contentsOf: RecipeFuzzTests.recipesFolder.appendingPathComponent(name), encoding: .utf8)
        return try RecipeParser.parse(text, file: name).get()
    }

    @Test("recipes/concat.yaml: three named sources end to end, the audio following the video")
    func concat() throws {
        let r = try Self.bundled("concat.yaml")
        #expect(r.sources.map(describe) == [
            "intro = samples/intro.mp4 @10:3 (path @10:10)",
            "clip = {input} @11:3 (path @11:9)",
            "outro = samples/outro.mp4 @12:3 (path @12:10)",
        ])
        #expect(r.source.map { "\($0.value) @\($0.mark)" } == "samples/clip.mp4 @7:9")
        let c = try #require(r.composition)
        #expect(c.mark == Mark(line: 13, column: 1))
        #expect(c.slowMotion == nil && c.audioStretch == nil && c.explicitAudio == nil)
        let video = try #require(c.video)
        #expect(video.kind == .video && !video.followsVideo && video.mark == Mark(line: 15, column: 5))
        #expect(video.segments.map(describe) == [
            "1 @15:7 source intro@15:17",
            "2 @16:7 source clip@16:17",
            "3 @17:7 source outro@17:17",
        ])
        let audio = try #require(c.audio)
        #expect(audio.kind == .audio && audio.followsVideo && audio.mark == video.mark)
        #expect(audio.segments.map(describe) == video.segments.map(describe))
        #expect(c.tracks.map(\.kind) == [.video, .audio])
        for s in video.segments {
            #expect(s.sourceRange == TimeRange(start: .zero, duration: .positiveInfinity))
            #expect(c.slowMotion(for: s) == .none && c.audioStretch(for: s) == .spectral)
        }
        #expect(r.warnings.isEmpty)
    }

    @Test("recipes/cut-out.yaml: the one input, two segments joined")
    func cutOut() throws {
        let r = try Self.bundled("cut-out.yaml")
        // No `sources:`: the one source is the input, named `input`, marked at the video list.
        #expect(r.sources.map(describe) == ["input = {input} @10:5 (path @10:5) implicit"])
        let c = try #require(r.composition)
        #expect(c.mark == Mark(line: 8, column: 1))
        let video = try #require(c.video)
        #expect(video.segments.map(describe) == [
            "1 @10:7 source input@10:7 end 1/1@10:14",
            "2 @11:7 source input@11:7 start 2/1@11:16",
        ])
        #expect(video.segments[0].sourceRange == TimeRange(start: .zero, end: MediaTime(seconds: 1)))
        #expect(video.segments[1].sourceRange == TimeRange(start: MediaTime(seconds: 2), duration: .positiveInfinity))
        #expect(c.audio?.followsVideo == true)
        #expect(r.warnings.isEmpty)
    }

    @Test("recipes/phone-slow-motion.yaml: the whole input playing its own slow motion, the sound at its pieces' speeds (varispeed)")
    func phoneSlowMotion() throws {
        let r = try Self.bundled("phone-slow-motion.yaml")
        #expect(r.source == nil)
        let c = try #require(r.composition)
        #expect(c.slowMotion?.value == .fromSource && c.slowMotion?.mark == Mark(line: 13, column: 16))
        #expect(c.audioStretch?.value == .varispeed && c.audioStretch?.mark == Mark(line: 14, column: 18))
        let video = try #require(c.video)
        #expect(video.segments.count == 1)
        let whole = try #require(video.segments.first)
        #expect(whole.sourceRange == TimeRange(start: .zero, duration: .positiveInfinity) && whole.timing == nil)
        #expect(c.slowMotion(for: whole) == .fromSource && c.audioStretch(for: whole) == .varispeed)
        #expect(r.warnings.isEmpty)
    }

    @Test("recipes/slomo-240-to-30.yaml: 1 s–2 s at exactly 1/8 speed between two normal-speed segments")
    func slomo() throws {
        let r = try Self.bundled("slomo-240-to-30.yaml")
        #expect(r.sources.map(describe) == ["input = {input} @12:5 (path @12:5) implicit"])
        let c = try #require(r.composition)
        #expect(c.mark == Mark(line: 9, column: 1))
        #expect(c.audioStretch?.value == .spectral && c.audioStretch?.mark == Mark(line: 10, column: 18))
        let video = try #require(c.video)
        #expect(video.segments.map(describe) == [
            "1 @12:7 source input@12:7 end 1/1@12:14",
            "2 @13:7 source input@13:7 start 1/1@13:16 end 2/1@13:25 speed 1/8@13:36",
            "3 @14:7 source input@14:7 start 2/1@14:16",
        ])
        let slow = video.segments[1]
        guard case .speed(let speed)? = slow.timing?.value else { Issue.record("no speed"); return }
        #expect(speed.numerator == 1 && speed.denominator == 8)
        #expect(speed.targetDuration(of: slow.sourceRange.duration) == MediaTime(seconds: 8))
        #expect(c.audioStretch(for: slow) == .spectral)
        #expect(r.warnings.isEmpty)
    }

    @Test("explicit audio, placements with gaps, target durations, slow motion and stretch defaults")
    func explicitTracks() throws {
        let text = """
        recipe: 1
        sources:
          phone: a.mp4
          music: "{dir}/music.m4a"
        composition:
          slow-motion: from-source
          audio-stretch: varispeed
          video:
            - { source: phone }
            - { source: phone, at: 10s, start: 0.5s, duration: 1.5s, target-duration: 3s }
            - { source: phone, track: "#3", start: 00:00:04, end: 5s, speed: 0.5, audio-stretch: mute }
            - { source: phone, track: video:1, slow-motion: none }
          audio:
            - { source: music, track: audio:2, at: 1001/30000 }
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: picture }
            - { source: sound }
        """
        let r = try RecipeParser.parse(text, file: "r.yaml").get()
        #expect(r.sources.map(describe) == ["phone = a.mp4 @3:3 (path @3:10)", "music = {dir}/music.m4a @4:3 (path @4:10)"])
        let c = try #require(r.composition)
        #expect(c.slowMotion?.value == .fromSource && c.audioStretch?.value == .varispeed)
        let v = try #require(c.video).segments
        #expect(v.map(describe) == [
            "1 @9:7 source phone@9:17",
            "2 @10:7 source phone@10:17 start 5/10@10:40 duration 15/10@10:56 at 10/1@10:28 target-duration 3/1@10:79",
            "3 @11:7 source phone@11:17 track #3@11:31 start 4/1@11:44 end 5/1@11:59 speed 1/2@11:70 audio-stretch mute@11:90",
            "4 @12:7 source phone@12:17 track video:1@12:31 slow-motion none@12:53",
        ])
        // Slow motion from the source: by default, unless the segment times itself or says none.
        #expect(v.map { c.slowMotion(for: $0) } == [.fromSource, .none, .none, .none])
        #expect(v.map { c.audioStretch(for: $0) } == [.varispeed, .varispeed, .mute, .varispeed])
        #expect(v[1].sourceRange == TimeRange(start: MediaTime(value: 1, timescale: 2), duration: MediaTime(value: 3, timescale: 2)))
        let audio = try #require(c.audio)
        #expect(!audio.followsVideo && audio.mark == Mark(line: 14, column: 5))
        #expect(audio.segments.map(describe) == ["1 @14:7 source music@14:17 track audio:2@14:31 at 1001/30000@14:44"])
        // The video segment's audio-stretch is said to have no effect: the audio has its own segments.
        #expect(r.warnings.map(\.headline) == ["r.yaml:11:90: warning: 'audio-stretch' has no effect on segment 3 of the video track: the composition's audio track lists its own segments"])
    }

    @Test("speeds are exact rationals: decimals, fractions, reduced; source/speed is exact")
    func speeds() throws {
        func speed(_ s: String) throws -> SegmentSpeed? {
            let text = "recipe: 1\ncomposition: { video: [ { end: 1s, speed: \(s) } ] }\nreader: { outputs: { v: { track: video } } }\nwriter: { inputs: [ { source: v } ] }"
            guard case .speed(let v)? = try RecipeParser.parse(text, file: "r.yaml").get().composition?.video?.segments[0].timing?.value else { return nil }
            return v
        }
        #expect(try speed("0.125")?.description == "1/8")
        #expect(try speed("1/8")?.description == "1/8")
        #expect(try speed("2/16")?.description == "1/8")
        #expect(try speed("2")?.description == "2")
        #expect(try speed("1000/1001")?.description == "1000/1001")
        #expect(try speed("0.999999")?.description == "999999/1000000")
        #expect(try speed("1/32")?.description == "1/32")
        #expect(try speed("32")?.description == "32")
        #expect(try speed("1.0")?.description == "1")
        #expect(try speed(".5")?.description == "1/2")
        #expect(try speed(" 3/4 ")?.description == "3/4")
        let eighth = try #require(SegmentSpeed(numerator: 1, denominator: 8))
        #expect(eighth.targetDuration(of: MediaTime(value: 1001, timescale: 30000)) == MediaTime(value: 1001, timescale: 3750))
        let ntsc = try #require(SegmentSpeed(numerator: 1000, denominator: 1001))
        #expect(ntsc.targetDuration(of: MediaTime(seconds: 1)) == MediaTime(value: 1001, timescale: 1000))
        // A timescale that does not fit Int32 rounds to the nearest tick of the source's.
        #expect(ntsc.targetDuration(of: MediaTime(value: 1, timescale: 90000 * 1000)) == MediaTime(value: 1, timescale: 90000 * 1000))
        #expect(SegmentSpeed.playing(MediaTime(seconds: 1), in: MediaTime(seconds: 8)) == eighth)
        #expect(SegmentSpeed(numerator: 0, denominator: 1) == nil && SegmentSpeed(numerator: 1, denominator: -2) == nil)
    }
}

/// `name = path @line:col (path @line:col)[ implicit]`.
func describe(_ s: SourceSpec) -> String {
    let path: String
    switch s.path {
    case .input: path = "{input}"
    case .file(let f): path = f
    }
    return "\(s.name) = \(path) @\(s.mark) (path @\(s.pathMark))" + (s.isImplicit ? " implicit" : "")
}

/// Every field of a segment that is set, with where it was written.
func describe(_ s: Segment) -> String {
    var out = "\(s.number) @\(s.mark) source \(s.source.value)@\(s.source.mark)"
    func add<T>(_ key: String, _ v: Located<T>?, _ text: (T) -> String) {
        if let v { out += " \(key) \(text(v.value))@\(v.mark)" }
    }
    add("track", s.track) { $0.description }
    add("start", s.start) { $0.description }
    add("end", s.end) { $0.description }
    add("duration", s.duration) { $0.description }
    add("at", s.at) { $0.description }
    switch s.timing?.value {
    case .speed(let v)?: out += " speed \(v)@\(s.timing!.mark)"
    case .targetDuration(let d)?: out += " target-duration \(d)@\(s.timing!.mark)"
    case nil: break
    }
    add("slow-motion", s.slowMotion) { $0.rawValue }
    add("audio-stretch", s.audioStretch) { $0.rawValue }
    return out
}
