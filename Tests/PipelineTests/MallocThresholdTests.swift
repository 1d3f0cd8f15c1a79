import Foundation
@testable import Pipeline
import Testing

/// The malloc threshold `reencode` fixes at start: a large block freed after a larger one was
/// freed still goes back to the system. Without it glibc raises its threshold to the larger
/// block's size, and the smaller one comes from a heap that keeps it resident once freed.
@Suite("malloc threshold: large blocks are mapped on their own")
struct MallocThresholdTests {
    @Test("a 1 MiB block freed after a 16 MiB one was is its own mapping (unmapped when freed)")
    func largeBlockMappedAfterALargerWasFreed() throws {
        #expect(MallocThreshold.fix())
        // What raises glibc's dynamic threshold to 16 MiB: a mapped block that large, freed.
        free(malloc(16 << 20))
        let size = 1 << 20
        let block = try #require(malloc(size))
        defer { free(block) }
        let mapping = try #require(Self.mapping(holding: block))
        let address = UInt(bitPattern: block)
        // A block mapped on its own starts its mapping (after glibc's 16-byte header) and fills
        // it; one from a heap lies inside the heap's far larger mapping.
        #expect(address - mapping.lowerBound == 16, "the block is \(address - mapping.lowerBound) bytes into its mapping")
        #expect(mapping.count <= size + 2 * 4096, "the block's mapping is \(mapping.count) bytes")
    }

    /// The address range of the mapping in /proc/self/maps that holds `pointer`.
    static func mapping(holding pointer: UnsafeMutableRawPointer) -> Range<UInt>? {
        let address = UInt(bitPattern: pointer)
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return nil }
        for line in maps.split(separator: "\n") {
            let bounds = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            if bounds[0] <= address && address < bounds[1] { return bounds[0]..<bounds[1] }
        }
        return nil
    }
}
