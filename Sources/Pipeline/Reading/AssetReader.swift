import CFFmpeg
import Foundation
import Recipe

/// Reads one file once and hands each selected stream's packets to the output that asked for it
/// (AVAssetReader with its track outputs). There is no demux thread: whichever lane pulls when
/// its buffer is empty reads the file for everyone, under the lock. Buffers are bounded, so a
/// lane that runs ahead waits for the others and memory does not grow with the file's length.
// SAFETY: every mutable field is guarded by `condition`; the container is only read by the one
// puller that set `demuxing` (lanes look up their streams' parameters while they are made,
// before any of them pulls). Packets change hands only through the buffers, under `condition`.
final class AssetReader: @unchecked Sendable {
    let input: InputContainer
    private let condition = NSCondition()
    private var buffers: [[Packet]]
    private var routing: [Int32: Int] = [:]
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
    /// The first packet the demuxer flagged incomplete: its stream and presentation time.
    private var firstShortSample: (Int, MediaTime)?

    /// True once the demuxer handed out a packet it could not read whole, or failed to read.
    /// Declared durations are not evidence: many good files state them wrong.
    var isDamaged: Bool {
        condition.lock(); defer { condition.unlock() }
        return sawDamage
    }

    var path: String { input.path }

    /// `streams[i]` is the stream index output i reads. Takes over the demuxer the asset was
    /// probed with when it is still unused (packets read while probing are handed out first);
    /// opens the file again otherwise, or when `takingProbe` is false (a rehearsal leaves it to
    /// the run).
    init(asset: Asset, streams: [Int], capacity: Int = 96, takingProbe: Bool = true) throws(MediaError) {
        if takingProbe, let probed = asset.probed.take() { input = probed } else { input = try InputContainer(path: asset.path) }
        self.capacity = capacity
        buffers = Array(repeating: [], count: streams.count)
        detached = Array(repeating: false, count: streams.count)
        for (i, s) in streams.enumerated() { routing[Int32(s)] = i }
        // Streams nobody reads are not even handed to us by the demuxer where it can skip them.
        for i in 0..<input.streamCount where routing[Int32(i)] == nil {
            input.stream(i).pointee.discard = AVDISCARD_ALL
        }
    }

    func stream(forOutput i: Int) -> UnsafeMutablePointer<AVStream> {
        input.stream(Int(routing.first { $0.value == i }!.key))
    }

    /// Positions the file at the sync sample at or before `time` (seconds on the file's timeline).
    func seek(to time: MediaTime) throws(MediaError) {
        let tb = AVRational(num: 1, den: AV_TIME_BASE)
        let ts: Int64
        do throws(MediaError) { ts = try time.ts(in: tb, rounding: .down) } catch { throw error.at(file: input.path) }
        try input.seek(to: ts, stream: -1)
    }

    /// The next packet for output `i`, or nil at the end of the file. Throws the read error, or
    /// `.cancelled` once `stop()` was called.
    func next(_ i: Int) throws(MediaError) -> Packet? {
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
            // Someone else is reading, or another output's buffer is full: wait for them.
            let blocked = buffers.indices.contains { $0 != i && !detached[$0] && buffers[$0].count >= capacity }
            if demuxing || blocked {
                condition.wait()
                continue
            }
            demuxing = true
            condition.unlock()
            let packet = Packet()
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
                if let (reason, line) = input.damageAtEnd {
                    sawDamage = true
                    failure = MediaError(.processing, LaneEnvironment.truncated + (reason.map { ": " + $0 } ?? ""), file: input.path,
                                         time: lastReadTime.isNumeric ? lastReadTime : nil, detail: line)
                } else if let (track, time) = firstShortSample {
                    failure = MediaError(.processing, "\(LaneEnvironment.truncated): a sample is incomplete", file: input.path,
                                         track: track, time: time.isNumeric ? time : nil)
                }
            case .success(true):
                // A sample the index promises but the file does not hold (cut-off copy).
                let t = MediaTime(ts: packet.pts, timeBase: input.stream(Int(packet.streamIndex)).pointee.time_base)
                if packet.isCorrupt {
                    sawDamage = true
                    if firstShortSample == nil { firstShortSample = (Int(packet.streamIndex), t) }
                }
                if t.isNumeric && (!lastReadTime.isNumeric || t > lastReadTime) { lastReadTime = t }
                if let o = routing[packet.streamIndex], !detached[o] { buffers[o].append(packet) }
            }
        }
    }

    /// Output `i` wants no more packets (its lane is done): drop what it would get.
    func detach(_ i: Int) {
        condition.lock()
        detached[i] = true
        buffers[i].removeAll()
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
