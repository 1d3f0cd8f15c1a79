import Foundation
import Pipeline
import Recipe
import Testing

/// The Samsung and Android slow-motion samples of the corpus (REENCODE_CORPUS), against what
/// androidx media3 reads and makes of them.
@Suite("Slow motion on the corpus", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
struct SlowMotionCorpusTests {
    static let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""
    static let sef = corpus + "/androidx-media/mp4_sample_sef_slow_motion.mp4"

    static func ms(_ a: Int64, _ b: Int64, _ d: Int) -> SlowMotionSegment { SlowMotionSegment(startMilliseconds: a, endMilliseconds: b, speedDivisor: d) }

    @Test("sef_slow_motion: the segments, capture rate and layers media3 reads from it")
    func sefInfo() throws {
        // media3's dump of the same file (transformerdumps/mp4/sample_sef_slow_motion.mp4/noaudio.dump):
        // SlowMotion: segments=[88–879 ms ÷2, 1255–1970 ms ÷8], smta: captureFrameRate=240.0,
        // svcTemporalLayerCount=4, mdta com.android.capture.fps=240.0.
        let info = try #require(try Asset.load(Self.sef).slowMotion())
        #expect(info == SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240), androidCaptureRate: FrameRate(frames: 240), temporalLayerCount: 4,
                                       recordingMode: 12, segments: [Self.ms(88, 879, 2), Self.ms(1255, 1970, 8)], otherSEFEntries: ["Invalid_Data"]))
    }

    @Test("sef_super_slow_motion: super slow motion entries, mode 7 with 6 layers, no capture rate and no segments")
    func superSlow() throws {
        let path = Self.corpus + "/androidx-media/mp4_sample_sef_super_slow_motion.mp4"
        let info = try #require(try Asset.load(path).slowMotion())
        #expect(info == SlowMotionInfo(temporalLayerCount: 6, recordingMode: 7,
                                       otherSEFEntries: ["Invalid_Data", "Super_SlowMotion_Deflickering_On", "Super_SlowMotion_BGM",
                                                         "Super_SlowMotion_Edit_Data", "Super_SlowMotion_Data"]))
        // Nothing says how fast it was captured: no flattening (media3 leaves such a file as it is).
        #expect(throws: MediaError(.unsupported, "cannot play its slow motion as the phone does: it has no capture rate (no smta box with one, no com.android.capture.fps)", file: path)) {
            try SlowMotionFlattening(info, file: path)
        }
    }

    @Test("android_slow_motion: only com.android.capture.fps (240), as media3's extractor dump says")
    func androidSlow() throws {
        let path = Self.corpus + "/androidx-media/mp4_sample_android_slow_motion.mp4"
        let info = try #require(try Asset.load(path).slowMotion())
        #expect(info == SlowMotionInfo(androidCaptureRate: FrameRate(frames: 240)))
        #expect(throws: MediaError(.unsupported, "cannot play its slow motion as the phone does: it has no SVC temporal layer count (smta box)", file: path)) {
            try SlowMotionFlattening(info, file: path)
        }
    }

    /// media3's flattened presentation times (µs) for the frames it keeps, by source time in
    /// 1/90000 s ticks: the `presentationTimeUs` of each sample of androidx/media's
    /// libraries/test_data/src/test/assets/transformerdumps/mp4/sample_sef_slow_motion.mp4/noaudio.dump
    /// (29 samples, in its order), paired with the source frame each one is (found by replaying
    /// media3's SefSlowMotionFlattener on the file's frames in decode order).
    static let media3: [(source: Int64, us: Int64)] = [
        (0, 0), (9000, 14000), (21000, 47333), (33000, 80667), (45000, 114000), (57000, 147333), (69000, 180667),
        (93000, 228042), (105000, 244708), (120000, 334083), (114000, 267416), (111000, 234083), (117000, 300750),
        (132000, 467416), (126000, 400750), (123000, 367416), (129000, 434083), (144000, 600750), (138000, 534083),
        (135000, 500750), (141000, 567416), (156000, 734083), (150000, 667416), (147000, 634083), (153000, 700750),
        (168000, 867416), (162000, 800750), (159000, 767416), (165000, 834083),
    ]

    @Test("sef_slow_motion: frame choice and flattened times against media3's dump")
    func sefFlattening() throws {
        let info = try #require(try Asset.load(Self.sef).slowMotion())
        let flattening = try SlowMotionFlattening(info, file: Self.sef)
        #expect(flattening.normalMaxLayer == 0)
        #expect(flattening.segments.map(\.maxLayer) == [1, 3])
        let frames = try SlowMotionLayer.frames(path: Self.sef)
        #expect(frames.count == 64)
        // Samsung's hierarchical layers, by decode position: 0 3 2 3 1 3 2 3, repeated.
        let pattern = [0, 3, 2, 3, 1, 3, 2, 3]
        #expect(frames.map { $0.temporalLayer ?? -1 } == (0..<64).map { pattern[$0 % 8] })
        let choices = try flattening.choices(frames)
        var kept: [Int64: MediaTime] = [:]
        var decodeOnly: [Int64] = []
        for (f, c) in zip(frames, choices) {
            let ticks = try f.pts.converted(to: 90000, rounding: .towardZero).value
            #expect(f.pts == MediaTime(value: ticks, timescale: 90000))
            switch c {
            case .keep(let t): kept[ticks] = t
            case .decodeOnly: decodeOnly.append(ticks)
            case .drop: break
            }
        }
        // Where we differ from media3, on purpose: media3 walks the frames in decode order, so a
        // reordered frame takes its segment from the frame decoded before it. It keeps 37/30 s
        // (111000, before the ÷8 segment at 1.255 s, top layer) stretched as if inside the
        // segment, at 234083 µs, earlier than the 35/30 s frame it shows at 244708 µs; and it
        // drops 1.900, 1.933 and 1.967 s (inside the segment, which ends at 1.970 s) because
        // frames of 2.0 s and later were decoded before them. We place each frame by its own time.
        let media3Only: Set<Int64> = [111000]
        let oursOnly: [Int64: MediaTime] = [171000: MediaTime(value: 900750, timescale: 1_000_000),
                                            174000: MediaTime(value: 2802250, timescale: 3_000_000),
                                            177000: MediaTime(value: 2902250, timescale: 3_000_000)]
        #expect(Set(kept.keys) == Set(Self.media3.map(\.source)).subtracting(media3Only).union(oursOnly.keys))
        for (source, us) in Self.media3 where !media3Only.contains(source) {
            // media3 cuts each source time to whole microseconds before scaling, then rounds; our
            // times are exact, so the two differ by less than a microsecond.
            let ours = try #require(kept[source])
            let difference = ours - MediaTime(value: us, timescale: 1_000_000)
            #expect(abs(difference.seconds) < 1e-6, "frame \(source): ours \(ours.seconds), media3 \(us) µs")
        }
        for (source, t) in oursOnly { #expect(kept[source] == t) }
        // The frames media3 would mistime or lose are decoded (as references) but not shown.
        #expect(decodeOnly.sorted() == [111000, 180000])
        // Deciding packet by packet with an 8-frame window decodes at least as much.
        let window = SlowMotionInfo.storedFrameRate.frameDuration * 8
        for (f, c) in zip(frames, choices) where c != .drop {
            #expect(flattening.decodes(f.pts, layer: f.temporalLayer ?? -1, reorderWindow: window))
        }
        let extra = zip(frames, choices).filter { f, c in c == .drop && flattening.decodes(f.pts, layer: f.temporalLayer ?? -1, reorderWindow: window) }
        // Frame numbers (1/30 s), in decode order: 0.9 s by the ÷2 segment's end; those within 8
        // frames of 1.255 s; and 2.033–2.1 s by the ÷8 segment's end (2.0 s is decoded by `choices` too).
        #expect(try extra.map { try $0.0.pts.converted(to: 30).value } == [27, 32, 30, 36, 34, 33, 63, 61, 62])
        // Our shown times rise with the source times.
        let shown = kept.sorted { $0.key < $1.key }.map(\.value)
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("sef_slow_motion: the time mapping as stretches of one speed")
    func spans() throws {
        let info = try #require(try Asset.load(Self.sef).slowMotion())
        let spans = try SlowMotionFlattening(info, file: Self.sef).spans
        func t(_ ms: Int64) -> MediaTime { MediaTime(value: ms, timescale: 1000) }
        func us(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 1_000_000) }
        #expect(spans == [
            SlowMotionSpan(sourceStart: .zero, sourceEnd: t(88), targetStart: .zero, scale: (1, 8), speedDivisor: 1),
            SlowMotionSpan(sourceStart: t(88), sourceEnd: t(879), targetStart: us(11000), scale: (1, 4), speedDivisor: 2),
            SlowMotionSpan(sourceStart: t(879), sourceEnd: t(1255), targetStart: us(208750), scale: (1, 8), speedDivisor: 1),
            SlowMotionSpan(sourceStart: t(1255), sourceEnd: t(1970), targetStart: us(255750), scale: (1, 1), speedDivisor: 8),
            SlowMotionSpan(sourceStart: t(1970), sourceEnd: nil, targetStart: us(970750), scale: (1, 8), speedDivisor: 1),
        ])
    }
}
