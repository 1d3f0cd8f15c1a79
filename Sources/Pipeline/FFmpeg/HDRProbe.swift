import CFFmpeg

/// Finds the HDR items of a video stream: what its container states (stream side data), and for
/// HDR streams what the first picture carries (HDR10 metadata often lives only in the SEI).
enum HDRProbe {
    /// Packets of the stream read at most while looking for its first picture.
    static let packetLimit = 64

    static func items(_ st: UnsafeMutablePointer<AVStream>, path: String, range: DynamicRange) -> HDRItems {
        var items = streamItems(st)
        guard range != .sdr, let first = firstPicture(path: path, stream: Int(st.pointee.index)) else { return items }
        items.masteringDisplay = items.masteringDisplay ?? first.masteringDisplay
        items.contentLightLevel = items.contentLightLevel ?? first.contentLightLevel
        items.hasHDR10Plus = first.hasHDR10Plus
        return items
    }

    static func streamItems(_ st: UnsafeMutablePointer<AVStream>) -> HDRItems {
        var items = HDRItems()
        var size = 0
        if let p = rx_stream_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size),
           size >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            items.masteringDisplay = mastering(UnsafeRawPointer(p).assumingMemoryBound(to: AVMasteringDisplayMetadata.self))
        }
        if let p = rx_stream_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size),
           size >= MemoryLayout<AVContentLightMetadata>.size {
            items.contentLightLevel = contentLight(UnsafeRawPointer(p).assumingMemoryBound(to: AVContentLightMetadata.self))
        }
        if let p = rx_stream_side_data(st, AV_PKT_DATA_DOVI_CONF, &size),
           size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size {
            let r = UnsafeRawPointer(p).assumingMemoryBound(to: AVDOVIDecoderConfigurationRecord.self).pointee
            items.dolbyVision = DolbyVisionConfiguration(profile: Int(r.dv_profile), level: Int(r.dv_level),
                                                         compatibilityID: Int(r.dv_bl_signal_compatibility_id))
        }
        return items
    }

    /// The HDR items of the stream's first decoded picture; nil when none could be decoded.
    static func firstPicture(path: String, stream index: Int) -> HDRItems? {
        firstFrame(path: path, stream: index).map(frameItems)
    }

    /// The stream's first decoded picture (its own flags and side data); nil when none could be
    /// decoded.
    static func firstFrame(path: String, stream index: Int) -> Frame? {
        do throws(MediaError) {
            let input = try InputContainer(path: path)
            guard index < input.streamCount else { return nil }
            let st = input.stream(index)
            let decoder = try Decoder(stream: st, threads: 1)
            let packet = try Packet()
            var sent = 0
            while sent < packetLimit, try input.read(into: packet) {
                guard packet.streamIndex == Int32(index) else { continue }
                sent += 1
                let accepted = try decoder.send(packet)
                if let frame = try decoder.receive() { return frame }
                // Refused with no picture to give: a decoder in a state we do not probe further.
                if !accepted { return nil }
            }
            _ = try decoder.send(nil)
            return try decoder.receive()
        } catch {
            // Damage is for the conversion to report where it meets it; here it only means the
            // pictures' own items stay unknown.
            return nil
        }
    }

    static func frameItems(_ frame: Frame) -> HDRItems {
        var items = HDRItems()
        if let sd = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA),
           Int(sd.pointee.size) >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            items.masteringDisplay = mastering(UnsafeRawPointer(sd.pointee.data).assumingMemoryBound(to: AVMasteringDisplayMetadata.self))
        }
        if let sd = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL),
           Int(sd.pointee.size) >= MemoryLayout<AVContentLightMetadata>.size {
            items.contentLightLevel = contentLight(UnsafeRawPointer(sd.pointee.data).assumingMemoryBound(to: AVContentLightMetadata.self))
        }
        items.hasHDR10Plus = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_DYNAMIC_HDR_PLUS) != nil
        return items
    }

    private static func mastering(_ m: UnsafePointer<AVMasteringDisplayMetadata>) -> MasteringDisplay? {
        var v = [Int64](repeating: 0, count: 10)
        guard rx_mastering_get(m, &v) == 1 else { return nil }
        let i = v.map { Int(clamping: $0) }
        return MasteringDisplay(red: .init(i[0], i[1]), green: .init(i[2], i[3]), blue: .init(i[4], i[5]),
                                whitePoint: .init(i[6], i[7]), minLuminance: i[8], maxLuminance: i[9])
    }

    private static func contentLight(_ c: UnsafePointer<AVContentLightMetadata>) -> ContentLightLevel {
        ContentLightLevel(maxCLL: Int(c.pointee.MaxCLL), maxFALL: Int(c.pointee.MaxFALL))
    }
}

extension MasteringDisplay {
    /// The 10 integers `rx_stream_set_mastering` takes.
    var sideDataValues: [Int64] {
        [red.x, red.y, green.x, green.y, blue.x, blue.y, whitePoint.x, whitePoint.y, minLuminance, maxLuminance].map(Int64.init)
    }
}
