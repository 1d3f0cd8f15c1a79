import Recipe

/// The pictures of a smart render's run that cannot be copied, decoded from the source and
/// encoded again into the stream the copied ones are: each picture at its own source time, in
/// the source stream's time base, its units in the source's form (`NALStream`), the encoder's
/// own parameter sets in band at its first picture (an IDR: where a decoder takes new ones).
final class EncodedRun {
    private let source: VideoSource
    private let encoder: Encoder
    private let stream: NALStream
    /// Output pts → duration of the pictures the encoder holds (x264/x265 state none).
    private var pendingDurations: [Int64: Int64] = [:]
    private var drained = false

    /// `tap`: a reader positioned at the run's start. `segment`: the run's source range shown at
    /// its own source times (scale 1, placed at its start), so pictures keep their source pts.
    init(env: LaneEnvironment, tap: PacketTap, track: Track, segment: TimeSegment, settings: ResolvedVideoSettings,
         stream: NALStream) throws(MediaError) {
        source = try VideoSource(env: env, tap: tap, track: track, segment: segment, frameRate: nil)
        guard let format = PixelFormat(named: settings.pixelFormat) else {
            throw MediaError(.invalidSettings, "unknown pixel format '\(settings.pixelFormat)'")
        }
        var c = VideoSink.configuration(settings, format: format, timeBase: source.outputTimeBase, frameRate: source.outputFrameRate)
        // Parameter sets in band, before each IDR, not in a header: the copied runs' are the header's.
        c.globalHeader = false
        encoder = try Encoder(c)
        self.stream = stream
    }

    var timeBase: TimeBase { encoder.timeBase }
    var statistics: LaneStatistics { source.statistics }
    var lastTime: MediaTime { source.lastTime }

    /// The next encoded sample (source time base, source pts), or nil once the run is drained.
    func next() throws(MediaError) -> Packet? {
        while true {
            if let packet = try encoder.receive() {
                if let d = pendingDurations.removeValue(forKey: packet.pts), packet.duration <= 0 { packet.duration = d }
                return try packet.withData(stream.fromAnnexB(packet.bytes))
            }
            if drained { return nil }
            guard let timed = try source.next() else {
                try encoder.send(nil)
                drained = true
                continue
            }
            guard case .picture(let picture, let pts, let duration) = timed else { continue }
            let frame = try picture.reference()
            frame.pts = pts
            frame.clearPictureType()
            if duration > 0 { pendingDurations[pts] = duration }
            try encoder.send(frame)
        }
    }
}
