import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Files with several tracks of a kind, and composition segments that each read the track they
/// name (`track:`) from their own file.
enum MultiTrackMedia {
    /// A sound track: a steady tone at `frequency`, at `sampleRate` with `channels`.
    struct Tone { var frequency: Double; var sampleRate: Int; var channels: Int }

    /// `frames` pictures at 30 fps, 160x96, on one video track per stamp base (video track v's
    /// frame i carries stamp `bases[v] + i`), and one audio track per tone, to the end of the
    /// last picture.
    static func make(_ path: String, frames: Int, bases: [Int], tones: [Tone]) throws {
        let rate = FrameRate(frames: 30)
        var video = GeneratedVideoFormat(width: 160, height: 96, frameRate: rate)
        video.gop = 10
        video.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, videos: bases.map { _ in video },
                                audios: tones.map { GeneratedAudioFormat(sampleRate: $0.sampleRate, channels: $0.channels) })
        var done = Array(repeating: 0, count: tones.count)
        for i in 0..<frames {
            for (v, base) in bases.enumerated() {
                try s.appendPicture(track: v, at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: base + i, into: $0) }
            }
            // Sound up to this picture's end, track by track, so the writer interleaves.
            for (k, tone) in tones.enumerated() {
                let until = Int(((rate.frameDuration * Int64(i + 1)).seconds * Double(tone.sampleRate)).rounded())
                guard until > done[k] else { continue }
                try s.appendAudio(track: k, count: until - done[k]) { _, n in
                    Float(0.5 * sin(2 * Double.pi * tone.frequency * Double(n) / Double(tone.sampleRate)))
                }
                done[k] = until
            }
        }
        try s.finish()
    }

    /// Every decoded sample of the first audio track (its first channel), from its first
    /// sample's time (which must be 0), and the rate.
    static func sound(_ path: String) throws -> (samples: [Float], rate: Int) {
        let r = try SampleReader(path: path, track: .type(.audio, 0))
        var out: [Float] = [], rate = 0
        while let a = try r.nextAudio() {
            if out.isEmpty { #expect(a.pts == .zero) }
            rate = a.sampleRate
            out += a.samples
        }
        return (out, rate)
    }

    /// The strongest frequency of `samples` between `from` and `to` seconds.
    static func frequency(_ sound: (samples: [Float], rate: Int), from: Double, to: Double) -> Double {
        let a = Int(from * Double(sound.rate)), b = min(sound.samples.count, Int(to * Double(sound.rate)))
        guard a < b else { return 0 }
        return StretchSignal.dominantFrequency(sound.samples[a..<b], rate: sound.rate)
    }
}

@Suite("FrameSource writes several tracks of a kind")
struct MultiTrackFrameSourceTests {
    @Test("two video and two audio tracks, each with its own format: ffprobe sees them in order with their formats; each plays its own pictures and tone")
    func fourTracks() throws {
        let dir = Scratch()
        let path = dir.file("multi.mp4")
        try MultiTrackMedia.make(path, frames: 30, bases: [1000, 5000],
                                 tones: [.init(frequency: 440, sampleRate: 48000, channels: 2), .init(frequency: 1000, sampleRate: 44100, channels: 1)])
        if FFprobe.path != nil {
            let entries = "codec_type,codec_name,width,height,sample_rate,channels"
            let v0 = try FFprobe.stream(path, "0", entries), v1 = try FFprobe.stream(path, "1", entries)
            let a0 = try FFprobe.stream(path, "2", entries), a1 = try FFprobe.stream(path, "3", entries)
            #expect(v0?["codec_type"] == "video" && v0?["codec_name"] == "h264" && v0?["width"] == "160" && v0?["height"] == "96")
            #expect(v1?["codec_type"] == "video" && v1?["codec_name"] == "h264" && v1?["width"] == "160")
            #expect(a0?["codec_type"] == "audio" && a0?["codec_name"] == "aac" && a0?["sample_rate"] == "48000" && a0?["channels"] == "2")
            #expect(a1?["codec_type"] == "audio" && a1?["codec_name"] == "aac" && a1?["sample_rate"] == "44100" && a1?["channels"] == "1")
            #expect(try FFprobe.frameCount(path, "v:1") == 30)
        }
        for (v, base) in [1000, 5000].enumerated() {
            let r = try SampleReader(path: path, track: .type(.video, v))
            var stamps: [Int?] = []
            while let p = try r.nextPicture() { stamps.append(p.stamp) }
            #expect(stamps == (base..<base + 30).map { Optional($0) })
        }
        for (k, (freq, rate)) in [(440.0, 48000), (1000.0, 44100)].enumerated() {
            let r = try SampleReader(path: path, track: .type(.audio, k))
            var samples: [Float] = [], got = 0
            while let a = try r.nextAudio() { samples += a.samples; got = a.sampleRate }
            #expect(got == rate)
            #expect(abs(StretchSignal.dominantFrequency(samples[rate / 4..<rate * 3 / 4], rate: rate) - freq) < 2)
        }
    }
}

@Suite("A composition segment reads the track it names")
struct SegmentTrackTests {
    static let fast = VideoSettings(codecOptions: ["preset": "ultrafast"])
    static let second = MediaTime(seconds: 1)

    /// 3 s: video stamps 1000+i and 5000+i; audio 440 Hz (48 kHz stereo) and 1000 Hz (44.1 kHz mono).
    static func twoOfEach(_ path: String) throws {
        try MultiTrackMedia.make(path, frames: 90, bases: [1000, 5000],
                                 tones: [.init(frequency: 440, sampleRate: 48000, channels: 2), .init(frequency: 1000, sampleRate: 44100, channels: 1)])
    }

    static func segment(_ k: Int, source: Int = 0, list: SegmentRequest.List = .video, track: SegmentRequest.OwnTrack? = nil) -> SegmentRequest {
        var r = SegmentRequest(source: source, start: second * Int64(k), end: second * Int64(k + 1))
        r.list = list
        r.track = track
        return r
    }

    @Test("sound of audio, then audio:1, then audio again of one file: each output second has its track's tone, every count exact; pictures video, video:1, video")
    func switchTracksOfOneFile() throws {
        let dir = Scratch()
        let src = dir.file("two.mp4"), out = dir.file("o.mp4")
        try Self.twoOfEach(src)
        var req = ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(Self.fast)), TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        req.timeline = [
            Self.segment(0), Self.segment(1, track: .init(.video, .type(.video, 1))), Self.segment(2, track: .init(.video, .index(0))),
            Self.segment(0, list: .audio), Self.segment(1, list: .audio, track: .init(.audio, .type(.audio, 1))),
            Self.segment(2, list: .audio, track: .init(.audio, .index(2))),
        ]
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(seconds: 3))
        // Each segment reads its own track, by its own reader.
        #expect(plan.chains[0].inputs.map(\.track) == [0, 1, 0])
        #expect(plan.chains[1].inputs.map(\.track) == [2, 3, 2])
        guard case .audio(let a) = plan.lanes[1].kind else { Issue.record("\(plan.lanes[1].kind)"); return }
        // Both tracks' formats are reconciled, as several files' are.
        #expect(a.sampleRate == 48000 && a.channels == 2)
        #expect(plan.composedSegments?.compactMap { $0.samples } == Array(repeating: 48000, count: 6))
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[1].unitsOut == 3 * 48000)
        #expect(try Media.stamps(out).map(\.stamp) == (Array(1000..<1030) + Array(5030..<5060) + Array(1060..<1090)).map { Optional($0) })
        let sound = try MultiTrackMedia.sound(out)
        #expect(sound.rate == 48000)
        for (k, freq) in [440.0, 1000, 440].enumerated() {
            let got = MultiTrackMedia.frequency(sound, from: Double(k) + 0.1, to: Double(k) + 0.9)
            #expect(abs(got - freq) < 2, "second \(k): \(got) Hz")
        }
    }

    @Test("a video list only, its second segment on video:1: those pictures are video:1's, and the sound that follows is the file's first audio track throughout")
    func soundFollowsTheFirstAudioTrack() throws {
        let dir = Scratch()
        let src = dir.file("two.mp4"), out = dir.file("o.mp4")
        try Self.twoOfEach(src)
        var req = ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(Self.fast)), TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        req.timeline = [Self.segment(0), Self.segment(1, track: .init(.video, .type(.video, 1))), Self.segment(2)]
        let plan = try Planner.plan(req)
        #expect(plan.chains[1].inputs.map(\.track) == [2, 2, 2])
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[1].unitsOut == 3 * 48000)
        #expect(try Media.stamps(out).map(\.stamp) == (Array(1000..<1030) + Array(5030..<5060) + Array(1060..<1090)).map { Optional($0) })
        let sound = try MultiTrackMedia.sound(out)
        for k in 0..<3 {
            let got = MultiTrackMedia.frequency(sound, from: Double(k) + 0.1, to: Double(k) + 0.9)
            #expect(abs(got - 440) < 2, "second \(k): \(got) Hz")
        }
    }

    @Test("file A's audio:1, then file B's first audio, then A's first: each second its own file's track's tone")
    func tracksOfTwoFiles() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("o.m4a")
        try Self.twoOfEach(a)
        try MultiTrackMedia.make(b, frames: 90, bases: [3000], tones: [.init(frequency: 700, sampleRate: 48000, channels: 2)])
        var req = ConversionRequest(source: a, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings()))])
        req.sources = [b]
        req.timeline = [
            Self.segment(0, track: .init(.audio, .type(.audio, 1))), Self.segment(1, source: 1, track: .init(.audio, .type(.audio, 0))),
            Self.segment(2),
        ]
        let plan = try Planner.plan(req)
        #expect(plan.chains[0].inputs.map(\.track) == [3, 1, 2])
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[0].unitsOut == 3 * 48000)
        let sound = try MultiTrackMedia.sound(out)
        for (k, freq) in [1000.0, 700, 440].enumerated() {
            let got = MultiTrackMedia.frequency(sound, from: Double(k) + 0.1, to: Double(k) + 0.9)
            #expect(abs(got - freq) < 2, "second \(k): \(got) Hz")
        }
    }
}

/// A recipe's segment `track:` as `plan` and its refusals see it.
@Suite("A recipe segment's own track")
struct SegmentTrackRecipeTests {
    static func recipe(video: String, audio: String, sources: String = "") -> String {
        """
        recipe: 1
        \(sources)composition:
          video:
        \(video)
          audio:
        \(audio)
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: picture, settings: h264-640x480 }
            - { source: sound, settings: aac-stereo }
        """
    }

    @Test("audio, audio:1, \"#2\" in the audio list: the plan reads #2, #3, #2 of the file, and says the track of the segment that is not the first")
    func planShowsTheTrack() throws {
        let dir = Scratch()
        let src = dir.file("two.mp4")
        try SegmentTrackTests.twoOfEach(src)
        let text = Self.recipe(video: "    - { end: 3s }", audio: """
            - { end: 1s, track: audio }
            - { start: 1s, end: 2s, track: "audio:1" }
            - { start: 2s, end: 3s, track: "#2" }
        """)
        let compiled = try RecipeCompiler.compile(try RecipePlanErrorTests.recipe(text), input: src, output: dir.file("o.mp4"))
        let plan = compiled.plan
        #expect(plan.chains[1].inputs.map(\.track) == [2, 3, 2])
        #expect(plan.chains[0].inputs.map(\.track) == [0])
        // In play order: the video segment, then the three sound segments.
        #expect(plan.composedSegments?.map(\.track) == [nil, nil, 3, nil])
        // The second video track is not written; the second audio track is (its segment reads it).
        #expect(plan.notices.filter { $0.item == "track" }.map(\.sourceTrack) == [1])
    }

    @Test("a segment's track its file lacks: the file, the segment, the track and what the file has, at the 'track:' line; the input does not fit (66)")
    func missingTrack() throws {
        let dir = Scratch()
        let src = dir.file("two.mp4")
        try SegmentTrackTests.twoOfEach(src)
        let text = Self.recipe(video: "    - { end: 1s }", audio: """
            - { end: 1s }
            - { start: 1s, end: 2s, track: "audio:2" }
        """)
        let got = try RecipePlanErrorTests.diagnostics(text, input: src, output: dir.file("o.mp4"))
        #expect(got?.mismatch == true)
        #expect(got?.0 == """
        r.yaml:7:36: error: \(src): segment 2 of the audio track: it reads the audio:2 track, but the file has none (it has #0 video, #1 video, #2 audio, #3 audio)
            - { start: 1s, end: 2s, track: "audio:2" }
                                           ^
        """)
    }

    @Test("a '#N' of the other kind in the audio list: refused at its 'track:' naming the file and what the track is (66)")
    func indexOfTheOtherKind() throws {
        let dir = Scratch()
        let src = dir.file("two.mp4"), other = dir.file("b.mp4")
        try SegmentTrackTests.twoOfEach(src)
        try MultiTrackMedia.make(other, frames: 30, bases: [3000], tones: [.init(frequency: 700, sampleRate: 48000, channels: 2)])
        // The second file's #0 is its video.
        let text = Self.recipe(video: "    - { source: a, end: 1s }", audio: """
            - { source: a, end: 1s, track: "#3" }
            - { source: b, track: "#0" }
        """, sources: "sources:\n  a: \"{input}\"\n  b: \(other)\n")
        let got = try RecipePlanErrorTests.diagnostics(text, input: src, output: dir.file("o.mp4"))
        #expect(got?.mismatch == true)
        #expect(got?.0 == """
        r.yaml:10:27: error: \(other): segment 2 of the audio track: it reads track #0, which is video, not audio
            - { source: b, track: "#0" }
                                  ^
        """)
    }

    @Test("'slow-motion: from-source' with a track other than the first video: refused from the recipe alone (65) at 'track:'; 'track: video' is fine")
    func slowMotionOnlyFromTheFirstVideo() throws {
        func refusal(_ segment: String) throws -> String? {
            let text = "recipe: 1\ncomposition:\n  slow-motion: from-source\n  audio-stretch: mute\n  video:\n    - \(segment)\n"
                + "reader:\n  outputs:\n    picture: { track: video }\nwriter:\n  inputs:\n    - { source: picture, settings: h264-640x480 }\n"
            let recipe = try RecipePlanErrorTests.recipe(text)
            do throws(RecipeErrors) {
                try RecipeCompiler.refuseUnsupportedComposition(recipe)
                return nil
            } catch { return error.description }
        }
        let got = try refusal("{ track: \"video:1\" }")
        #expect(got == """
        r.yaml:6:16: error: 'slow-motion: from-source' plays the phone's slow motion of the file's first video track, not 'video:1': leave out 'track' or say 'track: video'
            - { track: "video:1" }
                       ^
        """, "\(got ?? "nil")")
        #expect(try refusal("{ track: \"#0\" }")?.hasPrefix("r.yaml:6:16: error: 'slow-motion: from-source' plays the phone's slow motion of the file's first video track, not '#0'") == true)
        #expect(try refusal("{ track: video }") == nil)
        // Its own 'slow-motion: none' is not the phone's: any track.
        #expect(try refusal("{ track: \"video:1\", slow-motion: none }") == nil)
    }
}
