import Recipe

/// Where a range that runs to the file's end ends, for pictures that are encoded. A picture is
/// shown until the next one starts, and the last one, with nothing after it, for the longer of
/// its stated length and the gap before it (`PictureSpacing`, the rule the decoding side follows).
/// The file's stated end is its last sample's stated end, which can be a tick after its start (a
/// MOV at 1/600 or an MP4 written a fragment per picture stating 1 tick): a segment ending there
/// cut its last picture to a tick, and a constant-rate output lost that picture's slot (its
/// middle lay after the end: 119 slots for 120). So a range ending at the file's end ends where
/// the last picture stops being shown — never before the file's stated end.
enum LastPictureEnd {
    /// `range` (on the file's timeline), its end moved to where `track`'s last picture stops
    /// being shown where it runs to `fileEnd` and that is later. Unchanged where the end is not
    /// the file's, or the pictures cannot be read there.
    static func extending(_ range: TimeRange, fileEnd: MediaTime, asset: Asset, track: Track) -> TimeRange {
        guard range.end.isNumeric, fileEnd.isNumeric, range.end >= fileEnd,
              let end = self.end(path: asset.path, track: track), end > range.end else { return range }
        return TimeRange(start: range.start, end: end)
    }

    /// The first video track `lanes` encode (not copy), where there is one: the one whose pictures
    /// a range's end is about.
    static func encodedVideo(_ lanes: [LanePlan]) -> Track? {
        lanes.first { $0.videoSettings != nil && !$0.track.isAttachedPicture }?.track
    }

    /// Pictures read back from the stated end at most: a seek lands on the sync sample at or
    /// before its target, so this is about a GOP.
    static let packetLimit = 65536

    /// Where `track`'s last picture stops being shown: its time plus its length (`PictureSpacing`:
    /// the longer of its stated length and the gap before it). nil where the track states no end,
    /// its last two pictures cannot be read, or a picture starts at or after its stated end.
    static func end(path: String, track: Track) -> MediaTime? {
        guard track.startTime.isNumeric, track.duration.isNumeric, track.duration > .zero else { return nil }
        let statedEnd = track.startTime + track.duration
        // Back from the stated end until two pictures are read (a seek may land after its target
        // where the file has no index); from the start where that is near.
        var back = MediaTime(value: 1, timescale: 1)
        while true {
            let target = statedEnd - back
            let fromStart = target <= track.startTime || back > MediaTime(value: 32, timescale: 1)
            guard let pictures = times(path: path, stream: track.index, from: fromStart ? nil : target) else { return nil }
            if pictures.count >= 2 || fromStart {
                // A picture at or after the stated end bounds the one before it there (an edit
                // list that ends the track before its last sample hides that sample).
                guard let last = pictures.last, last.pts < statedEnd else { return nil }
                var spacing = PictureSpacing()
                for p in pictures.suffix(2) { spacing.saw(p.pts, stated: p.stated) }
                let length = spacing.lastLength(average: track.format.averageFrameDuration)
                return length.isNumeric ? last.pts + length : nil
            }
            back = back * 2
        }
    }

    /// The stream's pictures from `target` (nil: the start) to its end, in presentation order:
    /// each one's time and stated length (invalid: none). nil where the file cannot be read.
    private static func times(path: String, stream: Int, from target: MediaTime?) -> [(pts: MediaTime, stated: MediaTime)]? {
        guard let input = try? FrameStartScan.open(path), stream >= 0, stream < input.streamCount else { return nil }
        input.readOnly(stream: stream)
        if let target {
            guard let ts = try? target.ts(in: .microseconds, rounding: .down), (try? input.seek(to: ts, stream: -1)) != nil else { return nil }
        }
        let tb = input.stream(stream).timeBase
        guard let packet = try? Packet() else { return nil }
        var out: [(pts: MediaTime, stated: MediaTime)] = []
        while (try? input.read(into: packet)) == true {
            guard Int(packet.streamIndex) == stream, packet.pts != FFmpeg.noPTS else { continue }
            if out.count >= packetLimit { return nil }
            let stated = packet.duration > 0 ? MediaTime(ts: packet.duration, timeBase: tb) : MediaTime.invalid
            out.append((MediaTime(ts: packet.pts, timeBase: tb), stated))
        }
        return out.sorted { $0.pts < $1.pts }
    }
}
