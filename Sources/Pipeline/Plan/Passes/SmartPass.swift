import Recipe

/// The planner's pass for `smart: auto | require` on a video track: whether the output's settings
/// make the same stream the source has (then whole groups of pictures can be copied and the
/// encoded ones joined to them), and if so, per segment, which pictures are copied and which
/// encoded (`SmartRender`). `auto` falls back to encoding every picture with a notice naming
/// why; `require` refuses at the `smart` key instead.
enum SmartPass {
    static func plan(_ plan: inout ConversionPlan) throws(MediaError) {
        for (l, lane) in plan.lanes.enumerated() {
            guard case .video(let s) = lane.kind, s.smart != .off else { continue }
            do throws(SmartObstacle) {
                plan.smart[l] = try render(plan, lane: l, settings: s)
            } catch {
                if s.smart == .require {
                    throw MediaError(.invalidSettings, "smart rendering is required, but \(error.reason)", file: plan.source.path,
                                     track: lane.track.index, setting: "smart")
                }
                plan.notices.append(PlanNotice(.changed, "smart", track: lane.track.index,
                                               "smart rendering is off: \(error.reason); every picture is encoded"))
            }
        }
    }

    /// Why the track cannot be rendered smart, in words a notice or an error ends with.
    struct SmartObstacle: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func render(_ plan: ConversionPlan, lane l: Int, settings s: ResolvedVideoSettings) throws(SmartObstacle) -> SmartRender {
        guard [.mp4, .mov, .mkv].contains(plan.format) else {
            throw SmartObstacle("a \(plan.format.rawValue) output is not joined so (MP4, MOV and MKV are)")
        }
        try checkShape(plan)
        if let why = plan.request?.smartObstacles[l] { throw SmartObstacle(why) }
        let chain = plan.chains[l]
        let segments: [TimeSegment]
        do throws(MediaError) { segments = try chain.segments() } catch { throw SmartObstacle(error.message) }
        try checkSegments(segments, plan: plan, inputs: chain.inputs)
        var first: (setup: StreamSetup, file: String, stream: NALStream)?
        var runs: [SmartRender.Run] = []
        for (n, (input, segment)) in zip(chain.inputs, segments).enumerated() {
            let asset = plan.sources[input.source]
            guard let track = asset.track(index: input.track) else { throw SmartObstacle("\(asset.path) has no track #\(input.track)") }
            let setup: StreamSetup
            do throws(MediaError) { setup = try StreamSetup(path: asset.path, track: track) } catch { throw SmartObstacle(error.message) }
            guard let family = VideoFamily.of(streamCodec: track.format.codec)?.frames,
                  let stream = NALStream(family: family, record: setup.setup) else {
                throw SmartObstacle("\(asset.path)'s video is \(track.format.codec)\(VideoFamily.of(streamCodec: track.format.codec)?.frames == nil ? "" : " with its parameter sets in band (Annex B)"): only H.264 and HEVC with a set-up record (MP4, MOV, MKV) are joined so")
            }
            if let first {
                if let d = setup.difference(from: first.setup, parameterSets: false) {
                    throw SmartObstacle("segment \(n + 1)'s pictures differ from segment 1's (\(first.file)): \(d)")
                }
                if stream.lengthSize != first.stream.lengthSize {
                    throw SmartObstacle("segment \(n + 1)'s samples state their units' lengths in \(stream.lengthSize) bytes, segment 1's in \(first.stream.lengthSize)")
                }
            } else {
                try checkSettings(s, track: track, stream: stream)
                first = (setup, asset.path, stream)
            }
            runs += try self.runs(of: segment, number: n + 1, track: track, file: asset.path)
        }
        guard let first else { throw SmartObstacle("the track reads no source") }
        return SmartRender(runs: runs, settings: encoderSettings(s, stream: first.stream, track: first.setup), stream: first.stream)
    }

    /// What the timeline does that a copy cannot draw.
    private static func checkShape(_ plan: ConversionPlan) throws(SmartObstacle) {
        if !plan.videoLayers.isEmpty { throw SmartObstacle("the composition draws its pictures (layers, a render size or a background)") }
        if !plan.crossFades.isEmpty { throw SmartObstacle("the composition cross-fades") }
        if !plan.pictureFades.isEmpty { throw SmartObstacle("the pictures fade") }
        if plan.fragments != nil { throw SmartObstacle("the output is fragmented on a keyframe grid") }
        if plan.fileLengthLimit != nil { throw SmartObstacle("the output has a file-length limit") }
        if plan.targetSize != nil { throw SmartObstacle("the output has a target size (its bitrate is the whole file's)") }
    }

    /// The track's own segments (a composition's `audio:` list has its own): at speed 1, end to
    /// end, and within their files' pictures (a full encode shows black where a segment reaches
    /// past them; a copy has nothing to show there).
    private static func checkSegments(_ segments: [TimeSegment], plan: ConversionPlan, inputs: [StageChain.Input]) throws(SmartObstacle) {
        var end = MediaTime.zero
        for (k, (segment, input)) in zip(segments, inputs).enumerated() {
            if !segment.scale.isIdentity || segment.slowMotion != nil { throw SmartObstacle("segment \(k + 1) plays at another speed") }
            guard plan.isComposed else { continue }
            if segment.targetStart != end { throw SmartObstacle("segment \(k + 1) does not start where the one before ends") }
            end = segment.targetRange.end
            guard let track = plan.sources[input.source].track(index: input.track) else { continue }
            let trackEnd = track.startTime + track.duration
            let frame = track.format.averageFrameDuration ?? .zero
            let outside = segment.sourceRange.start + frame < track.startTime
                || (trackEnd.isNumeric && segment.sourceRange.end.isNumeric && segment.sourceRange.end > trackEnd + frame)
            if outside { throw SmartObstacle("segment \(k + 1) reaches outside its file's pictures (a full encode shows black there)") }
        }
    }

    /// The output's settings against the source's stream: the encoded pictures must make the
    /// stream the copied ones are.
    private static func checkSettings(_ s: ResolvedVideoSettings, track: Track, stream: NALStream) throws(SmartObstacle) {
        let f = track.format
        func differs(_ what: String, _ output: String, _ source: String) -> SmartObstacle {
            SmartObstacle("the output's \(what) (\(output)) is not the source's (\(source))")
        }
        if s.codec.rawValue != f.codec { throw differs("codec", s.codec.rawValue, f.codec) }
        if s.width != f.width || s.height != f.height { throw differs("size", "\(s.width)x\(s.height)", "\(f.width)x\(f.height)") }
        if samePlanes(s.pixelFormat) != samePlanes(f.pixelFormat ?? "unknown") { throw differs("pixel format", s.pixelFormat, f.pixelFormat ?? "unknown") }
        if s.pixelAspect != f.pixelAspect { throw differs("pixel aspect", "\(s.pixelAspect)", "\(f.pixelAspect)") }
        let tags = [s.colorPrimaries, s.colorTransfer, s.colorMatrix, s.colorRange]
        let source = [f.colorPrimaries, f.colorTransfer, f.colorMatrix, f.colorRange]
        if tags != source {
            throw differs("colour", tags.map { $0 ?? "unspecified" }.joined(separator: "/"), source.map { $0 ?? "unspecified" }.joined(separator: "/"))
        }
        if f.fieldOrder?.isInterlaced == true || s.fieldOrder != nil || s.deinterlace != nil { throw SmartObstacle("the source is interlaced") }
        if s.toneMapping != nil { throw SmartObstacle("the output tone-maps HDR") }
        if s.keyframeGrid != nil { throw SmartObstacle("the output's keyframes are on a grid") }
        if s.passes != 1 { throw SmartObstacle("the output is coded in two passes") }
        if f.isVariableFrameRate { throw SmartObstacle("the source's frame rate is variable (the join would not keep a constant rate)") }
        if let rate = s.frameRate, let sourceRate = f.averageFrameRate, rate != sourceRate {
            throw differs("frame rate", rate.description, sourceRate.description)
        }
        if s.codec == .h264, let asked = s.decision("level"), asked.rule == Origin.settings,
           let wanted = Double(asked.value).map({ Int(($0 * 10).rounded()) }), wanted != stream.levelIDC {
            throw differs("level", asked.value, NALStream.levelName(h264: stream.levelIDC))
        }
        if let asked = s.decision("profile"), asked.rule == Origin.settings,
           Self.profileName(asked.value) != Self.profileName(f.profile ?? "") {
            throw differs("profile", asked.value, f.profile ?? "unknown")
        }
    }

    /// A pixel format by its planes: FFmpeg's full-range `yuvj420p` is `yuv420p` with the range
    /// stated apart (which the colour tags compare).
    private static func samePlanes(_ name: String) -> String {
        name.hasPrefix("yuvj") ? "yuv" + name.dropFirst(4) : name
    }

    /// A profile's name as x264/x265 and FFmpeg's stream description both reduce to it
    /// (`High 4:2:2` and `high422`; `Constrained Baseline` and `baseline`).
    static func profileName(_ name: String) -> String {
        let n = name.lowercased().filter { $0.isLetter || $0.isNumber }
        return n == "constrainedbaseline" ? "baseline" : n
    }

    /// The encoder of the encoded runs: the source's profile and (H.264) level and entropy coding,
    /// and the decoded pictures' own pixel format (a full-range `yuvj` one as it is).
    private static func encoderSettings(_ s: ResolvedVideoSettings, stream: NALStream, track: StreamSetup) -> ResolvedVideoSettings {
        var e = s
        if let p = track.pixelFormat { e.pixelFormat = p }
        if let p = track.profile { e.profile = profileName(p) }
        if stream.family == .h264 {
            e.encoderLevel = NALStream.levelName(h264: stream.levelIDC)
            if stream.usesCABAC == false { e.codecOptions["coder"] = "cavlc" }
        }
        return e
    }

    /// A time base of few ticks per frame leaves no room for the decode times of encoded pictures
    /// that reorder more than the source's (x264 and x265 delay B-pyramids by 2 pictures): the
    /// joined stream's decode times must still increase and never pass the presentation times.
    private static func checkRoom(_ track: Track, depth: Int) throws(SmartObstacle) {
        guard let d = track.format.averageFrameDuration, track.timeBase.seconds > 0 else { return }
        let ticks = Int((d.seconds / track.timeBase.seconds).rounded())
        guard ticks < 4, depth < 2 else { return }
        throw SmartObstacle("the source's time base (\(track.timeBase.value)/\(track.timeBase.timescale) s) has \(ticks) tick\(ticks == 1 ? "" : "s") per frame and its pictures reorder less than the encoder's: no room for their decode times")
    }

    /// One segment as runs: encoded from its start to the first place a copy can start (a random
    /// access point), copied from there to the last place a copy can end (its file's end, or
    /// before a random access point and its leading pictures), encoded from there to its end.
    private static func runs(of segment: TimeSegment, number: Int, track: Track, file: String) throws(SmartObstacle) -> [SmartRender.Run] {
        let start = segment.sourceRange.start
        let trackEnd = track.startTime + track.duration
        let toEnd = !segment.sourceRange.end.isNumeric || (trackEnd.isNumeric && segment.sourceRange.end >= trackEnd)
        let end = toEnd ? trackEnd : segment.sourceRange.end
        guard end.isNumeric else { throw SmartObstacle("\(file) states no length") }
        let scan: GroupScan.Result
        do throws(MediaError) { scan = try GroupScan.scan(path: file, stream: track.index, from: start, to: end) } catch { throw SmartObstacle(error.message) }
        try checkRoom(track, depth: scan.reorderDepth)
        func run(_ kind: SmartRender.Kind, _ a: MediaTime, _ b: MediaTime) -> SmartRender.Run {
            let s = TimeSegment(source: segment.source, track: segment.track, sourceRange: TimeRange(start: a, end: b),
                                targetStart: segment.targetTime(ofSource: a), scale: .identity)
            let groups = kind == .copied ? scan.entries.count { $0.time >= a && $0.time < b } : 0
            return SmartRender.Run(kind: kind, track: track.index, segment: s, piece: number,
                                   pictures: scan.pictureCount(from: a, to: b), groups: groups)
        }
        let whole = [run(.encoded, start, end)]
        guard let copyStart = scan.entries.first(where: { $0.time >= start && $0.time < end })?.time else { return whole }
        let copyEnd: MediaTime
        if toEnd {
            copyEnd = end
        } else {
            // Before an open GOP's leading pictures: the encoded run after shows them.
            guard let last = scan.entries.compactMap(\.copyEnd).filter({ $0 > copyStart && $0 <= end }).max() else { return whole }
            copyEnd = last
        }
        var out: [SmartRender.Run] = []
        if start < copyStart { out.append(run(.encoded, start, copyStart)) }
        out.append(run(.copied, copyStart, copyEnd))
        if copyEnd < end { out.append(run(.encoded, copyEnd, end)) }
        return out
    }
}
