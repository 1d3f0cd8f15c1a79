import Foundation

/// Running out of a process resource is said as such, whichever call met it, and never taken for
/// a missing input, an output that cannot be created or a damaged file. Out of descriptors
/// (EMFILE: the process's open-file limit, `ulimit -n`; ENFILE: the system's) is an I/O error
/// (74); out of memory (ENOMEM, or an allocation that returned nothing: often the address-space
/// limit, `ulimit -v`) is a processing failure (1).
public enum ResourceShortage {
    /// Whether `errorNumber` says no descriptor is left (for the process or the system).
    public static func isDescriptors(_ errorNumber: Int32) -> Bool {
        errorNumber == EMFILE || errorNumber == ENFILE
    }

    /// The kind of error `errorNumber` makes when it is a shortage; nil when it is not one.
    public static func kind(of errorNumber: Int32) -> MediaError.Kind? {
        if isDescriptors(errorNumber) { return .io }
        if errorNumber == ENOMEM { return .processing }
        return nil
    }

    /// `too many open files (EMFILE; the open-file limit, ulimit -n, is 16)`,
    /// `out of memory (ENOMEM; the address-space limit, ulimit -v, is 512 MiB)`; for any other
    /// number, strerror's text.
    public static func describe(_ errorNumber: Int32) -> String {
        switch errorNumber {
        case EMFILE: return "too many open files (EMFILE; the open-file limit, ulimit -n, is \(openFileLimit.map(String.init) ?? "unlimited"))"
        case ENFILE: return "too many open files in the system (ENFILE)"
        case ENOMEM: return "out of memory (ENOMEM\(addressSpaceText))"
        default: return String(cString: strerror(errorNumber))
        }
    }

    /// An allocation that returned nothing: `out of memory: cannot allocate a packet (…)`.
    public static func outOfMemory(_ what: String) -> MediaError {
        AddressSpaceReserve.release()
        return MediaError(.processing, "cannot allocate \(what): \(describe(ENOMEM))")
    }

    /// The error an OS call that failed with `errorNumber` makes: a shortage as such, else
    /// `kind` with strerror's text after `what`.
    public static func error(_ errorNumber: Int32, _ what: String, otherwise kind: MediaError.Kind,
                             file: String? = nil) -> MediaError {
        MediaError(Self.kind(of: errorNumber) ?? kind, "\(what): \(describe(errorNumber))", file: file)
    }

    /// The soft limit on open descriptors; nil when unlimited.
    public static var openFileLimit: UInt64? { limit(RLIMIT_NOFILE) }

    /// The soft limit on address space in bytes; nil when unlimited.
    public static var addressSpaceLimit: UInt64? { limit(RLIMIT_AS) }

    private static var addressSpaceText: String {
        guard let l = addressSpaceLimit else { return "" }
        return "; the address-space limit, ulimit -v, is \(l >> 20) MiB"
    }

    private static func limit(_ resource: __rlimit_resource) -> UInt64? {
        var l = rlimit()
        guard getrlimit(__rlimit_resource_t(resource.rawValue), &l) == 0, l.rlim_cur != rlim_t.max else { return nil }
        return UInt64(l.rlim_cur)
    }
}
