import Foundation
import Recipe

/// The video track a FrameSource writes.
public struct GeneratedVideoFormat: Sendable {
    public var codec: VideoCodec = .h264
    public var width: Int
    public var height: Int
    /// The nominal rate (written as the stream's frame rate).
    public var frameRate: FrameRate
    /// Timestamps are stored in 1/timescale units; nil: one unit per frame at `frameRate`.
    public var timescale: Int32?
    public var pixelFormat = "yuv420p"
    public var quality: Double = 20
    public var gop: Int?
    /// The encoder's own options (`bframes`, `b-pyramid`, `x265-params` …).
    public var codecOptions: [String: String] = [:]
    /// Degrees clockwise, kept as the display matrix.
    public var rotation = 0
    /// The sample aspect ratio stated (anamorphic pictures: PAL DV's 16:15).
    public var pixelAspect = Ratio.square
    /// Interlaced: each picture is coded as two fields in this order (H.264 only); nil: progressive.
    public var fieldOrder: FieldOrder?
    public var colorPrimaries: String?
    public var colorTransfer: String?
    public var colorMatrix: String?
    /// Where the chroma samples sit (FFmpeg's name: `left`, `topleft` …); nil: not stated.
    public var chromaLocation: String?
    /// HDR10 static metadata, written into the SEI and the container as a conversion writes it.
    public var masteringDisplay: MasteringDisplay?
    public var contentLightLevel: ContentLightLevel?
    public var metadata: [String: String] = [:]
    /// MP4/MOV: B-frames stamped with composition offsets below zero (ctts version 1), as iPhones
    /// write them. A clip of a few frames then reads back with pts < dts: FFmpeg 5.1 learns the
    /// shift only from ctts entries before the last two.
    public var negativeCompositionOffsets = false

    public init(width: Int, height: Int, frameRate: FrameRate) {
        self.width = width; self.height = height; self.frameRate = frameRate
    }

    /// H.264 whose non-sync pictures between P frames nothing references (B frames without
    /// pyramid), like the droppable frames high-frame-rate cameras write.
    public static func droppableH264(width: Int, height: Int, frameRate: FrameRate) -> GeneratedVideoFormat {
        var f = GeneratedVideoFormat(width: width, height: height, frameRate: frameRate)
        // A GOP of a whole number of 4-frame groups keeps the pattern I B B B P B B B P … intact.
        f.gop = Int(frameRate.frames / frameRate.seconds) / 4 * 4
        f.codecOptions = ["preset": "ultrafast", "bf": "3", "b-pyramid": "none", "x264-params": "b-adapt=0:scenecut=0"]
        return f
    }
}

public struct GeneratedAudioFormat: Sendable {
    public var sampleRate = 48000
    public var channels = 2
    public var bitrate = 128_000
    public var metadata: [String: String] = [:]
    /// The first sample's time, in samples (a track that starts after the file's start).
    public var startSample: Int64 = 0
    public init(sampleRate: Int = 48000, channels: Int = 2) {
        self.sampleRate = sampleRate; self.channels = channels
    }
}

/// The subtitle track a FrameSource writes: `subrip` (Matroska), `mov_text` (MP4/MOV) or `ass`.
public struct GeneratedSubtitleFormat: Sendable {
    public var codec: String
    public var metadata: [String: String]
    public init(codec: String, metadata: [String: String] = [:]) { self.codec = codec; self.metadata = metadata }

    /// The styles FFmpeg's text encoders read (one default style).
    static let assHeader = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 384
        PlayResY: 288

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """
}
