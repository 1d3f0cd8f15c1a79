import Foundation

/// One line of the ledger: what happened to one source, once.
public struct LedgerEntry: Codable, Sendable {
    /// `skipped`: a path left out for good (not a regular file, an unreadable folder), recorded
    /// once; `error` says why. `started`: a conversion of `source` into `output` began (written
    /// under the claim, before the output can exist): it makes the source the output's owner, so
    /// that an output left by a crash before its `done` line is replaced by its own source, not
    /// refused. Neither done nor failed, and not an attempt. `postponed`: the system was short of
    /// memory, threads or open files (75): not the file's failure, and not an attempt either.
    /// `chunk`: one chunk of `output`'s chunked encode (`chunk` of `chunks`) is in place, encoded
    /// by this host (docs/batch.md, "One long file on many machines"); a record, not a result.
    public enum Status: String, Codable, Sendable { case done, failed, skipped, started, postponed, chunk }
    public var time: String
    /// Relative to the input folder.
    public var source: String
    public var size: Int64
    public var mtime: Double
    public var fingerprint: String
    /// FNV-1a of the recipe's text.
    public var recipe: String
    public var status: Status
    /// 1 for the first try of this source version with this recipe.
    public var attempt: Int
    public var error: String?
    /// The exit code the failure would have had as `reencode run` (`ExitCode`).
    public var exitCode: Int32?
    /// Relative to the output folder.
    public var output: String?
    public var seconds: Double?
    public var host: String
    public var pid: Int32
    /// The source's ctime when converted, as the recording client saw it: while it stays, size
    /// and mtime say it is the same file; when it changed, the fingerprint is compared.
    /// Absent in older ledgers.
    public var ctime: Double?
    /// Written by older versions, no longer compared: network clients number files their own way.
    public var inode: UInt64?
    /// When it was recorded, by the storage's clock (seconds since 1970): retries wait
    /// `--retry-after` from a failure's.
    public var stored: Double?
    /// `done`: the output's size and mtime as this conversion left it. "Done" means the output
    /// in place is still this one: another recipe (or another run) that wrote the same output
    /// name since, or a change by hand, converts again. Absent in older ledgers.
    public var outputSize: Int64?
    public var outputMtime: Double?
    /// A recipe with `outputs:`: every file the conversion made (or, on `started`, is making),
    /// in the recipe's order, each with its size and mtime on `done`; `output` is then the first
    /// output's name (a series of stills: its pattern, `{n}` and `{time}` left in). Absent with
    /// one output, and in older ledgers.
    public var outputs: [Output]?
    public struct Output: Codable, Sendable, Equatable {
        public var path: String
        public var size: Int64?
        public var mtime: Double?
        public init(path: String, size: Int64? = nil, mtime: Double? = nil) { self.path = path; self.size = size; self.mtime = mtime }
    }
    /// The ledger's order: one more than the highest `seq` its writer had read (absent in
    /// `ledger.jsonl` of older versions: those come first, in file order). A conversion's lines,
    /// written under its claim after reading, come after everything that claim let it see.
    public var seq: Int?
    /// `done`: what the output does not keep (the plan's warnings: `track #3: …`), absent when
    /// it keeps everything.
    public var warnings: [String]?
    /// `chunk`: which chunk (from 1) of how many.
    public var chunk: Int?
    public var chunks: Int?

    /// Every file the entry names: `outputs`, else `output` alone (one output, older ledgers).
    public var files: [Output] {
        outputs ?? output.map { [Output(path: $0, size: outputSize, mtime: outputMtime)] } ?? []
    }

    /// Every path the entry makes its source the owner of: `output` and each of `outputs`.
    var claimedPaths: [String] { (output.map { [$0] } ?? []) + (outputs ?? []).map(\.path).filter { $0 != output } }

    public init(time: String, source: String, size: Int64, mtime: Double, fingerprint: String, recipe: String, status: Status,
                attempt: Int, error: String?, exitCode: Int32?, output: String?, seconds: Double?, host: String, pid: Int32) {
        self.time = time; self.source = source; self.size = size; self.mtime = mtime; self.fingerprint = fingerprint
        self.recipe = recipe; self.status = status; self.attempt = attempt; self.error = error; self.exitCode = exitCode
        self.output = output; self.seconds = seconds; self.host = host; self.pid = pid
    }
}

/// The ledger of an output folder (`.reencode/`): what happened to each source, one JSON object
/// per line. **Each host appends to its own journal** (`ledger-HOST.jsonl`): appends from two
/// network-filesystem clients to one file are not atomic (O_APPEND is not, over NFS or sshfs)
/// and overwrite each other. The ledger is the union of the journals and of `ledger.jsonl`,
/// which older versions wrote and is still read; entries are ordered by `seq` (one more than the
/// highest the writer had read: a conversion's lines come after everything its claim let it see).
/// Read once per run, then only what was appended since; entries are kept by source and by
/// output, so that judging a file reads no more of the ledger (docs/batch.md, "State").
public final class Ledger: Sendable {
    /// The `.reencode` folder.
    public let folder: String
    private let state = Locked(LedgerIndex())

    public init(folder: String) { self.folder = folder }

    /// The journal a host appends to: one file per host name, whatever the name holds
    /// (`HostIdentity.fileTag`).
    public func journalPath(host: String) -> String {
        folder + "/" + LedgerIndex.journalPrefix + HostIdentity.fileTag(host) + LedgerIndex.journalSuffix
    }

    /// Reads what was appended to the journals since the last read (everything, the first time,
    /// or when a journal was replaced or cut shorter).
    public func refresh() {
        let paths = LedgerIndex.journals(in: folder)
        state.withLock { $0.read(paths) }
    }

    /// Every entry, in the ledger's order (reads what was appended first).
    public func entries() -> [LedgerEntry] {
        refresh()
        return state.withLock { $0.all() }
    }

    /// The entries about `source`, in order.
    public func history(of source: String) -> [LedgerEntry] { state.withLock { $0.history(of: source) } }

    /// The last `started` or `done` entry of `output` (any source, any recipe): who made, or
    /// began to make, the file now at that path.
    public func lastClaim(of output: String) -> LedgerEntry? { state.withLock { $0.lastClaim(of: output) } }

    /// Every output's last claim (`lastClaim(of:)`).
    public func lastClaims() -> [String: LedgerEntry] { state.withLock { $0.lastClaims.mapValues(\.entry) } }

    /// Lines that are not entries (`ledger-b.jsonl line 17: …`): reported, never skipped in silence.
    public func unreadable() -> [String] { state.withLock { $0.unreadable } }

    /// Lines decoded by this reader so far: the ledger's size the first time, then what was appended.
    public func linesRead() -> Int { state.withLock { $0.linesRead } }

    /// Appends one line, whole or not at all (`LedgerJournal`), to the journal of the entry's host,
    /// numbered after every entry read so far.
    public func append(_ entry: LedgerEntry) throws {
        var entry = entry
        entry.seq = state.withLock { $0.nextSeq() }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(entry)
        line.append(UInt8(ascii: "\n"))
        try LedgerJournal(path: journalPath(host: entry.host)).append(Array(line))
    }
}
