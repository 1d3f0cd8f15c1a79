import Foundation

/// Under an address-space limit (`ulimit -v`) what cannot be had is found before anything is
/// opened, and the way out keeps room to run. Much of what a conversion maps is not ours to
/// check: libdispatch retries a thread it cannot start for ever (a hang), x264 and the Swift
/// runtime abort, a C++ library throws bad_alloc. So, only when a limit is set:
/// - glibc keeps one malloc arena (each thread's own arena reserves 64 MiB of address space);
/// - `run` and `batch` first map (no memory, only addresses) what their conversions need
///   beyond what the process maps at start, and refuse (75) when the limit leaves less;
/// - a part of it stays mapped and is given back at the first allocation that fails
///   (`ResourceShortage.outOfMemory`, FFmpeg's ENOMEM), so messages, removing the temp file
///   and stopping the lanes have room.
public enum AddressSpaceReserve {
    /// What one conversion maps beyond the process's start, at most: thread stacks (8 MiB
    /// each: lanes, decoder and encoder threads, more with more cores), codec state, picture
    /// pools. Measured on 2 cores: a 1080p x265 conversion needs 450–650 MiB, x264 less.
    public static var perConversion: Int {
        (512 << 20) + (64 << 20) * min(16, ProcessInfo.processInfo.activeProcessorCount)
    }
    /// Kept mapped while converting, for the way out.
    static let parachuteSize: Int = 64 << 20

    // The mapping's address, as an integer (a raw pointer is not Sendable).
    private static let parachute = Locked<Int?>(nil)

    /// Call first thing (before any thread starts). Nil when the address space holds what
    /// `conversions` side by side need (or no limit is set); else the message that refuses.
    public static func prepare(conversions: Int) -> String? {
        guard let limit = ResourceShortage.addressSpaceLimit else { return nil }
        oneArena()
        let needed = perConversion * conversions + parachuteSize
        guard let p = mmap(nil, needed, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0), p != MAP_FAILED else {
            let free = max(0, Int(limit) - mappedNow) >> 20
            return "\(ResourceShortage.describe(ENOMEM)): reencode needs \(needed >> 20) MiB of address space more than it maps at start, \(free) MiB free; raise the limit"
        }
        munmap(p + parachuteSize, needed - parachuteSize)
        parachute.withLock { $0 = Int(bitPattern: p) }
        return nil
    }

    /// Gives the parachute back (once): an allocation failed.
    static func release() {
        guard let address = parachute.withLock({ p -> Int? in defer { p = nil }; return p }) else { return }
        munmap(UnsafeMutableRawPointer(bitPattern: address), parachuteSize)
    }

    /// mallopt(M_ARENA_MAX, 1); malloc.h is not in Swift's Glibc module.
    private static func oneArena() {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let M_ARENA_MAX: Int32 = -8
        guard let f = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }  // RTLD_DEFAULT
        _ = unsafeBitCast(f, to: Mallopt.self)(M_ARENA_MAX, 1)
    }

    /// The process's mapped size (VmSize), in bytes.
    private static var mappedNow: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = Int(text.split(separator: " ").first ?? "") else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
