import Foundation

/// One line of the ledger: what happened to one source, once.
public struct LedgerEntry: Codable, Sendable {
    /// `skipped`: a path left out for good (not a regular file, an unreadable folder), recorded
    /// once; `error` says why. `started`: a conversion of `source` into `output` began (written
    /// under the claim, before the output can exist): it makes the source the output's owner, so
    /// that an output left by a crash before its `done` line is replaced by its own source, not
    /// refused. Neither done nor failed, and not an attempt.
    public enum Status: String, Codable, Sendable { case done, failed, skipped, started }
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
    /// The source's inode and ctime when converted: while both stay, size and mtime say it is the
    /// same file; when either changed, the fingerprint is compared. Absent in older ledgers.
    public var inode: UInt64?
    public var ctime: Double?
    /// When it was recorded, by the storage's clock (seconds since 1970): retries wait
    /// `--retry-after` from a failure's.
    public var stored: Double?
    /// `done`: the output's size and mtime as this conversion left it. "Done" means the output
    /// in place is still this one: another recipe (or another run) that wrote the same output
    /// name since, or a change by hand, converts again. Absent in older ledgers.
    public var outputSize: Int64?
    public var outputMtime: Double?
    /// `done`: what the output does not keep (the plan's warnings: `track #3: …`), absent when
    /// it keeps everything.
    public var warnings: [String]?

    public init(time: String, source: String, size: Int64, mtime: Double, fingerprint: String, recipe: String, status: Status,
                attempt: Int, error: String?, exitCode: Int32?, output: String?, seconds: Double?, host: String, pid: Int32) {
        self.time = time; self.source = source; self.size = size; self.mtime = mtime; self.fingerprint = fingerprint
        self.recipe = recipe; self.status = status; self.attempt = attempt; self.error = error; self.exitCode = exitCode
        self.output = output; self.seconds = seconds; self.host = host; self.pid = pid
    }
}

/// The append-only journal in the output folder (`.reencode/ledger.jsonl`): one JSON object per
/// line, each appended whole or not at all and fsynced. Readable by people and `jq`; a last line
/// still being written (no newline yet) is not an entry.
public final class Ledger: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public func entries() -> [LedgerEntry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(LedgerEntry.self, from: Data($0)) }
    }

    /// Appends one line whole or not at all (`LedgerJournal`).
    public func append(_ entry: LedgerEntry) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(entry)
        line.append(UInt8(ascii: "\n"))
        try LedgerJournal(path: path).append(Array(line))
    }
}
