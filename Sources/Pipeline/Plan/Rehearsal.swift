import CFFmpeg
import Recipe

/// Opens everything a run opens for a plan — the source's decoders, every encoder with its
/// resolved settings, the output container with every stream — and writes the container's
/// header into memory, then closes it all. Whatever the run would refuse before its first frame
/// is refused here, so `plan` and `validate` say it, and nothing is written.
enum Rehearsal {
    /// What an opened encoder really produces, read back from its headers.
    struct Outcome {
        /// Per lane: the profile in the encoder's sequence header, as FFmpeg names it (`High`,
        /// `Constrained Baseline`, `Main 10`); nil for a copied track or when none is stated.
        var profiles: [String?]
        /// Per lane: what its first source offers and its sink takes (nil: a copied or subtitle
        /// track), and the stream the writer stores.
        var offered: [EdgeFormat?]
        var sinkInputs: [EdgeFormat?]
        var streams: [StreamFormat?]
    }

    static func run(_ plan: ConversionPlan) throws(MediaError) -> Outcome {
        let reader = plan.makeReaders(rehearsal: true)
        let writer = try AssetWriter(path: plan.outputPath, format: plan.format, rehearsal: true)
        let tracker = ProgressTracker(
            lanes: plan.lanes.map { LaneProgress(track: $0.track.index, mediaType: $0.track.mediaType, outputTime: .zero, frames: 0) },
            duration: plan.duration, handler: nil)
        let env = LaneEnvironment(readers: reader, file: plan.source.path, writer: writer,
                                  cutsStart: plan.cutsStart, cutsEnd: plan.cutsEnd, progress: tracker,
                                  cancellation: Cancellation(), selectiveDecode: plan.selectiveDecode)
        var lanes: [ExportSession.MadeLane] = []
        for i in plan.lanes.indices { lanes.append(try ExportSession.laneWork(plan, output: i, env: env)) }
        do throws(MediaError) {
            try writer.start(kept: plan.kept, optimizeForNetwork: plan.optimizeForNetwork)
        } catch {
            // Which track the container refuses: each is tried alone.
            if let (i, alone) = writer.refusedInput(), plan.lanes.indices.contains(i) {
                let lane = plan.lanes[i]
                throw MediaError(.unsupported, "\(plan.format.rawValue) cannot hold \(codecName(of: lane)): \(alone.message)",
                                 file: plan.source.path, track: lane.track.index, detail: alone.detail ?? error.detail)
            }
            throw error.at(file: plan.outputPath)
        }
        var profiles: [String?] = []
        for i in plan.lanes.indices {
            switch plan.lanes[i].kind {
            case .passthrough, .subtitle: profiles.append(nil); continue
            case .video, .audio: break
            }
            profiles.append(writer.codecParameters(ofInput: i).flatMap(CodecProfile.name))
        }
        return Outcome(profiles: profiles, offered: lanes.map(\.offered), sinkInputs: lanes.map(\.sinkInput),
                       streams: plan.lanes.indices.map { writer.streamFormat(ofInput: $0) })
    }

    private static func codecName(of lane: LanePlan) -> String {
        switch lane.kind {
        case .video(let v): return v.codec.rawValue
        case .audio(let a): return a.codec.rawValue
        case .passthrough: return lane.track.format.codec
        case .subtitle(let s): return s.encoderName
        }
    }
}

/// The profile an H.264 or HEVC stream's own headers state (avcC/hvcC, or an Annex B SPS).
enum CodecProfile {
    static func name(_ par: UnsafePointer<AVCodecParameters>) -> String? {
        let p = par.pointee
        guard let data = p.extradata, p.extradata_size > 0 else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: data, count: Int(p.extradata_size)))
        let profile: Int32?
        switch p.codec_id {
        case AV_CODEC_ID_H264: profile = h264(bytes)
        case AV_CODEC_ID_HEVC: profile = hevc(bytes)
        default: profile = nil
        }
        guard let profile, let name = avcodec_profile_name(p.codec_id, profile) else { return nil }
        return String(cString: name)
    }

    /// FFmpeg's profile number: profile_idc with the constraint flags that name a profile.
    static func h264(_ b: [UInt8]) -> Int32? {
        let sps: ArraySlice<UInt8>
        if b.first == 1, b.count >= 4 {
            sps = b[1...3]  // avcC: profile, constraint flags, level
        } else if let nal = annexBUnits(b).first(where: { ($0.first ?? 0) & 0x1f == 7 }), nal.count >= 3 {
            sps = nal.dropFirst()
        } else {
            return nil
        }
        let idc = Int32(sps[sps.startIndex]), flags = sps[sps.startIndex + 1]
        var profile = idc
        if idc == 66, flags & 0x40 != 0 { profile |= FF_PROFILE_H264_CONSTRAINED }
        if [110, 122, 244].contains(idc), flags & 0x10 != 0 { profile |= FF_PROFILE_H264_INTRA }
        return profile
    }

    static func hevc(_ b: [UInt8]) -> Int32? {
        if b.first == 1, b.count >= 2 { return Int32(b[1] & 0x1f) }  // hvcC
        // SPS: 2-byte NAL header, then 4+3+1 bits, then profile_space(2) tier(1) profile_idc(5).
        guard let nal = annexBUnits(b).first(where: { (($0.first ?? 0) >> 1) & 0x3f == 33 }), nal.count >= 4 else { return nil }
        return Int32(nal[nal.startIndex + 3] & 0x1f)
    }

    /// The NAL units of an Annex B byte stream (start codes 00 00 01 / 00 00 00 01).
    static func annexBUnits(_ b: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        return starts.enumerated().map { k, s in
            var end = k + 1 < starts.count ? starts[k + 1] - 3 : b.count
            while end > s, b[end - 1] == 0 { end -= 1 }
            return b[s..<end]
        }
    }
}
