import Recipe

/// The sound of a smart-rendered output (`SmartSound`): where the video track is rendered smart
/// and the sound track's settings make the source's AAC stream (FFmpeg's `aac` encoder, AAC-LC at
/// the source's rate and channel layout, nothing mixed, faded, stretched or made louder, an MP4,
/// MOV or MKV output), the source's frames that lie whole inside a kept range are copied and only the
/// frames at the cuts encoded. Otherwise the sound is encoded whole and `plan` says why
/// (`soundObstacles`). The `smart` key of the video governs the output; the sound has none.
enum SmartSoundPass {
    static func plan(_ plan: inout ConversionPlan) {
        guard !plan.smart.isEmpty else { return }
        for (l, lane) in plan.lanes.enumerated() {
            guard case .audio(let s) = lane.kind else { continue }
            do throws(SmartPass.SmartObstacle) {
                plan.smartSound[l] = try sound(plan, lane: l, settings: s)
            } catch {
                plan.soundObstacles[l] = error.reason
            }
        }
    }

    private static func sound(_ plan: ConversionPlan, lane l: Int, settings s: ResolvedAudioSettings) throws(SmartPass.SmartObstacle) -> SmartSound {
        typealias Obstacle = SmartPass.SmartObstacle
        guard [.mp4, .mov, .mkv].contains(plan.format) else { throw Obstacle("a \(plan.format.rawValue) output is not joined so (MP4, MOV and MKV are)") }
        guard s.codec.rawValue == "aac", s.encoderName == "aac" else { throw Obstacle("the output's sound is \(s.encoderName), not FFmpeg's aac encoder") }
        // Another output takes this sound from the same read (`RecipeCompiler.smartSharingObstacles`).
        if let why = plan.request?.smartObstacles[l] { throw Obstacle(why) }
        if plan.audioMix != nil { throw Obstacle("the composition mixes its sound") }
        if !plan.pictureFades.isEmpty { throw Obstacle("the sound fades") }
        if !plan.audioStretches.isEmpty { throw Obstacle("a segment's sound is stretched or muted") }
        if s.loudness != nil || s.loudnessGain != nil { throw Obstacle("the sound's loudness is normalised") }
        let chain = plan.chains[l]
        let segments: [TimeSegment]
        do throws(MediaError) { segments = try chain.segments() } catch { throw Obstacle(error.message) }
        var planner = Walk(rate: Int64(s.sampleRate))
        for (k, (input, segment)) in zip(chain.inputs, segments).enumerated() {
            let asset = plan.sources[input.source]
            guard let track = asset.track(index: input.track) else { throw Obstacle("\(asset.path) has no track #\(input.track)") }
            try check(s, track: track, file: asset.path)
            if !segment.scale.isIdentity || segment.slowMotion != nil { throw Obstacle("segment \(k + 1) plays at another speed") }
            try planner.add(segment, source: input.source, track: track, file: asset.path)
        }
        guard let runs = planner.finish() else { throw Obstacle("no whole frame of the source's sound lies inside a kept range") }
        return SmartSound(runs: runs, sampleRate: s.sampleRate, lane: l)
    }

    /// The output's settings against the source's stream: the encoded frames must make the stream
    /// the copied ones are.
    private static func check(_ s: ResolvedAudioSettings, track: Track, file: String) throws(SmartPass.SmartObstacle) {
        let f = track.format
        func differs(_ what: String, _ output: String, _ source: String) -> SmartPass.SmartObstacle {
            SmartPass.SmartObstacle("the output's sound \(what) (\(output)) is not the source's (\(source))")
        }
        if f.codec != "aac" { throw differs("codec", "aac", f.codec) }
        if let p = f.profile, p != "LC" { throw differs("profile", "LC", p) }
        if s.sampleRate != f.sampleRate { throw differs("rate", "\(s.sampleRate) Hz", "\(f.sampleRate) Hz") }
        if s.channels != f.channels || (f.channelLayout.map { $0 != s.channelLayout } ?? false) {
            throw differs("channel layout", s.channelLayout, f.channelLayout ?? "\(f.channels) channels")
        }
    }

    /// Walks the segments in output order, making the runs.
    private struct Walk {
        let rate: Int64
        var runs: [SmartSound.Run] = []
        /// Output samples made so far (after the first stretch's priming).
        var made: Int64 = 0
        /// Samples to encode before the next copied run.
        var pending: [SmartSound.Piece] = []
        var copied = false

        init(rate: Int64) { self.rate = rate }

        func samples(_ t: MediaTime) -> Int64? {
            t.isNumeric ? TimeMapping.samplePosition(atOrAfter: t, rate: Int32(rate)) : nil
        }

        mutating func add(_ segment: TimeSegment, source: Int, track: Track, file: String) throws(SmartPass.SmartObstacle) {
            let trackEnd = track.startTime + track.duration
            let endTime = segment.sourceRange.end.isNumeric ? min(segment.sourceRange.end, trackEnd) : trackEnd
            guard let a = samples(segment.sourceRange.start), let b = samples(endTime), let at = samples(segment.targetStart) else {
                throw SmartPass.SmartObstacle("\(file) states no length")
            }
            guard b > a else { return }
            let frames: [Int64]
            do throws(MediaError) { frames = try SoundFrames.whole(path: file, stream: track.index, rate: rate, from: a + SmartSound.frame, to: b) } catch {
                throw SmartPass.SmartObstacle(error.message)
            }
            guard let c0 = frames.first else {
                pending.append(SmartSound.Piece(source: source, track: track.index, from: a, count: b - a))
                return
            }
            let c1 = c0 + Int64(frames.count) * SmartSound.frame
            // Where a full encode puts the first copied frame, and the whole frames the stretch
            // before it holds to land nearest there.
            let ideal = at + (c0 - a)
            let count = max(1, (ideal - made + SmartSound.frame / 2) / SmartSound.frame)
            let before = pending.reduce(0) { $0 + $1.count }
            let own = count * SmartSound.frame - before
            pending.append(SmartSound.Piece(source: source, track: track.index, from: c0 - own, count: own))
            runs.append(.encoded(SmartSound.Stretch(pieces: pending, overlap: SmartSound.Piece(source: source, track: track.index, from: c0, count: SmartSound.frame),
                                                    afterCopy: copied)))
            made += count * SmartSound.frame
            runs.append(.copied(SmartSound.Copy(source: source, track: track.index, first: c0, frames: frames.count, at: made, ideal: ideal)))
            made += Int64(frames.count) * SmartSound.frame
            copied = true
            pending = b > c1 ? [SmartSound.Piece(source: source, track: track.index, from: c1, count: b - c1)] : []
        }

        /// The runs, ending with the stretch after the last copied run; nil where nothing is copied.
        func finish() -> [SmartSound.Run]? {
            guard copied else { return nil }
            return pending.isEmpty ? runs : runs + [.encoded(SmartSound.Stretch(pieces: pending, overlap: nil, afterCopy: true))]
        }
    }
}

/// A sound stream's frames read from its packets alone.
enum SoundFrames {
    /// The start (samples) of each frame of `SmartSound.frame` samples lying whole in [from, to),
    /// the longest run of frames that follow one another without a gap from the first.
    static func whole(path: String, stream: Int, rate: Int64, from: Int64, to: Int64) throws(MediaError) -> [Int64] {
        let input = try InputContainer(path: path, streamInformation: false)
        guard stream >= 0, stream < input.streamCount else { throw MediaError(.processing, "\(path) has no track #\(stream)", file: path) }
        input.readOnly(stream: stream)
        let clock = TimeBase(num: 1, den: Int32(rate))
        let back = MediaTime(value: max(from - 4 * SmartSound.frame, 0), timescale: Int32(rate))
        if let ts = try? back.ts(in: .microseconds, rounding: .down), from > 4 * SmartSound.frame {
            do throws(MediaError) { try input.seek(to: ts, stream: -1) } catch { _ = input.seekToFirstByte() }
        }
        let tb = input.stream(stream).timeBase
        var out: [Int64] = []
        let packet = try Packet()
        while try input.read(into: packet) {
            guard Int(packet.streamIndex) == stream, packet.pts != FFmpeg.noPTS else { continue }
            packet.rescale(from: tb, to: clock)
            let start = packet.pts
            if start >= to { break }
            guard start >= from, packet.duration == SmartSound.frame, start + SmartSound.frame <= to else { continue }
            if let last = out.last, last + SmartSound.frame != start { break }
            out.append(start)
        }
        return out
    }
}
