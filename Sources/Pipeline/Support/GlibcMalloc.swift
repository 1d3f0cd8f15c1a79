import Foundation

/// glibc's malloc tuned through `mallopt`, found with dlsym (malloc.h is not in Swift's Glibc
/// module).
enum GlibcMalloc {
    static let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
    static let arenaMax: Int32 = -8  // M_ARENA_MAX

    /// mallopt(parameter, value): false where the C library has no mallopt or refuses the value.
    static func set(_ parameter: Int32, _ value: Int32) -> Bool {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let f = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }  // RTLD_DEFAULT
        return unsafeBitCast(f, to: Mallopt.self)(parameter, value) == 1
    }
}
