/// Named output settings. A preset carries settings for video tracks and for audio tracks; a
/// writer input uses the part that fits its track.
public struct PresetDefinition: Sendable {
    public let name: String
    public var base: Located<String>?
    public var video = VideoSettings()
    public var audio = AudioSettings()
    /// Keys that only apply to one kind of track, with where they were written (for errors).
    public var videoOnlyKeys: [(String, Mark)] = []
    public var audioOnlyKeys: [(String, Mark)] = []
    /// Every key written, with where (a codec option as `codec-options.NAME`): an error that a
    /// setting causes is reported at the line that set it.
    public var keyMarks: [(String, Mark)] = []
    public let mark: Mark?
    public var summary: String?

    public init(name: String, mark: Mark?, summary: String? = nil) {
        self.name = name; self.mark = mark; self.summary = summary
    }
}

/// Settings for both kinds of track after `base:` chains are merged.
public struct ResolvedPreset: Sendable {
    public var video: VideoSettings
    public var audio: AudioSettings
    public var videoOnlyKeys: [(String, Mark)]
    public var audioOnlyKeys: [(String, Mark)]
    /// Every key the chain writes, base first (the last of a name is the one that counts).
    public var keyMarks: [(String, Mark)] = []
    /// The chain, most specific first: `video-30 ← h264-1920x1080`.
    public var chain: [String]

    /// No preset: everything open.
    public static let empty = ResolvedPreset(video: VideoSettings(), audio: AudioSettings(), videoOnlyKeys: [], audioOnlyKeys: [], keyMarks: [], chain: [])
}

/// The built-in catalogue, AVFoundation's export presets in our words. Sizes are boxes the picture
/// is fitted inside (never upscaled), audio bit rates ceilings (never above the source's); what a
/// preset leaves open the settings assistant derives.
public enum BuiltinPresets {
    public static let all: [PresetDefinition] = [
        make("passthrough", "Copy every sample as it is: no decode, no encode, no quality loss.",
             video: VideoSettings(codec: .copy), audio: AudioSettings(codec: .copy)),
        make("low-quality", "H.264 inside 640x360 at constant quality 30, AAC at most 96 kb/s: small previews.",
             video: VideoSettings(codec: .h264, width: 640, height: 360, quality: 30), audio: AudioSettings(codec: .aac, bitrate: 96_000)),
        make("medium-quality", "H.264 inside 1280x720 at constant quality 26, AAC.",
             video: VideoSettings(codec: .h264, width: 1280, height: 720, quality: 26), audio: AudioSettings(codec: .aac)),
        make("highest-quality", "H.264 at the source's size, constant quality 18, AAC at most 256 kb/s.",
             video: VideoSettings(codec: .h264, quality: 18), audio: AudioSettings(codec: .aac, bitrate: 256_000)),
        make("h264-640x480", "H.264 inside 640x480, AAC.", video: VideoSettings(codec: .h264, width: 640, height: 480), audio: AudioSettings(codec: .aac)),
        make("h264-960x540", "H.264 inside 960x540, AAC.", video: VideoSettings(codec: .h264, width: 960, height: 540), audio: AudioSettings(codec: .aac)),
        make("h264-1280x720", "H.264 inside 1280x720, AAC.", video: VideoSettings(codec: .h264, width: 1280, height: 720), audio: AudioSettings(codec: .aac)),
        make("h264-1920x1080", "H.264 inside 1920x1080, AAC.", video: VideoSettings(codec: .h264, width: 1920, height: 1080), audio: AudioSettings(codec: .aac)),
        make("h264-3840x2160", "H.264 inside 3840x2160, AAC.", video: VideoSettings(codec: .h264, width: 3840, height: 2160), audio: AudioSettings(codec: .aac)),
        make("hevc-1920x1080", "HEVC inside 1920x1080 (10-bit and chroma kept), AAC.", video: VideoSettings(codec: .hevc, width: 1920, height: 1080), audio: AudioSettings(codec: .aac)),
        make("hevc-3840x2160", "HEVC inside 3840x2160 (10-bit and chroma kept), AAC.", video: VideoSettings(codec: .hevc, width: 3840, height: 2160), audio: AudioSettings(codec: .aac)),
        make("hevc-highest-quality", "HEVC at the source's size, constant quality 20 (10-bit and chroma kept), AAC at most 256 kb/s.",
             video: VideoSettings(codec: .hevc, quality: 20), audio: AudioSettings(codec: .aac, bitrate: 256_000)),
        // A speed is not set: it is each AV1 encoder's own option (SVT-AV1's preset, libaom's cpu-used).
        make("av1-1080p", "AV1 inside 1920x1080 (10-bit kept), Opus.", video: VideoSettings(codec: .av1, width: 1920, height: 1080), audio: AudioSettings(codec: .opus)),
        // An archive keeps the sound it was given: a lossy source is not coded a second time,
        // a lossless one stays lossless (FLAC of a lossy track would be larger and no better).
        make("av1-archive", "AV1 at the source's size in 10 bits, constant quality 20 (visually lossless), the sound copied as it is.",
             video: VideoSettings(codec: .av1, quality: 20, pixelFormat: "yuv420p10le"), audio: AudioSettings(codec: .copy)),
        make("vp9-1080p", "WebM for the web: VP9 inside 1920x1080 (10-bit HDR kept), Opus at most 128 kb/s.",
             video: VideoSettings(codec: .vp9, width: 1920, height: 1080), audio: AudioSettings(codec: .opus, bitrate: 128_000)),
        // ProRes as AVFoundation's AppleProRes422LPCM and AppleProRes4444LPCM make it: the
        // source's size and rate, PCM sound (MOV or MKV: MP4 holds neither).
        prores("proxy", "ProRes 422 Proxy (10-bit 4:2:2) at the source's size, PCM sound: light editing proxies; MOV or MKV."),
        prores("lt", "ProRes 422 LT (10-bit 4:2:2) at the source's size, PCM sound; MOV or MKV."),
        prores("422", "ProRes 422 (10-bit 4:2:2) at the source's size, PCM sound, as AVFoundation's AppleProRes422LPCM; MOV or MKV."),
        prores("hq", "ProRes 422 HQ (10-bit 4:2:2) at the source's size, PCM sound; MOV or MKV."),
        prores("4444", "ProRes 4444 (10-bit 4:4:4, the source's alpha kept) at the source's size, PCM sound, as AVFoundation's AppleProRes4444LPCM; MOV or MKV."),
        make("m4a", "Audio only: AAC, the source's rate (48 kHz at most) and up to 2 channels.", video: nil, audio: AudioSettings(codec: .aac)),
        make("aac-stereo", "AAC, up to stereo and 128 kb/s, the source's rate (48 kHz at most): never more than the source has.",
             video: nil, audio: AudioSettings(codec: .aac, bitrate: 128_000, channels: 2)),
        make("opus-stereo", "Opus, up to stereo and 128 kb/s, at 48 kHz (as Opus codes): never more than the source has.",
             video: nil, audio: AudioSettings(codec: .opus, bitrate: 128_000, channels: 2)),
        make("flac", "FLAC, lossless: the source's rate, channels and bit depth (16 or 24).", video: nil, audio: AudioSettings(codec: .flac)),
        make("alac", "ALAC (Apple Lossless): the source's rate, channels and bit depth (16 or 24).", video: nil, audio: AudioSettings(codec: .alac)),
    ]

    public static func named(_ name: String) -> PresetDefinition? { all.first { $0.name == name } }

    /// Names of presets that have no video part.
    public static let audioOnly: Set<String> = ["m4a", "aac-stereo", "opus-stereo", "flac", "alac"]

    /// `prores-NAME`: the ProRes profile `NAME` (422 is `standard`), PCM at the source's depth.
    private static func prores(_ name: String, _ summary: String) -> PresetDefinition {
        make("prores-\(name)", summary, video: VideoSettings(codec: .prores, profile: name == "422" ? "standard" : name), audio: AudioSettings(codec: .pcm))
    }

    private static func make(_ name: String, _ summary: String, video: VideoSettings?, audio: AudioSettings) -> PresetDefinition {
        var p = PresetDefinition(name: name, mark: nil, summary: summary)
        p.video = video ?? VideoSettings()
        p.audio = audio
        p.audio.bitrateIsCeiling = audio.bitrate != nil
        if video == nil { p.audioOnlyKeys = [("codec", Mark(line: 0, column: 0))] }
        return p
    }
}

extension Recipe {
    /// The longest `base:` chain a preset may have (counting itself). Real recipes use two or
    /// three; the bound keeps resolving every preset of a recipe linear in its size.
    public static let maxPresetChain = 32

    /// Merges a preset with its `base:` chain (user presets, then built-ins). Cycles and unknown
    /// bases are errors at the `base:` that causes them; a chain longer than `maxPresetChain` is an
    /// error at the reference that starts it.
    public func resolvePreset(_ name: Located<String>) throws(Diagnostic) -> ResolvedPreset {
        let chain = try presetChain(name)
        let layers = chain.map { presets[$0] ?? BuiltinPresets.named($0) ?? PresetDefinition(name: $0, mark: nil) }
        var video = VideoSettings(), audio = AudioSettings()
        var vk: [(String, Mark)] = [], ak: [(String, Mark)] = [], marks: [(String, Mark)] = []
        for p in layers.reversed() {
            video = p.video.over(video)
            audio = p.audio.over(audio)
            vk += p.videoOnlyKeys
            ak += p.audioOnlyKeys
            marks += p.keyMarks
        }
        return ResolvedPreset(video: video, audio: audio, videoOnlyKeys: vk, audioOnlyKeys: ak, keyMarks: marks, chain: chain)
    }

    /// A writer input's settings merged: its preset's chain, or its inline settings over their
    /// `base:` chain (their keys after the base's). nil: the input names no settings.
    public func resolvedSettings(of input: WriterInput) throws(Diagnostic) -> ResolvedPreset? {
        switch input.settings {
        case .none: return nil
        case .preset(let name): return try resolvePreset(name)
        case .inline(let def):
            var base = ResolvedPreset.empty
            if let b = def.base { base = try resolvePreset(b) }
            return ResolvedPreset(video: def.video.over(base.video), audio: def.audio.over(base.audio),
                                  videoOnlyKeys: base.videoOnlyKeys + def.videoOnlyKeys, audioOnlyKeys: base.audioOnlyKeys + def.audioOnlyKeys,
                                  keyMarks: base.keyMarks + def.keyMarks, chain: base.chain)
        }
    }

    /// The names of a preset's `base:` chain, most specific first, with `resolvePreset`'s errors;
    /// names only, so that checking every preset of a large recipe stays cheap.
    public func presetChain(_ name: Located<String>) throws(Diagnostic) -> [String] {
        var chain: [String] = []
        var visiting: Set<String> = []
        var current: Located<String>? = name
        while let n = current {
            if visiting.contains(n.value) {
                throw diagnostic(n.mark, "preset '\(chain[0])' extends itself: \((chain + [n.value]).joined(separator: " → "))")
            }
            if chain.count >= Self.maxPresetChain {
                throw diagnostic(name.mark, "preset '\(name.value)' has a 'base:' chain longer than \(Self.maxPresetChain) presets (\(name.value) → … → \(chain[chain.count - 1]) → \(n.value) …)")
            }
            visiting.insert(n.value)
            let base: Located<String>?
            if let p = presets[n.value] {
                base = p.base
            } else if BuiltinPresets.named(n.value) != nil {
                base = nil  // built-ins have no base
            } else {
                let hint = presets.count + BuiltinPresets.all.count <= maxSuggestionCandidates ? suggestion(n.value, among: presetNames) : ""
                throw diagnostic(n.mark, "unknown preset '\(n.value)'" + hint)
            }
            chain.append(n.value)
            current = base
        }
        return chain
    }

    public var presetNames: [String] { Array(presets.keys) + BuiltinPresets.all.map(\.name) }
}
