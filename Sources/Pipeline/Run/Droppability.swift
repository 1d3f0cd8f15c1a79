import Recipe

/// Reads a compressed picture's NAL unit headers to tell whether any other picture can reference
/// it, by its family's `FrameSyntax` (H.264 nal_ref_idc = 0; HEVC sub-layer non-reference types in
/// the highest temporal layer). Anything it does not understand counts as referenced: a wrong
/// "droppable" would corrupt output.
struct Droppability: Sendable {
    let syntax: FrameSyntax
    /// Bytes of the NAL length prefix (avcC/hvcC), or nil for Annex B start codes.
    let lengthSize: Int?
    /// HEVC: the highest TemporalId in the stream, when the configuration record says.
    let maxTemporalID: Int?

    /// nil when the codec (FFmpeg's name for the stream's) has no row whose frames are read so.
    init?(codecName: String, extradata: [UInt8]) {
        guard let syntax = VideoFamily.of(streamCodec: codecName)?.frames else { return nil }
        self.syntax = syntax
        switch syntax {
        case .h264:
            if extradata.count >= 7 && extradata[0] == 1 {
                lengthSize = Int(extradata[4] & 3) + 1
            } else {
                lengthSize = nil
            }
            maxTemporalID = nil
        case .hevc:
            if extradata.count >= 23 && extradata[0] == 1 {
                lengthSize = Int(extradata[21] & 3) + 1
                let layers = Int(extradata[21] >> 3) & 7
                maxTemporalID = layers > 0 ? layers - 1 : nil
            } else {
                lengthSize = nil
                maxTemporalID = nil
            }
        }
    }

    func isDroppable(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        var sawPicture = false
        var ok = true
        forEachNAL(data) { nal in
            guard ok, !nal.isEmpty else { return }
            switch syntax {
            case .h264:
                let type = nal[nal.startIndex] & 0x1f
                let refIdc = (nal[nal.startIndex] >> 5) & 3
                switch type {
                case 1: if refIdc == 0 { sawPicture = true } else { ok = false }
                case 6, 9, 12: break  // SEI, access unit delimiter, filler
                default: ok = false
                }
            case .hevc:
                guard nal.count >= 2 else { ok = false; return }
                let type = Int(nal[nal.startIndex] >> 1) & 0x3f
                let tid = Int(nal[nal.startIndex + 1] & 7) - 1
                switch type {
                case 0...14 where type % 2 == 0:
                    if let maxTID = maxTemporalID, tid == maxTID { sawPicture = true } else { ok = false }
                case 35, 38, 39, 40: break  // AUD, filler, SEI
                default: ok = false
                }
            }
        }
        return ok && sawPicture
    }

    /// Whether the picture restarts decoding — nothing after it refers to anything before it,
    /// and picture numbering starts again: an H.264 IDR, an HEVC IDR or BLA picture (a CRA does
    /// not: its leading pictures refer back). What a copy joined after another must begin with.
    func restartsDecoding(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        var restarts = false
        forEachNAL(data) { nal in
            guard !nal.isEmpty else { return }
            switch syntax {
            case .h264: if nal[nal.startIndex] & 0x1f == 5 { restarts = true }
            case .hevc: if (16...20).contains(Int(nal[nal.startIndex] >> 1) & 0x3f) { restarts = true }  // BLA 16–18, IDR 19–20
            }
        }
        return restarts
    }

    /// Whether decoding can start at the picture: an H.264 IDR, an HEVC IRAP picture (BLA 16–18,
    /// IDR 19–20, CRA 21). A CRA's leading pictures may refer to pictures before it: a copy that
    /// starts there leaves them out and makes it a BLA (`NALStream.brokenLink`).
    func isRandomAccessPoint(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        var entry = false
        forEachNAL(data) { nal in
            guard !nal.isEmpty else { return }
            switch syntax {
            case .h264: if nal[nal.startIndex] & 0x1f == 5 { entry = true }
            case .hevc: if (16...21).contains(Int(nal[nal.startIndex] >> 1) & 0x3f) { entry = true }
            }
        }
        return entry
    }

    private func forEachNAL(_ data: UnsafeBufferPointer<UInt8>, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Void) {
        if let n = lengthSize {
            var i = 0
            while i + n <= data.count {
                var len = 0
                for j in 0..<n { len = (len << 8) | Int(data[i + j]) }
                i += n
                guard len > 0, i + len <= data.count else { body(data[0..<0]); return }
                body(data[i..<(i + len)])
                i += len
            }
        } else {
            // Annex B: units between 00 00 01 start codes.
            var starts: [Int] = []
            var i = 0
            while i + 2 < data.count {
                if data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
            }
            for (idx, s) in starts.enumerated() {
                var e = idx + 1 < starts.count ? starts[idx + 1] - 3 : data.count
                while e > s && data[e - 1] == 0 { e -= 1 }
                body(data[s..<e])
            }
        }
    }
}
