import Recipe
import Testing

/// Compositions with tens of thousands of segments or sources are read in linear time, like the
/// rest of a recipe (docs/recipes.md, "Limits"): n and 4n, as RecipeScalingTests times them.
@Suite("Composition parsing scales linearly")
struct CompositionScalingTests {
    static let tail = """
    reader:
      outputs:
        picture: { track: video }
    writer:
      inputs:
        - { source: picture }

    """

    static func recipe(sources: [String], segments: [String]) -> String {
        "recipe: 1\nsources:\n" + sources.map { "  \($0)\n" }.joined() + "composition:\n  video:\n"
            + segments.map { "    - \($0)\n" }.joined() + tail
    }

    static let shapes: [RecipeScalingTests.Shape] = [
        .init(name: "segments end to end", n: 5_000, make: { n in
            recipe(sources: ["a: a.mp4"], segments: Array(repeating: "{ end: 1s }", count: n))
        }, firstError: nil),
        .init(name: "segments all placed at 0 (each overlaps the first)", n: 5_000, make: { n in
            recipe(sources: ["a: a.mp4"], segments: Array(repeating: "{ at: 0s, end: 1s }", count: n))
        }, firstError: "r.yaml:7:13: error: segment 2 of the video track (0.000s to 1.000s on the timeline) overlaps segment 1 (0.000s to 1.000s): segments of one track never overlap"),
        .init(name: "segments reading unknown sources among thousands", n: 2_500, make: { n in
            recipe(sources: (0..<n).map { "s\($0): a.mp4" }, segments: (0..<n).map { "{ source: t\($0) }" })
        }, firstError: "r.yaml:%LINE%:17: error: segment 1 of the video track reads 't0', which is not a source"),
        .init(name: "thousands of unused sources (warnings)", n: 5_000, make: { n in
            recipe(sources: (0..<n).map { "s\($0): a.mp4" }, segments: ["{ source: s0 }"])
        }, firstError: nil),
    ]

    @Test("n and 4n: the larger is parsed fast and the time grows far less than quadratically", arguments: shapes)
    func scaling(shape: RecipeScalingTests.Shape) {
        let small = shape.make(shape.n), large = shape.make(4 * shape.n)
        #expect(large.utf8.count <= YAMLParser.maxBytes, "the test recipe must be under the limit")
        let (t1, _) = RecipeScalingTests.time(small)
        let (t4, errors) = RecipeScalingTests.time(large)
        #expect(t4 < 2, "\(shape.name): \(t4) s for n = \(4 * shape.n)")
        #expect(t4 / max(t1, 0.02) < 10, "\(shape.name): \(t1) s for n, \(t4) s for 4n")
        // The unknown-source shape's first error is on the first segment's line: after the sources.
        let first = shape.firstError?.replacingOccurrences(of: "%LINE%", with: "\(4 * shape.n + 5)")
        #expect(errors.first == first)
        if first != nil { #expect(errors.count == RecipeParser.maxErrors + 1) }
    }
}

private extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
