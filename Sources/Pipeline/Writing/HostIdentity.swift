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
}
