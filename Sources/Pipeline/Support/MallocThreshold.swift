/// Large blocks go back to the system when they are freed. glibc's malloc maps a block of 128 KiB
/// or more on its own, but raises that threshold to the size of each larger mapped block freed
/// (up to 32 MiB): after FFmpeg frees a source's index or a grown sample table, later large
/// blocks come from its heaps, which keep them resident once freed, and the peak grows with the
/// media's length. Fixing the threshold turns that off (for the heap's trim threshold too, which
/// then stays at 128 KiB). Its cost and gain, measured: docs/reliability.md, "The malloc
/// threshold".
public enum MallocThreshold {
    /// Blocks this large or larger are mapped on their own, and unmapped when freed.
    public static let bytes: Int32 = 128 << 10

    /// Call first thing (before any thread starts), for every command. False where the C library
    /// is not glibc or refuses the value.
    @discardableResult public static func fix() -> Bool {
        GlibcMalloc.set(GlibcMalloc.mmapThreshold, bytes)
    }
}
