import Foundation

/// This machine's identity wherever reencode records who did something: temp file names, batch
/// claims, locks and the ledger. `REENCODE_HOSTNAME` overrides the host name, for containers
/// that share one (host-network pods in separate PID namespaces): a pid means something only
/// under the identity that recorded it.
public enum HostIdentity {
    public static let name: String = {
        if let set = ProcessInfo.processInfo.environment["REENCODE_HOSTNAME"], !set.isEmpty { return set }
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// A host name as file names carry it (temp outputs, claims, clock probes, locks, ledger
    /// journals), one way everywhere: bytes other than ASCII letters, digits, '.', '_' and '-' as
    /// `%XX`, so that no two names share a tag (a shared tag would let one host judge another's
    /// pid) and a '/' never makes a path. A tag over 64 bytes keeps 40 and a hash of the whole
    /// (`~` and 16 hex digits), within any file-name limit; the empty name is `%`.
    public static func fileTag(_ host: String) -> String {
        guard !host.isEmpty else { return "%" }
        var tag = ""
        for b in host.utf8 {
            let plain = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2e || b == 0x5f || b == 0x2d
            if plain { tag.unicodeScalars.append(Unicode.Scalar(b)) } else { tag += String(format: "%%%02X", b) }
        }
        guard tag.utf8.count > 64 else { return tag }
        return String(tag.prefix(40)) + "~" + String(format: "%016llx", FNV1a.hash(Array(host.utf8)))
    }
}
