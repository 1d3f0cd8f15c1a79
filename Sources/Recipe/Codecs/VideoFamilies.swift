/// The video rows: Debian 12's FFmpeg 5.1 encoders.
extension VideoFamily {
    /// x264's and x265's presets, fastest first.
    private static let x26xPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    public static let h264 = VideoFamily(
        codec: .h264, streamCodec: "h264", displayName: "H.264",
        encoders: [VideoEncoder(
            name: "libx264", library: "x264",
            quality: QualityScale(option: "crf", range: 0...51, defaultValue: 23),
            speed: NamedOption(option: "preset", names: x26xPresets),
            tune: NamedOption(option: "tune", names: ["film", "animation", "grain", "stillimage", "psnr", "ssim", "fastdecode", "zerolatency"]),
            levelSignalling: .option("level"),
            keyframes: .pictureType(options: ["forced-idr": "1"]),
            parameters: ParameterString(option: "x264-params", aliases: ["x264opts"], quiet: nil),
            hdr: HDRSignalling(masteringDisplay: "mastering-display", contentLightLevel: "cll"),
            twoPass: .statisticsFile(option: "stats"))],
        profiles: [
            Profile("baseline", depth: 8, chroma: 420), Profile("main", depth: 8, chroma: 420), Profile("high", depth: 8, chroma: 420),
            Profile("high10", depth: 10, chroma: 420), Profile("high422", depth: 10, chroma: 422), Profile("high444", depth: 14, chroma: 444),
        ],
        automaticProfiles: ["high", "high10", "high422", "high444"],
        levels: .macroblocks([
            ("1", 1485, 99), ("1b", 1485, 99), ("1.1", 3000, 396), ("1.2", 6000, 396), ("1.3", 11880, 396),
            ("2", 11880, 396), ("2.1", 19800, 792), ("2.2", 20250, 1620), ("3", 40500, 1620),
            ("3.1", 108000, 3600), ("3.2", 216000, 5120), ("4", 245760, 8192), ("4.1", 245760, 8192),
            ("4.2", 522240, 8704), ("5", 589824, 22080), ("5.1", 983040, 36864), ("5.2", 2073600, 36864),
            ("6", 4177920, 139264), ("6.1", 8355840, 139264), ("6.2", 16711680, 139264),
        ]),
        pixelFormats: .eightBit420,
        codesFields: true,
        frames: .h264)

    public static let hevc = VideoFamily(
        codec: .hevc, streamCodec: "hevc", displayName: "HEVC",
        encoders: [VideoEncoder(
            name: "libx265", library: "x265",
            quality: QualityScale(option: "crf", range: 0...51, defaultValue: 28),
            speed: NamedOption(option: "preset", names: x26xPresets),
            tune: NamedOption(option: "tune", names: ["psnr", "ssim", "grain", "zerolatency", "fastdecode", "animation"]),
            levelSignalling: .parameterWhenAsked("level-idc"),
            keyframes: .pictureType(options: ["forced-idr": "1"], parameters: ["open-gop=0"]),
            parameters: ParameterString(option: "x265-params", aliases: [], quiet: (key: "log-level", value: "error")),
            hdr: HDRSignalling(masteringDisplay: "master-display", contentLightLevel: "max-cll"),
            guessesShortEncodeDTS: true,
            threadParameter: "pools",
            twoPass: .parameters(pass: "pass", file: "stats"))],
        profiles: [
            Profile("main", depth: 8, chroma: 420), Profile("main-intra", depth: 8, chroma: 420),
            Profile("mainstillpicture", depth: 8, chroma: 420), Profile("msp", depth: 8, chroma: 420),
            Profile("main10", depth: 10, chroma: 420), Profile("main10-intra", depth: 10, chroma: 420),
            Profile("main12", depth: 12, chroma: 420), Profile("main12-intra", depth: 12, chroma: 420),
            Profile("main422-10", depth: 10, chroma: 422), Profile("main422-10-intra", depth: 10, chroma: 422),
            Profile("main422-12", depth: 12, chroma: 422), Profile("main422-12-intra", depth: 12, chroma: 422),
            Profile("main444-8", depth: 8, chroma: 444), Profile("main444-intra", depth: 8, chroma: 444),
            Profile("main444-stillpicture", depth: 8, chroma: 444),
            Profile("main444-10", depth: 10, chroma: 444), Profile("main444-10-intra", depth: 10, chroma: 444),
            Profile("main444-12", depth: 12, chroma: 444), Profile("main444-12-intra", depth: 12, chroma: 444),
            Profile("main444-16-intra", depth: 16, chroma: 444), Profile("main444-16-stillpicture", depth: 16, chroma: 444),
        ],
        automaticProfiles: ["main", "main10", "main12", "main422-10", "main422-12", "main444-8", "main444-10", "main444-12"],
        levels: .lumaSamples([
            ("1", 36864, 552960), ("2", 122880, 3686400), ("2.1", 245760, 7372800),
            ("3", 552960, 16588800), ("3.1", 983040, 33177600), ("4", 2228224, 66846720),
            ("4.1", 2228224, 133693440), ("5", 8912896, 267386880), ("5.1", 8912896, 534773760),
            ("5.2", 8912896, 1069547520), ("6", 35651584, 1069547520), ("6.1", 35651584, 2139095040),
            ("6.2", 35651584, 4278190080),
        ]),
        pixelFormats: .keepDepthAndChroma(tenBitProfile: "Main 10"),
        codesFields: false,
        frames: .hevc)

    /// AV1 by SVT-AV1, else by libaom (slower at the same speed of coding): Main profile, 8- and
    /// 10-bit 4:2:0, whichever makes it; High, 8- and 10-bit 4:4:4, by libaom alone (SVT-AV1
    /// 1.4 codes 4:2:0 only), which the assistant then picks and `plan` says why. Professional
    /// (4:2:2, 12 bits) is not made: a 4:2:2 source becomes 4:2:0.
    public static let av1 = VideoFamily(
        codec: .av1, streamCodec: "av1", displayName: "AV1",
        encoders: [svtAV1, libaomAV1],
        profiles: [Profile("main", depth: 10, chroma: 420), Profile("high", depth: 10, chroma: 444, chromas: [420, 444])],
        automaticProfiles: ["main", "high"],
        // Annex A.3: MaxPicSize and MaxDisplayRate in luma samples.
        levels: .lumaSamples([
            ("2", 147456, 4423680), ("2.1", 278784, 8363520), ("3", 665856, 19975680), ("3.1", 1065024, 31950720),
            ("4", 2359296, 70778880), ("4.1", 2359296, 141557760), ("5", 8912896, 267386880), ("5.1", 8912896, 534773760),
            ("5.2", 8912896, 1069547520), ("5.3", 8912896, 1069547520), ("6", 35651584, 1069547520),
            ("6.1", 35651584, 2139095040), ("6.2", 35651584, 4278190080), ("6.3", 35651584, 4278190080),
        ]),
        pixelFormats: .keepDepthAndChroma(tenBitProfile: "Main"),
        codesFields: false,
        frames: nil)

    /// SVT-AV1 1.4: 8- and 10-bit 4:2:0 only.
    static let svtAV1 = VideoEncoder(
        name: "libsvtav1", library: "SVT-AV1",
        quality: QualityScale(option: "crf", range: 0...63, defaultValue: 35),
        // Presets 13 (fastest) to 0; 8 is SVT-AV1's own advice for a good speed/size balance.
        speed: NamedOption(option: "preset", names: (0...13).reversed().map(String.init), defaultName: "8"),
        // FFmpeg 5.1's wrapper does not pass a level on.
        levelSignalling: .byEncoder,
        // FFmpeg 5.1's wrapper sends every picture as the encoder's own choice (the picture
        // type is read from 6.0 on, with SVT-AV1's force-key-frames).
        keyframes: .refused("SVT-AV1 cannot be told where its keyframes go under FFmpeg 5.1 (its wrapper ignores a forced keyframe): use codec h264, hevc or vp9"),
        parameters: ParameterString(option: "svtav1-params", aliases: [], quiet: nil),
        closesOnlyAfterAPicture: true,
        // Fatal lines only: SVT-AV1 logs its banner and configuration at info level by default.
        quietEnvironment: (name: "SVT_LOG", value: "0"),
        // Its parameter check refuses anything else (and odd sizes, which 4:2:0 never asks for).
        pictureSizes: PictureSizes(minimum: (64, 64), maximum: (16384, 8704)),
        // Its input classes: below 314,880 luma samples (656x480) preset 13 runs as 12.
        smallPictureSpeed: SmallPictureSpeed(fastest: "12", lumaSamples: 314_880, sizeName: "360p and lower"),
        threadParameter: "lp",
        // FFmpeg 5.1's wrapper passes neither the pass flags nor statistics on (SVT-AV1's own
        // multi-pass needs its `passes` and `stats` parameters, which the wrapper does not expose).
        twoPass: .unsupported("FFmpeg 5.1's libsvtav1 wrapper has no two-pass rate control"))

    /// libaom 3.6 under FFmpeg's usage `good` (two-pass-quality tools in one pass).
    static let libaomAV1 = VideoEncoder(
        name: "libaom-av1", library: "libaom",
        // The same CRF scale as SVT-AV1's; without bitrate 0 FFmpeg's wrapper makes it a
        // constrained quality capped by its default 200 kb/s target.
        quality: QualityScale(option: "crf", range: 0...63, defaultValue: 35, alongside: ["b": "0"]),
        // cpu-used 8 (fastest) to 0; 6 balances speed and size as SVT-AV1's preset 8 does
        // (FFmpeg's own default, 1, is many times slower).
        speed: NamedOption(option: "cpu-used", names: (0...8).reversed().map(String.init), defaultName: "6"),
        tune: NamedOption(option: "tune", names: ["psnr", "ssim"]),
        // FFmpeg 5.1's wrapper has no level option; libaom signals the level it codes.
        levelSignalling: .byEncoder,
        // A forced picture becomes a key frame (AOM_EFLAG_FORCE_KF), which references nothing before it.
        keyframes: .pictureType(options: [:]),
        parameters: ParameterString(option: "aom-params", aliases: [], quiet: nil),
        fixedOptions: [FixedOption(option: "row-mt", value: "1",
                                   reason: "libaom codes the rows of each tile on their own threads (without it, one thread a tile)"),
                       FixedOption(option: "usage", value: "good",
                                   reason: "libaom's good-quality mode (not realtime's or all-intra's)")],
        twoPass: .codecStatistics)

    /// VP9 by libvpx: profiles 0 (8-bit 4:2:0), 1 (8-bit 4:2:2/4:4:4), 2 and 3 (10/12-bit).
    public static let vp9 = VideoFamily(
        codec: .vp9, streamCodec: "vp9", displayName: "VP9",
        encoders: [VideoEncoder(
            name: "libvpx-vp9", library: "libvpx",
            // 31: Google's advice for 1080p video on demand.
            quality: QualityScale(option: "crf", range: 0...63, defaultValue: 31, alongside: ["b": "0"]),
            // cpu-used 8 (fastest) to 0 under FFmpeg's deadline `good`; 4 is Google's for on-demand video.
            speed: NamedOption(option: "cpu-used", names: (0...8).reversed().map(String.init), defaultName: "4"),
            tune: NamedOption(option: "tune-content", names: ["default", "screen", "film"]),
            levelSignalling: .byEncoder,
            // A forced picture becomes a key frame (VPX_EFLAG_FORCE_KF), which references nothing before it.
            keyframes: .pictureType(options: [:]),
            // Colour tags go in its colour config; HDR10 metadata only in the container.
            fixedOptions: [FixedOption(option: "row-mt", value: "1",
                                       reason: "libvpx codes the rows of each tile column on their own threads (without it, one thread a column)")],
            tileColumns: TileColumns(option: "tile-columns", minimumWidth: 256, maxLog2: 6),
            twoPass: .codecStatistics)],
        profiles: [Profile("0", depth: 8, chroma: 420), Profile("1", depth: 8, chroma: 444),
                   Profile("2", depth: 12, chroma: 420), Profile("3", depth: 12, chroma: 444)],
        automaticProfiles: ["0", "1", "2", "3"],
        // VP9's levels: MaxLumaPictureSize and MaxLumaSampleRate.
        levels: .lumaSamples([
            ("1", 36864, 829440), ("1.1", 73728, 2764800), ("2", 122880, 4608000), ("2.1", 245760, 9216000),
            ("3", 552960, 20736000), ("3.1", 983040, 36864000), ("4", 2228224, 83558400), ("4.1", 2228224, 160432128),
            ("5", 8912896, 311951360), ("5.1", 8912896, 588251136), ("5.2", 8912896, 1176502272),
            ("6", 35651584, 1176502272), ("6.1", 35651584, 2353004544), ("6.2", 35651584, 4706009088),
        ]),
        pixelFormats: .keepDepthAndChroma(tenBitProfile: "Profile 2"),
        codesFields: false,
        frames: nil)

    /// ProRes: an intra-only editing codec whose profile is its data rate and its pixel format —
    /// proxy, lt, standard and hq 10-bit 4:2:2, 4444 and 4444xq 10-bit 4:4:4, with alpha where the
    /// source has it. No levels; its frame headers and the container carry the colour tags.
    /// prores_ks codes each frame as two fields where the encoder is told interlaced
    /// (AV_CODEC_FLAG_INTERLACED_DCT), in the order each frame states (`top_field_first`): an
    /// interlaced source stays interlaced unless the settings ask to deinterlace.
    public static let prores = VideoFamily(
        codec: .prores, streamCodec: "prores", displayName: "ProRes",
        encoders: [proresKS],
        profiles: ["proxy", "lt", "standard", "hq"].map { Profile($0, depth: 10, chroma: 422, pixelFormats: ["yuv422p10le"]) }
            + ["4444", "4444xq"].map { Profile($0, depth: 10, chroma: 444, pixelFormats: ["yuv444p10le", "yuva444p10le"]) },
        // ProRes 422 (`standard`), what AVFoundation's AppleProRes422LPCM preset makes; 4444
        // for what 4:2:2 would lose (4:4:4 or RGB chroma, alpha).
        automaticProfiles: ["standard", "4444"],
        levels: .none,
        pixelFormats: .ofProfile,
        codesFields: true,
        frames: nil,
        intraOnly: true,
        keepsFields: true)

    /// FFmpeg's prores_ks: its `profile` option takes the row's profile names. No quality scale
    /// (the profile is the rate), no speed option, no parameter string or HDR metadata keys.
    static let proresKS = VideoEncoder(
        name: "prores_ks", library: "prores_ks",
        quality: nil,
        speed: nil,
        levelSignalling: .byEncoder,
        // Every picture is coded on its own already.
        keyframes: .pictureType(options: [:]))
}
