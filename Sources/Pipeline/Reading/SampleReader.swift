import CFFmpeg
import Recipe

/// A decoded picture, as 8-bit luma (enough to read frame stamps and compare pictures).
public struct DecodedPicture: Sendable {
    public let pts: MediaTime
    public let width: Int
    public let height: Int
    /// `width × height` bytes, rows packed.
    public let luma: [UInt8]

    /// The frame number a `TestPattern` picture carries.
    public var stamp: Int? {
        luma.withUnsafeBufferPointer { TestPattern.read(luma: $0, width: width, height: height, lineSize: width) }
    }

    /// The frame number a `TestPattern` picture drawn into the rectangle (x, y, w, h) carries (a
    /// picture fitted inside a larger frame).
    public func stamp(x: Int, y: Int, width w: Int, height h: Int) -> Int? {
        guard x >= 0, y >= 0, w > 0, h > 0, x + w <= width, y + h <= height else { return nil }
        return luma.withUnsafeBufferPointer { all in
            TestPattern.read(luma: UnsafeBufferPointer(rebasing: all[(y * width + x)...]), width: w, height: h, lineSize: width)
        }
    }
}

/// Decoded audio, mixed down to mono floats.
public struct DecodedAudio: Sendable {
    public let pts: MediaTime
    public let sampleRate: Int
    public let samples: [Float]
}

/// Decodes one track of a file in presentation order, pulled one sample at a time
/// (AVAssetReaderTrackOutput's copyNextSampleBuffer). Single-threaded; for tests and tools.
public final class SampleReader {
    private let input: InputContainer
    private let decoder: Decoder
    private let stream: Int32
    private let timeBase: AVRational
    private let packet = Packet()
    private var draining = false
    private var pendingPacket = false
    private var scaler: Scaler?
    private var resampler: Resampler?
    public let track: Track

    public init(path: String, track selector: TrackSelector) throws(MediaError) {
        input = try InputContainer(path: path)
        let asset = Asset(input)
        let found: Track?
        switch selector {
        case .type(let t, let n): found = asset.tracks.filter { $0.mediaType == t && !$0.isAttachedPicture }.dropFirst(n).first
        case .index(let i): found = asset.track(index: i)
        }
        guard let found else { throw MediaError(.unsupported, "has no \(selector) track", file: path) }
        track = found
        stream = Int32(found.index)
        for i in 0..<input.streamCount where i != found.index { input.stream(i).pointee.discard = AVDISCARD_ALL }
        let st = input.stream(found.index)
        timeBase = st.pointee.time_base
        decoder = try Decoder(stream: st)
    }

    private func nextFrame() throws(MediaError) -> Frame? {
        while true {
            if let f = try decoder.receive() { return f }
            if draining { return nil }
            if pendingPacket {
                // The decoder was full: it gave a frame back first; now it takes the packet.
                if try decoder.send(packet) { pendingPacket = false }
                continue
            }
            if try input.read(into: packet) {
                guard packet.streamIndex == stream else { continue }
                if try !decoder.send(packet) { pendingPacket = true }
            } else {
                draining = true
                _ = try decoder.send(nil)
            }
        }
    }

    private func time(_ f: Frame) -> MediaTime {
        let ts = f.bestEffortTimestamp != FFmpeg.noPTS ? f.bestEffortTimestamp : f.pts
        return MediaTime(ts: ts, timeBase: timeBase)
    }

    public func nextPicture() throws(MediaError) -> DecodedPicture? {
        guard let f = try nextFrame() else { return nil }
        if scaler == nil || !scaler!.matches(f) {
            scaler = try Scaler(from: (f.width, f.height, f.pixelFormat), to: (f.width, f.height, AV_PIX_FMT_GRAY8))
        }
        let g = try scaler!.scale(f)
        let w = Int(g.width), h = Int(g.height), line = g.lineSize(0)
        var luma = [UInt8](repeating: 0, count: w * h)
        let base = g.plane(0)!
        luma.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h { (dst.baseAddress! + y * w).update(from: base + y * line, count: w) }
        }
        return DecodedPicture(pts: time(f), width: w, height: h, luma: luma)
    }

    public func nextAudio() throws(MediaError) -> DecodedAudio? {
        guard let f = try nextFrame() else { return nil }
        if resampler == nil {
            resampler = try Resampler(inRate: f.sampleRate, inFormat: f.sampleFormat, inLayout: &f.pointer.pointee.ch_layout,
                                      outRate: f.sampleRate, outFormat: AV_SAMPLE_FMT_FLT, outLayout: "mono")
        }
        let pts = time(f)
        guard let m = try resampler!.convert(f) else { return DecodedAudio(pts: pts, sampleRate: Int(f.sampleRate), samples: []) }
        let p = UnsafeRawPointer(m.plane(0)!).assumingMemoryBound(to: Float.self)
        return DecodedAudio(pts: pts, sampleRate: Int(f.sampleRate), samples: Array(UnsafeBufferPointer(start: p, count: Int(m.samples))))
    }
}
