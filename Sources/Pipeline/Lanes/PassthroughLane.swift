import CFFmpeg
import Recipe

/// Copies compressed samples as they are. A trim starts at the sync sample at or before the
/// range start (nothing is decoded, so it cannot start between sync samples); timestamps are
/// shifted so that the range start is 0, and the container's edit list hides the lead-in.
final class PassthroughLane: LaneWork {
    private let env: LaneEnvironment
    private let output: Int
    private let writerInput: Int
    private let track: Track
    private let timeBase: AVRational
    private let shift: Int64
    private var started = false
    private var lastTime: MediaTime = .invalid
    private(set) var statistics: LaneStatistics

    init(env: LaneEnvironment, output: Int, track: Track) throws(MediaError) {
        self.env = env
        self.output = output
        self.track = track
        statistics = LaneStatistics(track: track.index)
        let stream = env.reader.stream(forOutput: output)
        timeBase = stream.pointee.time_base
        shift = try env.range.start.ts(in: timeBase, rounding: .down)
        writerInput = try env.writer.addPassthroughInput(from: stream, rotation: track.format.rotation,
                                                         metadata: track.outputMetadata)
    }

    func run() throws(MediaError) {
        do throws(MediaError) {
            while let packet = try env.reader.next(output) {
                try env.checkCancelled()
                statistics.packetsRead += 1
                let dts = MediaTime(ts: packet.dts != FFmpeg.noPTS ? packet.dts : packet.pts, timeBase: timeBase)
                let pts = MediaTime(ts: packet.pts, timeBase: timeBase)
                if pts.isNumeric { lastTime = pts }
                if dts.isNumeric && dts >= env.range.end { break }
                if !started {
                    if track.mediaType == .video {
                        guard packet.isKeyframe else { continue }
                    } else if pts.isNumeric {
                        let end = pts + MediaTime(ts: max(packet.duration, 0), timeBase: timeBase)
                        guard end > env.range.start else { continue }
                    }
                    started = true
                }
                // A file's stamps can be anything: one that cannot be shifted is an error, not a trap.
                let (pts64, ptsOverflow) = packet.pts.subtractingReportingOverflow(shift)
                let (dts64, dtsOverflow) = packet.dts.subtractingReportingOverflow(shift)
                if (packet.pts != FFmpeg.noPTS && ptsOverflow) || (packet.dts != FFmpeg.noPTS && dtsOverflow) {
                    throw MediaError(MediaTimeOverflow(saturated: shift > 0 ? .negativeInfinity : .positiveInfinity,
                                                       expression: "timestamps \(packet.pts), \(packet.dts) − \(shift) in time base \(timeBase.num)/\(timeBase.den)"))
                }
                if packet.pts != FFmpeg.noPTS { packet.pts = pts64 }
                if packet.dts != FFmpeg.noPTS { packet.dts = dts64 }
                statistics.unitsOut += 1
                statistics.packetsWritten += 1
                try env.deliver(packet, timeBase: timeBase, input: writerInput, lane: output, frames: statistics.unitsOut)
            }
            env.reader.detach(output)
        } catch {
            throw error.at(file: env.file, track: track.index, time: lastTime)
        }
    }
}
