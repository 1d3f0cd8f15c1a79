import Recipe

/// Reads what a phone stored about slow motion: the SEF trailer's segments, the `smta` box and
/// `com.android.capture.fps`. Cheap: a few small reads at the end of the file and along the
/// `moov/udta` path, never the media data.
public enum SlowMotionReader {
    /// The `mdta` key Android's recorder writes the capture rate under.
    public static let captureRateKey = "com.android.capture.fps"

    /// nil when the file holds none of the three. Throws `.unsupported` naming the file when its
    /// SEF trailer or `smta` box is there but cannot be read as it says (see docs/slow-motion.md).
    public static func read(path: String, metadata: [String: String], isMP4: Bool) throws(MediaError) -> SlowMotionInfo? {
        guard isMP4, let file = try SlowMotionFile.regular(path: path) else { return info(sef: nil, smta: nil, metadata: metadata) }
        return try read(file, path: path, metadata: metadata)
    }

    static func read(_ file: some SlowMotionBytes, path: String, metadata: [String: String]) throws(MediaError) -> SlowMotionInfo? {
        let sef = try SlowMotionSEF.read(file, path: path)
        let smta = try SlowMotionSmta.read(file, path: path)
        return info(sef: sef, smta: smta, metadata: metadata)
    }

    private static func info(sef: SlowMotionSEF.Contents?, smta: SlowMotionSmta.Contents?, metadata: [String: String]) -> SlowMotionInfo? {
        let info = SlowMotionInfo(smtaCaptureRate: smta?.captureRate,
                                  androidCaptureRate: metadata[captureRateKey].flatMap(captureRate),
                                  temporalLayerCount: smta?.temporalLayerCount,
                                  recordingMode: smta?.recordingMode,
                                  segments: sef?.segments ?? [],
                                  otherSEFEntries: sef?.otherEntries ?? [],
                                  otherSEFEntriesLeftOut: sef?.otherEntriesLeftOut ?? 0)
        return info.isEmpty ? nil : info
    }

    /// `240.000000` → 240, `119.88` → 2997/25; nil for anything not a positive decimal up to
    /// 100000 fps with at most 6 decimals.
    static func captureRate(_ text: String) -> FrameRate? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 6,
              whole.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 6, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        var scale: Int64 = 1
        for _ in fraction { scale *= 10 }
        guard let w = Int64(whole), let f = fraction.isEmpty ? 0 : Int64(fraction) else { return nil }
        let frames = w * scale + f
        guard frames > 0, w <= 100_000, frames <= Int64(Int32.max) else { return nil }
        return FrameRate(frames: Int32(frames), seconds: Int32(scale))
    }
}

extension Asset {
    /// What the phone stored about slow motion (SEF segments, `smta`, `com.android.capture.fps`);
    /// nil when the file holds none of it. Reads a few KB each call; throws `.unsupported` naming
    /// the file when the stored data contradicts itself or the file.
    public func slowMotion() throws(MediaError) -> SlowMotionInfo? {
        try SlowMotionReader.read(path: path, metadata: metadata, isMP4: formatName.hasPrefix("mov,"))
    }
}
