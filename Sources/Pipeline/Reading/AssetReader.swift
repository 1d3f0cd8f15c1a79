import Foundation
import Recipe

/// Reads one file once and hands each selected stream's packets to the outputs that asked for it
/// (AVAssetReader with its track outputs; one stream may feed several outputs). There is no demux thread: whichever lane pulls when its buffer is empty reads
/// the file for everyone, under the lock. Buffers are bounded, so a lane that runs ahead waits
/// for the others and memory does not grow with the file's length.
///
/// Outputs belong to consumers (a lane; a lane that combines several inputs owns all of them).
/// A consumer waits only for other consumers' full buffers, never for its own: it is the one
/// that would empty them, so waiting would deadlock it on itself. (A composition reads each
/// segment with a reader of its own, `ReaderPool`, so no lane owns two outputs of one reader.)
// SAFETY: every mutable field is guarded by `condition`; the container is only read by the one
// puller that set `demuxing` (lanes look up their streams' parameters while they are made,
// before any of them pulls; `seek`, which may replace the container, also runs before that).
// Packets change hands only through the buffers, under `condition`.
final class AssetReader: @unchecked Sendable {
    private(set) var input: InputContainer
    /// Containers `seekToStart` replaced, kept until the reader goes: lanes made before the
    /// seek may hold pointers to their streams.
    private var retired: [InputContainer] = []
    private let condition = NSCondition()
    private var buffers: [[Packet]]
    /// Stream index → the outputs reading it.
    private var routing: [Int32: [Int]] = [:]
    /// Output → its stream index.
    private let streams: [Int]
    /// Output → the consumer that owns it.
    private let consumers: [Int]
    /// The most packets each output's buffer held at once (for memory checks).
    private var highWater: [Int]
    private var detached: [Bool]
    private var demuxing = false
    private var atEnd = false
    private var stopped = false
    private var failure: MediaError?
    /// Packets per output buffer before the reader waits for that output to catch up.
    let capacity: Int
    private var sawDamage = false
    /// The latest presentation time read, where damage found at the end is placed.
    private var lastReadTime: MediaTime = .invalid
    /// What the file states of its length, against what was read.
    private var statedLength: StatedLength
    /// The first packet the demuxer flagged incomplete: its stream and presentation time.
    private var firstShortSample: (Int, MediaTime)?

    /// True once the demuxer handed out a packet it could not read whole, or failed to read.
    /// Declared durations are not evidence: many good files state them wrong.
    var isDamaged: Bool {
        condition.lock(); defer { condition.unlock() }
        return sawDamage
    }

    var path: String { input.path }

    /// Set when the container is the asset's probed one, borrowed: given back when this reader goes.
    private let lentBy: ProbedInput?

    deinit { lentBy?.giveBack() }

    /// `streams[i]` is the stream index output i reads. Takes over the demuxer the asset was
    /// probed with when it is still unused (packets read while probing are handed out first);
    /// opens the file again otherwise, or when `takingProbe` is false.
    ///
    /// `consumers[i]` owns output i (nil: each output its own consumer). `borrowingProbe` (a
    /// rehearsal's reader, which only opens decoders): the probed demuxer is borrowed, not
    /// taken, and nothing is read from it — opening the file again would read its stream
    /// information a second time (`avformat_find_stream_info` decodes pictures: on 1080p120
    /// H.264, 263 M instructions, what decoding 7 of its pictures costs).
    init(asset: Asset, streams: [Int], consumers: [Int]? = nil,
         capacity: Int = 96, takingProbe: Bool = true, borrowingProbe: Bool = false) throws(MediaError) {
        if takingProbe, let probed = asset.probed.take() {
            input = probed
            lentBy = nil
        } else if borrowingProbe, let probed = asset.probed.lend() {
            input = probed
            lentBy = asset.probed
        } else {
            input = try InputContainer(path: asset.path)
            lentBy = nil
        }
        // A file opened again may have changed since the plan (ProbedInput.take gives up a changed
        // file's probe): a planned stream it lacks is refused before any stream is looked up.
        let count = input.streamCount
        if let missing = streams.first(where: { $0 < 0 || $0 >= count }) {
            throw MediaError(.notMedia, "stream \(missing) is not in the file (it has \(count)): the file has changed since it was planned", file: asset.path)
        }
        // Nor may a planned stream have become another kind or codec: its decoder was chosen for it.
        for s in streams {
            guard let planned = asset.track(index: s) else { continue }
            let now = input.stream(s).formatDescription
            if now.mediaType != planned.format.mediaType || now.codec != planned.format.codec {
                throw MediaError(.notMedia, "it is now \(now.mediaType) \(now.codec), planned as \(planned.format.mediaType) \(planned.format.codec): the file has changed since it was planned", file: asset.path, track: s)
            }
        }
        self.capacity = capacity
        self.streams = streams
        statedLength = StatedLength(end: asset.statedEnd, path: asset.path, container: asset.formatName)
        self.consumers = consumers.flatMap { $0.count == streams.count ? $0 : nil } ?? Array(streams.indices)
        buffers = Array(repeating: [], count: streams.count)
        highWater = Array(repeating: 0, count: streams.count)
        detached = Array(repeating: false, count: streams.count)
        for (i, s) in streams.enumerated() { routing[Int32(s), default: []].append(i) }
        // Streams nobody reads are not even handed to us by the demuxer where it can skip them,
        // unless the file states its length: then where the file's media ends is read on every
        // track (reading some, a shorter track could not be told from a cut). (A borrowed
        // demuxer is left as it is: its reader reads nothing.)
        for i in 0..<input.streamCount where routing[Int32(i)] == nil && lentBy == nil && !statedLength.needsEveryTrack {
            input.stream(i).isSkipped = true
        }
    }

    func stream(forOutput i: Int) -> SourceStream {
        input.stream(streams[i])
    }

    /// Positions the file so that every output starts at or before `time` (on the file's
    /// timeline): each video output at its last sync sample at or before `time`, every other one
    /// at a packet presenting at or before it. Before any lane pulls.
    ///
    /// A demuxer's seek is only a guess where the file has no index: a transport stream seeks by
    /// its clock references, which run ahead of the pictures' times, and lands after the start
    /// or between sync samples. So the packets after the seek are checked, and the seek goes
    /// back further (1, 2, 4 … 32 s, then the file's start) until they are right.
    func seek(to time: MediaTime, fileStart: MediaTime) throws(MediaError) {
        if lentBy != nil { throw MediaError(.processing, "a rehearsal reads no packets", file: input.path) }
        do throws(MediaError) { try rawSeek(time) } catch {
            // Nothing indexed at or before `time`: a Matroska file's first pictures before its 0
            // have no time, so its index starts after them. From the start, then.
            try seekToStart(fileStart)
            _ = try leadIn(to: time, accept: true)
            return
        }
        if try leadIn(to: time, accept: false) { return }
        var back = MediaTime(value: 1, timescale: 1)
        while true {
            let target = time - back
            let atFileStart = target <= fileStart || back > MediaTime(value: 32, timescale: 1)
            do throws(MediaError) {
                if atFileStart { try seekToStart(fileStart) } else { try rawSeek(target) }
            } catch {
                // A file that seeks only some of the way (a cut MKV without its index): as
                // the first seek had it, the best there is.
                try rawSeek(time)
                _ = try leadIn(to: time, accept: true)
                return
            }
            if try leadIn(to: time, accept: atFileStart) { return }
            back = back * 2
        }
    }

    private func rawSeek(_ time: MediaTime) throws(MediaError) {
        let ts: Int64
        do throws(MediaError) { ts = try time.ts(in: .microseconds, rounding: .down) } catch { throw error.at(file: input.path) }
        try input.seek(to: ts, stream: -1)
    }

    /// The very start: by byte where the demuxer allows it, else by opening the file again. A
    /// timestamp seek can overshoot: Matroska's cues list only the video's sync samples, and a
    /// seek before the first one lands on it, after the audio that comes before the video.
    private func seekToStart(_ fileStart: MediaTime) throws(MediaError) {
        if input.seekToFirstByte() { return }
        let fresh = try InputContainer(path: input.path)
        guard fresh.streamCount == input.streamCount else { try rawSeek(fileStart); return }
        for i in 0..<fresh.streamCount { fresh.stream(i).isSkipped = input.stream(i).isSkipped }
        retired.append(input)
        input = fresh
    }

    /// Reads packets from the current position until every output's start is known to be at or
    /// before `time`. On success (or with `accept`), they are queued for the lanes, each video
    /// output's from its last sync sample at or before `time`; otherwise they are dropped and
    /// false is returned.
    private func leadIn(to time: MediaTime, accept: Bool) throws(MediaError) -> Bool {
        let outputs = buffers.count
        var read: [[Packet]] = Array(repeating: [], count: outputs)
        /// Where each video output's last usable sync sample is in `read`; nil: none yet.
        var syncAt: [Int?] = Array(repeating: nil, count: outputs)
        var decided: [Bool?] = Array(repeating: nil, count: outputs)  // true: fine, false: too late
        let isVideo = (0..<outputs).map { stream(forOutput: $0).mediaType == .video }
        // Pictures and sound only: subtitles and data are sparse, cover art has one packet at the
        // file's start; waiting for theirs could read the whole file.
        for o in 0..<outputs {
            // A stream read by several outputs is decided by its first (they get the same packets).
            if routing[Int32(streams[o])]?.first != o { decided[o] = true; continue }
            if !stream(forOutput: o).isPictureOrSound {
                decided[o] = true
            }
        }
        var total = 0
        var readFailed = false
        // A lead-in longer than this is accepted as it is: better a few undecodable pictures
        // than holding a whole file in memory.
        while decided.contains(where: { $0 == nil }) && total < 4096 {
            let packet = try Packet()
            let got: Bool
            do throws(MediaError) { got = try input.read(into: packet) } catch {
                // The lanes get what came before, then this error: seeking elsewhere would hide it.
                condition.lock(); sawDamage = true; failure = error.at(file: input.path); condition.unlock()
                readFailed = true
                break
            }
            guard got else { break }
            total += 1
            if packet.isCorrupt { condition.lock(); sawDamage = true; condition.unlock() }
            guard let outs = routing[packet.streamIndex], let o = outs.first else { continue }
            read[o].append(packet)
            guard decided[o] == nil else { continue }
            let tb = input.stream(Int(packet.streamIndex)).timeBase
            let pts = MediaTime(ts: packet.pts, timeBase: tb)
            let dts = MediaTime(ts: packet.dts, timeBase: tb)
            guard pts.isNumeric || dts.isNumeric else { continue }
            if !isVideo[o] {
                decided[o] = (pts.isNumeric ? pts : dts) <= time
                continue
            }
            if packet.isKeyframe && (pts.isNumeric ? pts : dts) <= time { syncAt[o] = read[o].count - 1 }
            // Decode order: once a packet decodes after `time`, no later one presents before it.
            let past = dts.isNumeric ? dts > time : pts > time + MediaTime(value: 1, timescale: 2)
            if past { decided[o] = syncAt[o] != nil }
        }
        for o in 0..<outputs where decided[o] == nil && isVideo[o] && !read[o].isEmpty {
            decided[o] = syncAt[o] != nil || total >= 4096
        }
        condition.lock()
        guard accept || readFailed || !decided.contains(false) else { condition.unlock(); return false }
        var copyFailure: MediaError?
        for o in 0..<outputs {
            let from = isVideo[o] ? min(syncAt[o] ?? 0, read[o].count) : 0
            for packet in read[o][from...] {
                do throws(MediaError) { try route(packet) } catch { copyFailure = copyFailure ?? error }
            }
        }
        if let copyFailure, failure == nil { failure = copyFailure.at(file: input.path) }
        condition.unlock()
        return true
    }

    /// The next packet for output `i`, or nil at the end of the file. Throws the read error, or
    /// `.cancelled` once `stop()` was called.
    func next(_ i: Int) throws(MediaError) -> Packet? {
        // The run takes the probed demuxer at the position the probe left it.
        if lentBy != nil { throw MediaError(.processing, "a rehearsal reads no packets", file: input.path) }
        condition.lock()
        defer { condition.unlock() }
        while true {
            if stopped { throw failure ?? .cancelled(file: input.path) }
            if !buffers[i].isEmpty {
                let p = buffers[i].removeFirst()
                condition.broadcast()
                return p
            }
            if let failure { throw failure }
            if atEnd { return nil }
            // Someone else is reading, or another consumer's buffer is full: wait for them. A
            // full buffer of this consumer's own never blocks it (it would wait on itself).
            let blocked = buffers.indices.contains { consumers[$0] != consumers[i] && !detached[$0] && buffers[$0].count >= capacity }
            if demuxing || blocked {
                condition.wait()
                continue
            }
            demuxing = true
            condition.unlock()
            let packet = try Packet()
            let result: Result<Bool, MediaError>
            do throws(MediaError) { result = .success(try input.read(into: packet)) } catch { result = .failure(error) }
            condition.lock()
            demuxing = false
            condition.broadcast()
            switch result {
            case .failure(let e):
                // A read error mid-file (an index pointing past the end of a cut-off copy).
                sawDamage = true
                failure = e.at(file: input.path)
            case .success(false):
                atEnd = true
                // Some demuxers meet a cut-off file with an error line and a quiet end of file
                // ("partial file", "File ended prematurely"; the line may have come while the
                // file was probed, before any read here), and a transport stream just stops: that
                // is damage, not the end of the media. So is a sample read short on the way.
                if let (reason, line) = input.damageAtEnd ?? statedLength.shortfall().map({ ($0, nil) }) {
                    sawDamage = true
                    failure = MediaError(.processing, LaneEnvironment.truncated + (reason.map { ": " + $0 } ?? ""), file: input.path,
                                         time: lastReadTime.isNumeric ? lastReadTime : nil, detail: line)
                } else if let (track, time) = firstShortSample {
                    failure = MediaError(.processing, "\(LaneEnvironment.truncated): a sample is incomplete", file: input.path,
                                         track: track, time: time.isNumeric ? time : nil)
                }
            case .success(true):
                // A sample the index promises but the file does not hold (cut-off copy).
                let t = MediaTime(ts: packet.pts, timeBase: input.stream(Int(packet.streamIndex)).timeBase)
                if packet.isCorrupt {
                    sawDamage = true
                    if firstShortSample == nil { firstShortSample = (Int(packet.streamIndex), t) }
                }
                if t.isNumeric && (!lastReadTime.isNumeric || t > lastReadTime) { lastReadTime = t }
                statedLength.saw(packet, stream: input.stream(Int(packet.streamIndex)), pts: t)
                do throws(MediaError) { try route(packet) } catch { failure = error.at(file: input.path) }
            }
        }
    }

    /// Hands a packet read to every output of its stream (the first gets it, the others their own
    /// reference). Under the lock.
    private func route(_ packet: Packet) throws(MediaError) {
        guard let outs = routing[packet.streamIndex] else { return }
        for (k, o) in outs.enumerated() where !detached[o] {
            let p = k == 0 ? packet : try packet.reference()
            buffers[o].append(p)
            if buffers[o].count > highWater[o] { highWater[o] = buffers[o].count }
        }
    }

    /// The most packets output `i`'s buffer held at once.
    func mostBuffered(_ i: Int) -> Int {
        condition.lock(); defer { condition.unlock() }
        return highWater[i]
    }

    /// Output `i` wants no more packets (its lane is done): drop what it would get.
    func detach(_ i: Int) {
        condition.lock()
        detached[i] = true
        buffers[i].removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// The file ends here for every output, as at its real end (an output has passed its
    /// file-length limit: what follows would be cut off): the lanes drain and finish.
    func end() {
        condition.lock()
        atEnd = true
        for i in buffers.indices { buffers[i].removeAll() }
        condition.broadcast()
        condition.unlock()
    }

    /// Wakes every waiting lane; `next` throws from now on.
    func stop(_ error: MediaError? = nil) {
        condition.lock()
        stopped = true
        if failure == nil { failure = error }
        condition.broadcast()
        condition.unlock()
    }
}
