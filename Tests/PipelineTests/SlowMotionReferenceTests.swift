import Pipeline
import Testing

/// Whether an H.264 sample of a slow-motion file is referenced, read from its NAL headers as
/// Samsung stores them: the SVC prefix and the slice in one length-prefixed unit, an Annex B
/// start code between them.
@Suite("Slow motion: H.264 non-reference pictures, by their NAL headers")
struct SlowMotionReferenceTests {
    static func nonReference(_ bytes: [UInt8], _ framing: SlowMotionLayer.Framing = .lengthPrefixed(4)) -> Bool {
        bytes.withUnsafeBufferPointer { SlowMotionLayer.isNonReferenceH264($0, framing: framing) }
    }

    /// One 4-byte length-prefixed unit.
    static func unit(_ body: [UInt8]) -> [UInt8] { [0, 0, 0, UInt8(body.count)] + body }

    /// Samsung's: prefix (type 14, temporal_id 3) + start code + a slice with header `slice`.
    static func samsung(prefix: UInt8 = 0x0e, slice: UInt8) -> [UInt8] {
        unit([prefix, 0x83, 0x80, 0x6f, 0, 0, 0, 1, slice, 0x9e, 0x61, 0x74])
    }

    @Test("the slice after the prefix's start code decides")
    func samsungUnits() {
        #expect(Self.nonReference(Self.samsung(slice: 0x01)))  // nal_ref_idc 0, non-IDR slice
        #expect(!Self.nonReference(Self.samsung(slice: 0x41)))  // nal_ref_idc 2
        #expect(!Self.nonReference(Self.samsung(prefix: 0x6e, slice: 0x65)))  // an IDR
        // A prefix alone says nothing of the picture: referenced.
        #expect(!Self.nonReference(Self.unit([0x0e, 0x83, 0x80, 0x6f])))
    }

    @Test("plain units: non-reference slices with SEI or prefix units beside them; anything else is referenced")
    func plainUnits() {
        #expect(Self.nonReference(Self.unit([0x06, 0x05, 0x01]) + Self.unit([0x01, 0x9e])))
        #expect(Self.nonReference(Self.unit([0x0e, 0x83, 0x80, 0x6f]) + Self.unit([0x01, 0x9e])))
        #expect(!Self.nonReference(Self.unit([0x01, 0x9e]) + Self.unit([0x21, 0x9e])))
        #expect(!Self.nonReference(Self.unit([0x07, 0x64]) + Self.unit([0x01, 0x9e])))  // an SPS
        #expect(Self.nonReference([0, 0, 0, 1, 0x0e, 0x83, 0x80, 0x6f, 0, 0, 0, 1, 0x01, 0x9e], .annexB))
        #expect(!Self.nonReference([], .annexB))
    }
}
