import Recipe

/// What becomes of a video track's HDR items, said as plan notices: tone mapping (changed), and
/// every item the output will not carry (dropped).
enum HDRNotices {
    static func notices(for lane: LanePlan, format: ContainerFormat) -> [PlanNotice] {
        let f = lane.track.format, hdr = f.hdr, track = lane.track.index
        var out: [PlanNotice] = []
        switch lane.kind {
        case .video(let v):
            if let d = v.decision("hdr"), d.value == "none" {
                out.append(PlanNotice(.ignored, "setting.hdr", track: track, "'hdr' has no effect: the source is SDR"))
            }
            // Dolby Vision's RPUs ride on any base layer, SDR ones included (profile 9).
            if let dv = hdr.dolbyVision, f.dynamicRange == .sdr {
                out.append(PlanNotice(.dropped, "dolby-vision", track: track,
                                      "the Dolby Vision metadata (\(dv)) is dropped: the encoder cannot write it; the SDR base pictures are kept"))
            }
            guard f.dynamicRange != .sdr else { return out }
            if v.toneMapping != nil {
                out.append(PlanNotice(.changed, "hdr", track: track,
                                      "HDR (\(f.dynamicRange.name)) is tone-mapped to BT.709 SDR (\(v.pixelFormat) \(v.codec.rawValue) output)"))
                let why = "the output is SDR"
                if hdr.masteringDisplay != nil {
                    out.append(PlanNotice(.dropped, "hdr10-mastering-display", track: track, "the HDR10 mastering display metadata is dropped: \(why)"))
                }
                if hdr.contentLightLevel != nil {
                    out.append(PlanNotice(.dropped, "hdr10-content-light-level", track: track, "the HDR10 content light level (MaxCLL/MaxFALL) is dropped: \(why)"))
                }
                if hdr.hasHDR10Plus {
                    out.append(PlanNotice(.dropped, "hdr10plus", track: track, "the HDR10+ dynamic metadata is dropped: \(why)"))
                }
                if let dv = hdr.dolbyVision {
                    out.append(PlanNotice(.dropped, "dolby-vision", track: track, "the Dolby Vision metadata (\(dv)) is dropped: \(why)"))
                }
            } else {
                if hdr.hasHDR10Plus {
                    out.append(PlanNotice(.dropped, "hdr10plus", track: track,
                                          "the HDR10+ dynamic metadata is dropped: FFmpeg 5.1's encoders cannot write it (the HDR10 static metadata is kept)"))
                }
                if let dv = hdr.dolbyVision {
                    out.append(PlanNotice(.dropped, "dolby-vision", track: track,
                                          "the Dolby Vision metadata (\(dv)) is dropped: the encoder cannot write it; the \(f.dynamicRange.name) base pictures are kept"))
                }
            }
        case .passthrough:
            if let dv = hdr.dolbyVision, format == .mov {
                out.append(PlanNotice(.dropped, "dolby-vision", track: track,
                                      "the Dolby Vision configuration (\(dv)) is dropped: FFmpeg 5.1's MOV writer cannot store it (.mp4 and .mkv keep it); players show the base layer"))
            }
        case .audio, .subtitle:
            break
        }
        return out
    }
}
