/// Everything particular to one audio encoder family, in one row (as `VideoFamily` for video):
/// adding a codec is adding a row to `AudioFamily.all`.
public struct AudioFamily: Sendable {
    /// The recipe's name for it (`codec: aac`).
    public let codec: AudioCodec
    /// As people write it: `AAC`.
    public let displayName: String
    /// FFmpeg's encoders for it, preferred first.
    public let encoders: [String]
    /// The sample rates the codec has, for an encoder that does not list its own.
    public let sampleRates: [Int]

    /// The rows, the default first.
    public static let all: [AudioFamily] = [.aac]
    /// What a recipe that names no audio codec gets.
    public static var `default`: AudioFamily { all[0] }

    /// The row of a recipe's codec; nil for `copy`.
    public static func of(_ codec: AudioCodec) -> AudioFamily? { all.first { $0.codec == codec } }

    /// The first of its encoders that `isAvailable` says this FFmpeg has, else the preferred one.
    public func encoder(where isAvailable: (String) -> Bool) -> String {
        encoders.first(where: isAvailable) ?? encoders[0]
    }

    public static let aac = AudioFamily(
        codec: .aac, displayName: "AAC", encoders: ["aac"],
        sampleRates: [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350])
}

/// The names a recipe's `codec` takes: every row's, then `copy`.
public var recipeCodecNames: [String] {
    VideoFamily.all.map(\.codec.rawValue) + AudioFamily.all.map(\.codec.rawValue) + ["copy"]
}
