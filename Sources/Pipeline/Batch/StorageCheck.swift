import Foundation

/// What the output folder's storage must provide for claims to hold across machines, checked at
/// the start of every run in the claims folder (docs/batch.md, "What the storage must provide"):
/// create with O_EXCL fails on an existing file, `link` works and fails on an existing name,
/// `rename` replaces a file whole. Storage that lacks one is refused (exit 73) with the reason:
/// two machines could both convert a file. A file's storage time far from this host's clock is
/// said as a warning: the ledger's times and `--settle` read differently on each host.
enum StorageCheck {
    /// Names its files in the claims folder (swept like clock probes when left by a kill -9).
    static let prefix = ".check-"

    /// Beyond this, the storage's and this host's clocks are said to disagree.
    static let skewWarning: Double = 5

    /// Warnings to say; throws when the storage cannot hold claims.
    static func run(folder: String, host: String) throws(MediaError) -> [String] {
        let base = folder + "/" + prefix + HostIdentity.fileTag(host) + "-\(getpid())"
        let (a, b, c) = (base + "-a", base + "-b", base + "-c")
        for p in [a, b, c] { unlink(p) }
        defer { for p in [a, b, c] { unlink(p) } }
        func refuse(_ what: String) -> MediaError {
            MediaError(.cannotCreateOutput, "the storage of the output folder cannot hold claims: \(what); several machines (or runs) could convert one file (see docs/batch.md, \"What the storage must provide\")", file: folder)
        }
        func failed(_ call: String) -> String { "\(call) failed: \(String(cString: strerror(errno)))" }

        let before = HostClock.now()
        let fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw refuse(failed("creating a file with O_EXCL")) }
        close(fd)
        let after = HostClock.now()
        let again = open(a, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        if again >= 0 { close(again); throw refuse("creating an existing file with O_EXCL succeeded") }
        guard errno == EEXIST else { throw refuse(failed("creating an existing file with O_EXCL")) }
        guard link(a, b) == 0 else { throw refuse(failed("link")) }
        if link(a, b) == 0 { throw refuse("link onto an existing name succeeded") }
        guard errno == EEXIST else { throw refuse(failed("link onto an existing name")) }
        guard FileManager.default.createFile(atPath: c, contents: Data("renamed".utf8)) else { throw refuse(failed("writing a file")) }
        guard rename(c, b) == 0 else { throw refuse(failed("rename over an existing file")) }
        guard FileManager.default.contents(atPath: b) == Data("renamed".utf8) else { throw refuse("rename over an existing file did not replace it") }

        var st = stat()
        guard stat(a, &st) == 0 else { return [] }
        let stamped = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        // Whole seconds on some storage: judged against the whole interval around the create.
        let skew = stamped < before - 1 ? stamped - before : stamped > after + 1 ? stamped - after : 0
        guard abs(skew) > skewWarning else { return [] }
        return ["a file just created there carries a time \(String(format: "%.0f", abs(skew))) s \(skew > 0 ? "ahead of" : "behind") this host's clock: "
                + "keep the clocks of the storage and every host in step (NTP); claims do not depend on it, but --settle, --retry-after and the ledger's times do"]
    }
}
