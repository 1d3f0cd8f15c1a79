import Foundation
import Recipe

/// The ledger's entries as read so far, kept by source and by output, and where each journal's
/// reading stopped (after its last whole line: a line still being written is read next time).
struct LedgerIndex {
    /// Where an entry stands in the ledger's order: its `seq` (0 in `ledger.jsonl` of older
    /// versions), then the journal's name and the line in it (for entries no claim orders).
    struct Place: Comparable {
        let seq: Int
        let journal: String
        let line: Int
        static func < (a: Place, b: Place) -> Bool { (a.seq, a.journal, a.line) < (b.seq, b.journal, b.line) }
    }

    static let legacyJournal = "ledger.jsonl"
    static let journalPrefix = "ledger-"
    static let journalSuffix = ".jsonl"

    struct Placed {
        let place: Place
        let entry: LedgerEntry
    }

    struct Cursor {
        var inode: UInt64
        var offset: Int64
        var lines: Int
    }

    init(linesRead: Int = 0, maxSeq: Int = 0) { self.linesRead = linesRead; self.maxSeq = maxSeq }

    private var cursors: [String: Cursor] = [:]
    private var bySource: [String: [Placed]] = [:]
    private(set) var lastClaims: [String: Placed] = [:]
    private(set) var unreadable: [String] = []
    /// Lines decoded so far (each once, however often the ledger is refreshed).
    private(set) var linesRead = 0
    /// The highest `seq` read or given out.
    private var maxSeq = 0

    /// The journals of a `.reencode` folder, by name.
    static func journals(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0 == legacyJournal || ($0.hasPrefix(journalPrefix) && $0.hasSuffix(journalSuffix)) }.sorted().map { folder + "/" + $0 }
    }

    mutating func read(_ paths: [String]) {
        var chunks: [(String, Data, Cursor)] = []
        for path in paths {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0 else { continue }
            let name = FilePaths.name(of: path)
            let cursor = cursors[name] ?? Cursor(inode: UInt64(st.st_ino), offset: 0, lines: 0)
            // Replaced or cut shorter (rewritten by hand, restored): everything is read again.
            if cursor.inode != UInt64(st.st_ino) || Int64(st.st_size) < cursor.offset {
                self = LedgerIndex(linesRead: linesRead, maxSeq: maxSeq)
                return read(paths)
            }
            let length = Int(Int64(st.st_size) - cursor.offset)
            guard length > 0 else { continue }
            var data = Data(count: length)
            let n = data.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(cursor.offset)) }
            guard n > 0 else { continue }
            data.count = n
            chunks.append((name, data, cursor))
        }
        for (name, data, start) in chunks { take(data, journal: name, from: start) }
    }

    /// Decodes the whole lines of `data` (read from `start`), leaving an unfinished last line.
    private mutating func take(_ data: Data, journal: String, from start: Cursor) {
        var cursor = start
        let decoder = JSONDecoder()
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            var lineStart = 0
            // memchr: a ledger is tens of MB, scanned once a run.
            while lineStart < raw.count, let found = memchr(base + lineStart, Int32(UInt8(ascii: "\n")), raw.count - lineStart) {
                let nl = base.distance(to: UnsafeRawPointer(found))
                cursor.lines += 1
                linesRead += 1
                let line = Data(bytes: base + lineStart, count: nl - lineStart)
                if let entry = try? decoder.decode(LedgerEntry.self, from: line) {
                    add(Placed(place: Place(seq: entry.seq ?? 0, journal: journal, line: cursor.lines), entry: entry))
                } else {
                    unreadable.append("\(journal) line \(cursor.lines): not a ledger entry (\(line.count) bytes), ignored")
                }
                lineStart = nl + 1
            }
            cursor.offset += Int64(lineStart)
        }
        cursors[journal] = cursor
    }

    /// The `seq` of an entry about to be appended: after everything read so far.
    mutating func nextSeq() -> Int {
        maxSeq += 1
        return maxSeq
    }

    private mutating func add(_ p: Placed) {
        maxSeq = max(maxSeq, p.place.seq)
        // Journals are read one after the other: an entry may belong before ones already kept.
        let key = p.entry.source
        bySource[key, default: []].append(p)
        let n = bySource[key]!.count
        if n > 1, bySource[key]![n - 2].place > p.place { bySource[key]!.sort { $0.place < $1.place } }
        guard BatchRunner.claimsOutput(p.entry) else { return }
        for o in p.entry.claimedPaths where lastClaims[o].map({ $0.place < p.place }) ?? true {
            lastClaims[o] = p
        }
    }

    func history(of source: String) -> [LedgerEntry] { (bySource[source] ?? []).map(\.entry) }

    func lastClaim(of output: String) -> LedgerEntry? { lastClaims[output]?.entry }

    func all() -> [LedgerEntry] {
        bySource.values.joined().sorted { $0.place < $1.place }.map(\.entry)
    }
}
