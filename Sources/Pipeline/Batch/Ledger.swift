import Foundation

/// One line of the ledger: what happened to one source, once.
public struct LedgerEntry: Codable, Sendable {
    public enum Status: String, Codable, Sendable { case done, failed }
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
    /// The exit code the failure would have had as `reencode run` (DESIGN §4).
    public var exitCode: Int32?
    /// Relative to the output folder.
    public var output: String?
    public var seconds: Double?
    public var host: String
    public var pid: Int32
}

/// The append-only journal in the output folder (`.reencode/ledger.jsonl`): one JSON object per
/// line, each appended with one write and fsynced. Readable by people and `jq`; a torn last line
/// (a crash mid-write) is skipped when read.
public final class Ledger: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public func entries() -> [LedgerEntry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(LedgerEntry.self, from: Data($0)) }
    }

    public func append(_ entry: LedgerEntry) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(entry)
        line.append(UInt8(ascii: "\n"))
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { throw MediaError(.io, "cannot open the ledger: \(String(cString: strerror(errno)))", file: path) }
        defer { close(fd) }
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count, fsync(fd) == 0 else {
            throw MediaError(.io, "cannot write the ledger: \(String(cString: strerror(errno)))", file: path)
        }
    }
}
