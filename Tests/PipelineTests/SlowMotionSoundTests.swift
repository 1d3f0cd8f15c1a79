import Foundation
@testable import Pipeline
import Recipe
import Testing

/// The sound of a `slow-motion: from-source` segment: it lies on the file's stored timeline with
/// the pictures (docs/slow-motion.md), so each piece's sound is stretched to the piece's speed by
/// its `audio-stretch:` method, exactly as long as the piece on the timeline.
///
/// The file is ours with Samsung's metadata added (`smta`: 240 fps, 4 layers; a SEF trailer):
/// x264's frames carry no temporal layers, so only the sound lane is run (the pictures of the
/// corpus's sample are checked by SlowMotionRenderTests); a sound is checked against where the
/// pieces place the picture of its stored time.
@Suite("Slow motion from the source: the pieces' sound stretched", .serialized)
struct SlowMotionSoundTests {
    typealias S = StretchSignal

    /// ÷2 over 1–2 s, ÷8 over 2.1–2.4 s (stored speed at 240 fps), ÷32 over 2.5–3 s (4 times
    /// slower than stored).
    static let sefText = "1000:2000:2*2100:2400:4*2500:3000:6"

    /// Stored sound (48 kHz stereo): 1 kHz bursts at 0.1 s (0.8 s long, real time), 1.6 s
    /// (0.4 s, ÷2) and 3.1 s (0.8 s, real time), each 0.1 s once played; a steady 1 kHz tone
    /// over 2.55–2.95 s (÷32: 1.6 s once played).
    static let bursts: [(at: Double, length: Double)] = [(0.1, 0.8), (1.6, 0.4), (3.1, 0.8)]
    static let tone = (from: 2.55, to: 2.95)

    /// 4 s stored at 30 fps (120 frames) with that sound, `smta` and the SEF trailer.
    static func makeSource(_ path: String, smta: [UInt8] = SlowMotionSEFTests.smta(SlowMotionSEFTests.saut([0, 12, 1, 4])),
                           sef: String = sefText) throws {
        let rate = FrameRate(frames: 30)
        var v = GeneratedVideoFormat(width: 64, height: 48, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: GeneratedAudioFormat())
        func value(_ n: Int64) -> Float {
            let t = Double(n) / 48000
            let on = bursts.contains { t >= $0.at && t < $0.at + $0.length } || (t >= tone.from && t < tone.to)
            return on ? Float(0.5 * sin(2 * Double.pi * 1000 * t)) : 0
        }
        var done = 0
        for i in 0..<120 {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            let until = (i + 1) * 1600
            try s.appendAudio(count: until - done) { _, n in value(n) }
            done = until
        }
        try s.finish()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(Self.appendToMoov(&bytes, smta))
        bytes += SlowMotionSEFTests.box("sefd", SlowMotionSEFTests.sef(prefix: [], [SlowMotionSEFTests.slowMotion(sef)]).bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Adds `child` to the `udta` box closing `moov` (or a new `udta` closing it), and moves the
    /// chunk offsets (`stco`) of the media data after `moov` by as much (as the CLI tests'
    /// SlowMotionInspectTests.appendToUdta, which that target keeps to itself).
    static func appendToMoov(_ bytes: inout [UInt8], _ child: [UInt8]) -> Bool {
        func size(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        func type(_ at: Int) -> String { String(decoding: bytes[at + 4..<at + 8], as: UTF8.self) }
        func setSize(_ at: Int, _ v: Int) { bytes.replaceSubrange(at..<at + 4, with: SlowMotionSEFTests.be32(UInt32(v))) }
        var moov = 0
        while moov + 8 <= bytes.count, type(moov) != "moov" { moov += max(size(moov), 8) }
        guard moov + 8 <= bytes.count else { return false }
        let moovEnd = moov + size(moov)
        var cursor = moov + 8, lastUdta: Int?
        while cursor < moovEnd {
            if type(cursor) == "udta" && cursor + size(cursor) == moovEnd { lastUdta = cursor }
            cursor += max(size(cursor), 8)
        }
        let added = lastUdta == nil ? child.count + 8 : child.count
        var at = moov
        while at + 16 <= moovEnd {
            if type(at) == "stco" {
                for e in 0..<size(at + 12) {
                    let field = at + 16 + 4 * e
                    if size(field) >= moovEnd { setSize(field, size(field) + added) }
                }
                at += size(at)
            } else {
                at += 1
            }
        }
        if let udta = lastUdta {
            setSize(udta, size(udta) + child.count)
            bytes.insert(contentsOf: child, at: moovEnd)
        } else {
            bytes.insert(contentsOf: SlowMotionSEFTests.box("udta", child), at: moovEnd)
        }
        setSize(moov, size(moov) + added)
        return true
    }

    /// The plan of `src` playing its slow motion, its sound (only) stretched by `method`.
    static func plan(_ src: String, _ out: String, method: AudioStretch) throws -> ConversionPlan {
        var request = ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings()))])
        request.timeline = [SegmentRequest(audioStretch: method, slowMotion: .fromSource)]
        return try Planner.plan(request)
    }

    /// Each piece's sound as the lane's source stages make it: (first position, samples) at 48 kHz.
    static func pieces(_ plan: ConversionPlan) throws -> [(position: Int64, count: Int64)] {
        let writer = try AssetWriter(path: plan.outputPath, format: plan.format, rehearsal: true)
        let tracker = ProgressTracker(lanes: [LaneProgress(track: plan.lanes[0].track.index, mediaType: .audio, outputTime: .zero, frames: 0)],
                                      duration: plan.duration, handler: nil)
        let env = LaneEnvironment(readers: plan.makeReaders(), file: plan.source.path, writer: writer, cutsStart: false, cutsEnd: false,
                                  progress: tracker, cancellation: Cancellation(), selectiveDecode: plan.selectiveDecode)
        var out: [(Int64, Int64)] = []
        for k in try ExportSession.sourceInputs(plan, lane: 0) {
            let stage = try AudioSource(env: env, tap: try env.readers.tap(group: k.group, output: k.output), track: k.track,
                                        segment: k.segment, outputRate: 48000, stretch: plan.audioStretches[k.timelineSegment])
            var first: Int64?, count: Int64 = 0
            while let f = try stage.next() {
                guard case .samples(let frame, let position) = f else { continue }
                if first == nil { first = position }
                count += Int64(frame.samples)
            }
            out.append((first ?? -1, count))
        }
        return out
    }

    /// Where the picture stored at `t` seconds plays on the timeline.
    static func picture(at t: Double, in plan: ConversionPlan) throws -> Double {
        let time = MediaTime(value: Int64((t * 48000).rounded()), timescale: 48000)
        let k = try #require(plan.timeline.segment(containingSource: time))
        return plan.timeline.targetTime(ofSource: time, segment: k).seconds
    }

    @Test("the plan: seven pieces, each not at the stored speed with the recipe's method; ÷8 at 240 fps plays as stored")
    func planned() throws {
        let dir = Scratch()
        let src = dir.file("phone.mp4")
        try Self.makeSource(src)
        let plan = try Self.plan(src, dir.file("out.m4a"), method: .varispeed)
        let segments = try #require(plan.composedSegments)
        #expect(segments.map(\.slowMotionDivisor) == [1, 2, 1, 8, 1, 32, 1])
        #expect(segments.map(\.speed) == ["8", "4", "8", "1", "8", "1/4", "8"])
        #expect(segments.map(\.audioStretch) == [.varispeed, .varispeed, .varispeed, nil, .varispeed, .varispeed, .varispeed])
        // 1/8 + 1/4 + 1/80 + 3/10 + 1/80 + 2 + 1/8 s.
        #expect(plan.timeline.targetDuration == MediaTime(value: 2825, timescale: 1000))
    }

    @Test("each piece's sound: exactly the samples between its start and end on the timeline, from its start",
          arguments: [AudioStretch.spectral, .timeDomain, .varispeed, .mute])
    func counts(method: AudioStretch) throws {
        let dir = Scratch()
        let src = dir.file("phone.mp4")
        try Self.makeSource(src)
        let plan = try Self.plan(src, dir.file("out.m4a"), method: method)
        let pieces = try Self.pieces(plan)
        #expect(pieces.count == 7)
        for (k, (piece, segment)) in zip(pieces, plan.timeline.segments).enumerated() {
            let first = try #require(TimeMapping.samplePosition(atOrAfter: segment.targetStart, rate: 48000))
            let count = try #require(TimeMapping.sampleCount(in: segment.targetRange, rate: 48000))
            #expect(piece.position == first && piece.count == count, "\(method.rawValue), piece \(k + 1): \(piece) against \(first), \(count)")
        }
        // They add up to the timeline: 2.825 s.
        #expect(pieces.reduce(0) { $0 + $1.count } == 135600)
    }

    @Test("run: the bursts play with their pictures; the tone slowed 4 times keeps its pitch (spectral, time-domain) or drops to a quarter (varispeed)",
          arguments: [AudioStretch.spectral, .timeDomain, .varispeed])
    func sync(method: AudioStretch) throws {
        let dir = Scratch()
        let src = dir.file("phone.mp4")
        try Self.makeSource(src)
        let out = dir.file("out.m4a")
        let plan = try Self.plan(src, out, method: method)
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[0].unitsOut == 135600)
        let (x, rate) = try CompositionStretchTests.sound(out)
        #expect(rate == 48000)
        // The tone (stored 2.55–2.95 s, in the ÷32 piece, which starts at 0.7 s) plays over 0.9–2.5 s.
        let from = try Self.picture(at: Self.tone.from, in: plan), to = try Self.picture(at: Self.tone.to, in: plan)
        #expect(abs(from - 0.9) < 1e-9 && abs(to - 2.5) < 1e-9)
        let middle = Int((from + 0.3) * 48000)..<Int((to - 0.3) * 48000)
        let hz = S.dominantFrequency(x[middle], rate: rate, low: 40, high: 4000)
        let want = method == .varispeed ? 250.0 : 1000.0
        #expect(abs(hz - want) <= want * 0.03, "\(method.rawValue): \(hz) Hz")
        let level = S.rms(x[middle])
        #expect(level > 0.1, "\(method.rawValue): rms \(level)")
        // Each burst starts within a frame (30 fps) of the picture stored with it (time-domain:
        // within WSOLA's 83 ms, docs/engine-audio-stretch.md).
        let tolerance = method == .timeDomain ? 0.083 : 1.0 / 30
        var heardAt: [String] = []
        for burst in Self.bursts {
            let due = try Self.picture(at: burst.at, in: plan)
            let heard = CompositionStretchTests.onset(x, rate: rate, from: max(0, due - 0.1), level: level) ?? -1
            heardAt.append("\(heard) s (due \(due) s)")
            #expect(abs(heard - due) <= tolerance, "\(method.rawValue): the burst stored at \(burst.at) s is heard at \(heard) s, its picture at \(due) s")
        }
        print("slow-motion sound \(method.rawValue): \(hz) Hz; bursts at \(heardAt.joined(separator: ", "))")
    }

    @Test("a piece slower than the stretcher goes (÷128 of a 30 fps capture: 128 times the stored length) is refused at plan time, unless muted")
    func beyondStretch() throws {
        let dir = Scratch()
        let src = dir.file("phone.mp4")
        // HEVC's mode 21 with a 30 fps srfr, one layer: every frame is kept, ÷128 stretches 128 times.
        let smta = SlowMotionSEFTests.smta(SlowMotionSEFTests.saut([0, 21, 1, 1]) + SlowMotionSEFTests.box("srfr", [0x00, 0x1e, 0, 0]))
        try Self.makeSource(src, smta: smta, sef: "500:1000:8")
        #expect {
            _ = try Self.plan(src, dir.file("out.m4a"), method: .spectral)
        } throws: { error in
            guard let e = error as? MediaError else { return false }
            return e.kind == .invalidSettings && e.file == src && e.message == "segment 1: its slow motion plays 0.500s–1.000s of the file at speed 1/128, beyond what its sound can be stretched to (1/100…100): say 'audio-stretch: mute', or leave the sound out of the output"
        }
        let muted = try Self.plan(src, dir.file("out.m4a"), method: .mute)
        #expect(try #require(muted.composedSegments).map(\.speed) == ["1", "1/128", "1"])
    }
}
