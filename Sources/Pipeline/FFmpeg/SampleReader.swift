import CFFmpeg
import Recipe

/// Decodes one track of a file in presentation order, pulled one sample at a time
/// (AVAssetReaderTrackOutput's copyNextSampleBuffer). Single-threaded; for tests and tools.
public final class SampleReader {
    private let input: InputContainer
    private let decoder: Decoder
    private let stream: Int32
    private let timeBase: TimeBase
    private let packet: Packet
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
        input.readOnly(stream: found.index)
        let st = input.stream(found.index)
        timeBase = st.timeBase
        decoder = try Decoder(stream: st)
        packet = try Packet()
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

    /// The next picture's code values as decoded, plane by plane (planar Y'CbCr, 8 bits or more
    /// in two bytes): what tests compare pixel values with, untouched by any conversion.
    public func nextPlanes() throws(MediaError) -> DecodedPlanes? {
        guard let f = try nextFrame() else { return nil }
        guard let d = av_pix_fmt_desc_get(f.pixelFormat)?.pointee, d.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0, d.nb_components >= 3 else {
            throw MediaError(.unsupported, "cannot read the planes of \(pixelFormatName(f.pixelFormat)) pictures")
        }
        let wide = d.comp.0.depth > 8
        var planes: [[Int]] = [], sizes: [(Int, Int)] = []
        for p in 0..<3 {
            let w = Int(p > 0 ? -((-f.width) >> d.log2_chroma_w) : f.width), h = Int(p > 0 ? -((-f.height) >> d.log2_chroma_h) : f.height)
            guard let base = f.plane(Int32(p)) else { throw MediaError(.processing, "a decoded picture has no plane \(p)") }
            let line = f.lineSize(Int32(p))
            var values = [Int](repeating: 0, count: w * h)
            for y in 0..<h {
                let row = base + y * line
                for x in 0..<w {
                    values[y * w + x] = wide ? Int(UnsafeMutableRawPointer(row).assumingMemoryBound(to: UInt16.self)[x]) : Int(row[x])
                }
            }
            planes.append(values)
            sizes.append((w, h))
        }
        return DecodedPlanes(pts: time(f), width: sizes[0].0, height: sizes[0].1, chromaWidth: sizes[1].0, chromaHeight: sizes[1].1,
                             y: planes[0], cb: planes[1], cr: planes[2])
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
