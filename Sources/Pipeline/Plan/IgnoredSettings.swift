import Recipe

/// Settings a recipe gives that have no effect on the output, said as `ignored` notices: a
/// user who sets `quality` next to `bitrate`, or `bitrate` on a copied track, learns that one
/// of them does nothing.
enum IgnoredSettings {
    static func notices(_ requests: [TrackRequest], lanes: [LanePlan]) -> [PlanNotice] {
        var notices: [PlanNotice] = []
        for lane in lanes {
            // The request this lane came from (each source track is planned once).
            guard let request = requests.first(where: { matches($0.selector, lane.track) }) else { continue }
            let track = lane.track.index
            func ignored(_ key: SettingKey, _ why: String) { notices.append(notice(key, track: track, why)) }
            switch request.mode {
            case .video(let v) where v.codec == .copy:
                for key in v.setKeys where key != .codec { ignored(key, "the track is copied as it is") }
            case .audio(let a) where a.codec == .copy:
                for key in a.setKeys where key != .codec { ignored(key, "the track is copied as it is") }
            case .video(let v):
                if v.quality != nil, v.bitrate != nil { ignored(.quality, "'bitrate' sets the rate instead") }
                // The encoder's own quality option (x264's crf) among the codec options: the one
                // every encoder of the family has (the preferred one's); none where it has no
                // quality scale (ProRes: its rate settings are refused by the assistant).
                if let option = (v.codec.flatMap { VideoFamily.of($0) } ?? VideoFamily.default).encoders[0].quality?.option, let q = v.codecOptions[option] {
                    if v.quality != nil, v.bitrate == nil { ignored(.quality, "the codec option \(option) \(q) sets it instead") }
                    // x264 and x265 take a crf over a bit rate: the rate is not aimed at.
                    if v.bitrate != nil { ignored(.bitrate, "the codec option \(option) \(q) sets constant quality instead") }
                }
                if v.frameRatePolicy != nil, !isRate(v.frameRate) { ignored(.frameRatePolicy, "no 'frame-rate' to apply it to") }
                if v.gop != nil, let why = v.codec.flatMap(VideoFamily.of)?.intraOnlyReason { ignored(.gop, why) }
            case .audio(let a):
                if a.bitrate != nil, let family = a.codec.flatMap(AudioFamily.of), family.lossless {
                    ignored(.bitrate, "\(family.displayName) is lossless: its size follows the sound")
                }
                if let most = a.channels, let layout = a.channelLayout {
                    ignored(.channels, "'channel-layout: \(layout)' sets the channel count (\(most) is only the most allowed)")
                }
            case .passthrough, .subtitle:
                break
            }
        }
        return notices
    }

    /// `'KEY' has no effect: WHY`, about source track `track`.
    static func notice(_ key: SettingKey, track: Int, _ why: String) -> PlanNotice {
        PlanNotice(.ignored, "setting.\(key.rawValue)", track: track, "'\(key.rawValue)' has no effect: \(why)")
    }

    private static func matches(_ selector: TrackSelector, _ track: Track) -> Bool {
        if case .index(let i) = selector { return i == track.index }
        return false
    }

    private static func isRate(_ f: FrameRateSetting?) -> Bool {
        if case .rate? = f { return true }
        return false
    }
}

extension LanePlan {
    /// The lane with its `profile` decision saying what the opened encoder really makes, when
    /// that is not what was asked (x264's `profile` is a ceiling: preset ultrafast makes
    /// Constrained Baseline under `high`).
    func withEncoderProfile(_ real: String?) -> LanePlan {
        guard let real, case .video(var v) = kind, !Self.sameProfile(asked: v.profile, real: real),
              let i = v.decisions.firstIndex(where: { $0.setting == "profile" }) else { return self }
        let preset = v.codecOptions["preset"].map { " with preset \($0)" } ?? ""
        v.decisions[i] = Decision(setting: "profile", value: real, rule: "profile.encoder",
                                  reason: "what \(v.encoderName) makes\(preset); \(v.profile) is the most it may use")
        var lane = self
        lane.kind = .video(v)
        return lane
    }

    /// `high` and `High`, `main10` and `Main 10`, `high422` and `High 4:2:2`.
    static func sameProfile(asked: String, real: String) -> Bool {
        let r = real.lowercased().filter { $0 != " " && $0 != ":" }
        let a = asked.lowercased()
        return r == a || (a == "high444" && r.hasPrefix("high444"))
    }
}
