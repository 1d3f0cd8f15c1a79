import Foundation
import Recipe

/// One source's chunked encode shared by every batch run on its output folder, on any machine
/// (docs/batch.md, "One long file on many machines"). The chunk files lie in
/// `.reencode/chunks/KEY/`, KEY naming the output and this version of the source, recipe and
/// split, so a changed source or recipe never meets another's chunks. The split is the first
/// run's (`layout.json`, linked into place whole): every run encodes the same chunks whatever
/// its own machine would have chosen. Each chunk is claimed as a file is (`Claim`: heartbeats,
/// taken over when stale), encoded into its file under a temp name and renamed into place, and
/// recorded in the ledger (`chunk`); a chunk whose file is there is never encoded again.
final class SharedChunks: ChunkDealer {
    /// The split every run follows.
    struct Layout: Codable {
        var pictures: Int
        var gop: Int
        var starts: [Int]
        var why: [String]
    }

    let folder: String
    /// The source's content fingerprint the chunks are keyed by (`SourceIdentity.fingerprint`).
    let fingerprint: String
    /// The output's plan, split as the layout says.
    let plan: ConversionPlan
    private let chunking: ChunkedEncode
    private let settings: ResolvedVideoSettings
    private let claimPrefix: String
    private let source: String
    private let host: String
    private let watch: Heartbeats
    private let beat: TimeInterval
    /// Longest first, as one machine's run takes them.
    private let order: [Int]
    private let held = Locked<[Int: Claim]>([:])
    /// One worker at a time looks for its next chunk: two threads of one run never race for a claim.
    private let taking = Locked(())
    /// Still worth encoding (false once another run joined the output): asked before each claim.
    private let wanted: @Sendable () -> Bool
    /// A chunk was encoded here and is in place (its ledger line).
    private let record: @Sendable (ChunkedEncode.Chunk, _ of: Int, _ seconds: Double) -> Void

    /// The chunks of `plan` (chunked) for the output `rel` of `source`, `version` naming what
    /// the chunks depend on besides the split (the source's size and mtime, the recipe).
    init(plan: ConversionPlan, stateDir: String, output rel: String, source: String, version: String, fingerprint: String,
         host: String, watch: Heartbeats, claimTimeout: TimeInterval,
         wanted: @escaping @Sendable () -> Bool, record: @escaping @Sendable (ChunkedEncode.Chunk, _ of: Int, _ seconds: Double) -> Void) throws(MediaError) {
        guard let own = plan.chunking, case .video(let settings) = plan.lanes[own.lane].kind else {
            throw MediaError(.processing, "a shared chunked encode needs a chunked video track", file: plan.outputPath)
        }
        let key = Self.key(output: rel, source: source, version: version, chunking: own)
        folder = stateDir + "/chunks/" + key
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw MediaError(.io, "cannot make the folder of the chunks: \(error.localizedDescription)", file: folder)
        }
        let layout = try Self.layout(in: folder, own: own)
        guard layout.pictures == own.frames, layout.gop == own.gopFrames, let split = own.splitting(at: layout.starts, why: layout.why) else {
            throw MediaError(.processing, "its chunks were split for \(layout.pictures) pictures on a grid of \(layout.gop), this run plans \(own.frames) on \(own.gopFrames): not encoded (remove the folder to split again)",
                             file: folder + "/" + Self.layoutName)
        }
        self.fingerprint = fingerprint
        var adopted = plan
        adopted.chunking = split
        self.plan = adopted
        chunking = split
        self.settings = settings
        claimPrefix = stateDir + "/claims/" + key + "-chunk-"
        self.source = source
        self.host = host
        self.watch = watch
        beat = max(0.5, claimTimeout / 4)
        order = split.longestFirst
        self.wanted = wanted
        self.record = record
    }

    static let layoutName = "layout.json"

    /// The chunks' folder name under `.reencode/chunks/`: a hash of the output and its source,
    /// then one of what the chunks depend on (so that source's folders for that output are found
    /// by their prefix, and another source's for the same output name are never touched).
    static func key(output rel: String, source: String, version: String, chunking: ChunkedEncode) -> String {
        prefix(output: rel, source: source) + FNV1a.hex("\(version) \(chunking.frames) \(chunking.gopFrames)")
    }

    static func prefix(output rel: String, source: String) -> String { FNV1a.hex(source + "\n" + rel) + "-" }

    /// The folder's split: the first run's, written whole under a private name and linked into
    /// place (a run that loses the race reads the winner's).
    private static func layout(in folder: String, own: ChunkedEncode) throws(MediaError) -> Layout {
        let path = folder + "/" + layoutName
        if access(path, F_OK) != 0 {
            let mine = Layout(pictures: own.frames, gop: own.gopFrames, starts: own.starts, why: own.chunks.map(\.why))
            let temp = folder + "/." + layoutName + ".new-" + TempFile.host + "-\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            defer { unlink(temp) }
            do {
                let data = try JSONEncoder().encode(mine)
                guard FileManager.default.createFile(atPath: temp, contents: data) else {
                    throw MediaError(.io, "cannot write the chunks' split: \(String(cString: strerror(errno)))", file: path)
                }
                if link(temp, path) != 0 && errno != EEXIST {
                    throw MediaError(.io, "cannot put the chunks' split in place: \(String(cString: strerror(errno)))", file: path)
                }
            } catch let e as MediaError {
                throw e
            } catch {
                throw MediaError(.io, "cannot write the chunks' split: \(error.localizedDescription)", file: path)
            }
        }
        guard let data = FileManager.default.contents(atPath: path), let layout = try? JSONDecoder().decode(Layout.self, from: data) else {
            throw MediaError(.processing, "the chunks' split cannot be read: not encoded (remove the folder to split again)", file: path)
        }
        return layout
    }

    func file(_ k: Int) -> String { ChunkedRun.file(folder, number: chunking.chunks[k].number, settings: settings) }

    private func claimPath(_ k: Int) -> String { claimPrefix + String(format: "%05d", chunking.chunks[k].number) + ".claim" }

    /// Every chunk's file is in place: the output can be joined.
    var isComplete: Bool { chunking.chunks.indices.allSatisfy { access(file($0), F_OK) == 0 } }

    /// The chunk files in place.
    var present: Int { chunking.chunks.indices.filter { access(file($0), F_OK) == 0 }.count }

    func next() -> Int? {
        taking.withLock { _ -> Int? in
            for k in order where held.withLock({ $0[k] == nil }) && access(file(k), F_OK) != 0 {
                guard wanted() else { return nil }
                guard case .acquired(let claim) = Claim.acquire(at: claimPath(k), source: source, host: host, watch: watch) else { continue }
                // Finished by another run between the look and the claim.
                if access(file(k), F_OK) == 0 {
                    claim.release()
                    continue
                }
                removeUnfinished(k)
                claim.startHeartbeat(every: beat)
                held.withLock { $0[k] = claim }
                return k
            }
            return nil
        }
    }

    func finished(_ k: Int, seconds: Double) {
        guard let claim = held.withLock({ $0.removeValue(forKey: k) }) else { return }
        // Taken over while this run stalled: the chunk is the new owner's to record.
        if claim.isHeld { record(chunking.chunks[k], chunking.chunks.count, seconds) }
        claim.release()
    }

    func abandoned(_ k: Int) -> Bool {
        guard let claim = held.withLock({ $0.removeValue(forKey: k) }) else { return true }
        defer { claim.release() }
        return claim.isHeld
    }

    /// What an earlier encoder of chunk `k` left unfinished (killed, or stalled until its claim
    /// was taken): its temp files. Only the claim's holder calls this.
    private func removeUnfinished(_ k: Int) {
        let name = FilePaths.name(of: file(k))
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for n in names where n.hasPrefix("." + name + TempFile.marker) { unlink(folder + "/" + n) }
    }

    /// The chunk folders of `source`'s output, this version's and any older one's (a changed
    /// source or recipe): removed once the output is joined, or the file given up.
    static func removeAll(output rel: String, source: String, stateDir: String) {
        let root = stateDir + "/chunks"
        let prefix = prefix(output: rel, source: source)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return }
        for n in names where n.hasPrefix(prefix) { try? FileManager.default.removeItem(atPath: root + "/" + n) }
    }
}
