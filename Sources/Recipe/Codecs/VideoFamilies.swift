/// The video rows: Debian 12's FFmpeg 5.1 encoders.
extension VideoFamily {
    /// x264's and x265's presets, fastest first.
    private static let x26xPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    public static let h264 = VideoFamily(
        codec: .h264, streamCodec: "h264", displayName: "H.264", library: "x264",
        encoders: ["libx264"],
        quality: QualityScale(option: "crf", range: 0...51, defaultValue: 23),
        speed: NamedOption(option: "preset", names: x26xPresets),
        tune: NamedOption(option: "tune", names: ["film", "animation", "grain", "stillimage", "psnr", "ssim", "fastdecode", "zerolatency"]),
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
        levelSignalling: .option("level"),
        parameters: ParameterString(option: "x264-params", aliases: ["x264opts"], quiet: nil),
        hdr: HDRSignalling(masteringDisplay: "mastering-display", contentLightLevel: "cll"),
        pixelFormats: .eightBit420,
        codesFields: true,
        frames: .h264,
        guessesShortEncodeDTS: false,
        closesOnlyAfterAPicture: false,
        quietEnvironment: nil)

    public static let hevc = VideoFamily(
        codec: .hevc, streamCodec: "hevc", displayName: "HEVC", library: "x265",
        encoders: ["libx265"],
        quality: QualityScale(option: "crf", range: 0...51, defaultValue: 28),
        speed: NamedOption(option: "preset", names: x26xPresets),
        tune: NamedOption(option: "tune", names: ["psnr", "ssim", "grain", "zerolatency", "fastdecode", "animation"]),
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
        levelSignalling: .parameterWhenAsked("level-idc"),
        parameters: ParameterString(option: "x265-params", aliases: [], quiet: (key: "log-level", value: "error")),
        hdr: HDRSignalling(masteringDisplay: "master-display", contentLightLevel: "max-cll"),
        pixelFormats: .keepDepthAndChroma(tenBitProfile: "Main 10"),
        codesFields: false,
        frames: .hevc,
        guessesShortEncodeDTS: true,
        closesOnlyAfterAPicture: false,
        quietEnvironment: nil)

    /// AV1 by SVT-AV1: Main profile, 8- and 10-bit 4:2:0.
    public static let av1 = VideoFamily(
        codec: .av1, streamCodec: "av1", displayName: "AV1", library: "SVT-AV1",
        encoders: ["libsvtav1"],
        quality: QualityScale(option: "crf", range: 0...63, defaultValue: 35),
        // Presets 13 (fastest) to 0; 8 is SVT-AV1's own advice for a good speed/size balance.
        speed: NamedOption(option: "preset", names: (0...13).reversed().map(String.init), defaultName: "8"),
        tune: nil,
        profiles: [Profile("main", depth: 10, chroma: 420)],
        automaticProfiles: ["main"],
        // Annex A.3: MaxPicSize and MaxDisplayRate in luma samples.
        levels: .lumaSamples([
            ("2", 147456, 4423680), ("2.1", 278784, 8363520), ("3", 665856, 19975680), ("3.1", 1065024, 31950720),
            ("4", 2359296, 70778880), ("4.1", 2359296, 141557760), ("5", 8912896, 267386880), ("5.1", 8912896, 534773760),
            ("5.2", 8912896, 1069547520), ("5.3", 8912896, 1069547520), ("6", 35651584, 1069547520),
            ("6.1", 35651584, 2139095040), ("6.2", 35651584, 4278190080), ("6.3", 35651584, 4278190080),
        ]),
        levelSignalling: .byEncoder,
        parameters: ParameterString(option: "svtav1-params", aliases: [], quiet: nil),
        hdr: nil,
        pixelFormats: .keepDepthAndChroma(tenBitProfile: "Main"),
        codesFields: false,
        frames: nil,
        guessesShortEncodeDTS: false,
        closesOnlyAfterAPicture: true,
        // Fatal lines only: SVT-AV1 logs its banner and configuration at info level by default.
        quietEnvironment: (name: "SVT_LOG", value: "0"),
        // Its parameter check refuses anything else (and odd sizes, which 4:2:0 never asks for).
        pictureSizes: PictureSizes(minimum: (64, 64), maximum: (16384, 8704)),
        // Its input classes: below 314,880 luma samples (656x480) preset 13 runs as 12.
        smallPictureSpeed: SmallPictureSpeed(fastest: "12", lumaSamples: 314_880, sizeName: "360p and lower"))

    /// VP9 by libvpx: profiles 0 (8-bit 4:2:0), 1 (8-bit 4:2:2/4:4:4), 2 and 3 (10/12-bit).
    public static let vp9 = VideoFamily(
        codec: .vp9, streamCodec: "vp9", displayName: "VP9", library: "libvpx",
        encoders: ["libvpx-vp9"],
        // 31: Google's advice for 1080p video on demand.
        quality: QualityScale(option: "crf", range: 0...63, defaultValue: 31, alongside: ["b": "0"]),
        // cpu-used 8 (fastest) to 0 under FFmpeg's deadline `good`; 4 is Google's for on-demand video.
        speed: NamedOption(option: "cpu-used", names: (0...8).reversed().map(String.init), defaultName: "4"),
        tune: NamedOption(option: "tune-content", names: ["default", "screen", "film"]),
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
        levelSignalling: .byEncoder,
        parameters: nil,
        // Colour tags go in its colour config; HDR10 metadata only in the container.
        hdr: nil,
        pixelFormats: .keepDepthAndChroma(tenBitProfile: "Profile 2"),
        codesFields: false,
        frames: nil,
        guessesShortEncodeDTS: false,
        closesOnlyAfterAPicture: false,
        quietEnvironment: nil,
        fixedOptions: [FixedOption(option: "row-mt", value: "1",
                                   reason: "libvpx codes the rows of each tile column on their own threads (without it, one thread a column)")],
        tileColumns: TileColumns(option: "tile-columns", minimumWidth: 256, maxLog2: 6))

    /// ProRes by FFmpeg's prores_ks: an intra-only editing codec whose profile is its data rate
    /// and its pixel format — proxy, lt, standard and hq 10-bit 4:2:2, 4444 and 4444xq 10-bit
    /// 4:4:4, with alpha where the source has it. No quality scale, speed, levels or HDR metadata
    /// of its own (its frame headers and the container carry the colour tags).
    public static let prores = VideoFamily(
        codec: .prores, streamCodec: "prores", displayName: "ProRes", library: "prores_ks",
        encoders: ["prores_ks"],
        quality: nil,
        speed: nil,
        tune: nil,
        profiles: ["proxy", "lt", "standard", "hq"].map { Profile($0, depth: 10, chroma: 422, pixelFormats: ["yuv422p10le"]) }
            + ["4444", "4444xq"].map { Profile($0, depth: 10, chroma: 444, pixelFormats: ["yuv444p10le", "yuva444p10le"]) },
        // ProRes 422 (`standard`), what AVFoundation's AppleProRes422LPCM preset makes; 4444
        // for what 4:2:2 would lose (4:4:4 or RGB chroma, alpha).
        automaticProfiles: ["standard", "4444"],
        levels: .none,
        levelSignalling: .byEncoder,
        parameters: nil,
        hdr: nil,
        pixelFormats: .ofProfile,
        codesFields: false,
        frames: nil,
        guessesShortEncodeDTS: false,
        closesOnlyAfterAPicture: false,
        quietEnvironment: nil,
        intraOnly: true)
}
