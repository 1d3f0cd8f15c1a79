import Recipe

/// Where a Matroska video track's pictures really start. FFmpeg's Matroska reader gives no
/// timestamp to a block before the file's 0 (a file muxed with negative timestamps:
/// `-output_ts_offset -1 -avoid_negative_ts disabled`, an edit's pre-roll), so the track's first
/// pictures come untimed, and FFmpeg's start for the track (and the file) is the first timed
/// packet's — a second after the first picture. A range that started there dropped every untimed
/// picture (48 of 75 shown). They are placed one frame apart before the first timed picture
/// (`UntimedPictures`, by `place(count:before:frame:)`), so the track starts that many frames
/// earlier: the file's start, where it is the earliest.
enum UntimedLead {
    /// Packets read at most, from the start, looking for a stream's first timed ones.
    static let packetLimit = 4096
    /// Timed packets read after the first, for the earliest of them in presentation order: a
    /// decoder reorders far fewer.
    static let reorderWindow = 32

    /// Where `count` untimed pictures, shown in order just before the picture at `first` (the
    /// first timed one), are shown: one `frame` apart, the last one frame before `first`.
    static func place(count: Int, before first: MediaTime, frame: MediaTime) -> [MediaTime] {
        (0..<count).map { k in first - frame * Int64(count - k) }
    }

    /// For each video stream of a Matroska file whose first packets are untimed: where its first
    /// picture is shown. Empty for other files, and where the packets cannot be read.
    static func starts(of input: InputContainer) -> [Int: MediaTime] {
        guard input.isMatroska else { return [:] }
        let video = (0..<input.streamCount).filter { input.stream($0).mediaType == .video && !input.stream($0).isAttachedPicture }
        guard !video.isEmpty, let file = try? InputContainer(path: input.path, streamInformation: false),
              file.streamCount == input.streamCount, let packet = try? Packet() else { return [:] }
        for i in 0..<file.streamCount where !video.contains(i) { file.stream(i).isSkipped = true }
        var leads: [Int: Lead] = [:]
        for i in video { leads[i] = Lead(timeBase: file.stream(i).timeBase) }
        var read = 0
        while read < packetLimit, leads.values.contains(where: { !$0.isSettled }), (try? file.read(into: packet)) == true {
            read += 1
            let i = Int(packet.streamIndex)
            leads[i]?.saw(pts: packet.pts, duration: packet.duration)
        }
        var out: [Int: MediaTime] = [:]
        for (i, lead) in leads {
            let average = input.stream(i).formatDescription.averageFrameDuration
            if let start = lead.start(average: average) { out[i] = start }
        }
        return out
    }

    /// `stream`'s stated length, from `lead` where its pictures start there: FFmpeg's length
    /// counts from its own start for the stream (0 where it found none: a file all of whose
    /// probed packets were untimed states its whole length from 0 there).
    static func length(_ stream: SourceStream, from lead: MediaTime?, in input: InputContainer) -> MediaTime {
        let stated = stream.statedDuration
        guard let lead, stated.isNumeric else { return stated }
        return input.startTime(of: stream) + stated - lead
    }

    /// One stream's first packets: how many come untimed, and the timed ones after them.
    private struct Lead {
        let timeBase: TimeBase
        var untimed = 0
        /// The first timed packets (time, stated length), in file order.
        var timed: [(pts: MediaTime, duration: MediaTime)] = []

        /// Nothing more read can change the start: the first packet was timed (no lead), or
        /// enough timed ones came after the lead to find the earliest, and every untimed one
        /// (a B-frame before 0 comes after the first timed picture it refers to).
        var isSettled: Bool { (untimed == 0 && !timed.isEmpty) || timed.count >= reorderWindow }

        mutating func saw(pts: Int64, duration: Int64) {
            guard !isSettled else { return }
            // Untimed pictures lie before 0, timed ones at or after it: all are shown first.
            guard pts != FFmpeg.noPTS else {
                untimed += 1
                return
            }
            timed.append((MediaTime(ts: pts, timeBase: timeBase), duration > 0 ? MediaTime(ts: duration, timeBase: timeBase) : .invalid))
        }

        /// The untimed pictures' first place, before the earliest timed picture, each as long as
        /// that picture states (as the decoding side places them); nil without a lead.
        func start(average: MediaTime?) -> MediaTime? {
            guard untimed > 0, let first = timed.min(by: { $0.pts < $1.pts }) else { return nil }
            let frame = first.duration.isNumeric ? first.duration : average
            guard let frame, frame.isNumeric, frame > .zero else { return nil }
            return UntimedLead.place(count: untimed, before: first.pts, frame: frame).first
        }
    }
}
