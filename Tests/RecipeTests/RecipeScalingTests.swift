import Glibc
import Recipe
import Testing

/// Hostile recipes under the 1 MiB limit are read in linear time (issue 10: a 40k-item list took
/// 15 s, a 50k-key mapping over 20 s, a 5,000-preset `base:` chain over 20 s). Each shape is timed
/// at n and 4n: the larger must finish under a bound the old code far exceeded, and take well
/// under the 16× a quadratic parser needs (linear is 4×), so the test means something on a noisy
/// machine too.
@Suite("Recipe parsing scales linearly")
struct RecipeScalingTests {
    static let head = """
    recipe: 1
    reader:
      outputs:
        picture: { track: video }
    writer:
      inputs:
        - { source: picture, settings: SETTINGS }

    """

    static func recipe(settings: String = "h264-640x480", _ body: String) -> String {
        head.replacingOccurrences(of: "SETTINGS", with: settings) + body
    }

    /// A shape of hostile recipe at size n, and the first diagnostic it must give (nil: valid).
    struct Shape: Sendable, CustomTestStringConvertible {
        let name: String
        let n: Int
        let make: @Sendable (Int) -> String
        let firstError: String?
        var testDescription: String { name }
    }

    static let shapes: [Shape] = [
        Shape(name: "flow sequence", n: 10_000, make: { n in
            recipe("extra: [" + Array(repeating: "x", count: n).joined(separator: ", ") + "]\n")
        }, firstError: "r.yaml:8:1: error: unknown key 'extra' in the recipe"),
        Shape(name: "block mapping", n: 12_500, make: { n in
            recipe("extra:\n" + (0..<n).map { "  k\($0): v\n" }.joined())
        }, firstError: "r.yaml:8:1: error: unknown key 'extra' in the recipe"),
        Shape(name: "flow mapping", n: 10_000, make: { n in
            recipe("extra: {" + (0..<n).map { "k\($0): v" }.joined(separator: ", ") + "}\n")
        }, firstError: "r.yaml:8:1: error: unknown key 'extra' in the recipe"),
        Shape(name: "base: chain", n: 250, make: { n in
            recipe(settings: "p0", "presets:\n" + (0..<n).map { "  p\($0): { base: p\($0 + 1) }\n" }.joined()
                + "  p\(n): { base: h264-640x480 }\n")
        }, firstError: "r.yaml:7:36: error: preset 'p0' has a 'base:' chain longer than 32 presets (p0 → … → p31 → p32 …)"),
        Shape(name: "valid chains of 31, tail first", n: 2_500, make: { n in
            recipe(settings: "p30", "presets:\n" + (0..<n).map { "  p\($0): { base: \($0 % 31 == 0 ? "h264-640x480" : "p\($0 - 1)") }\n" }.joined())
        }, firstError: nil),
        Shape(name: "unknown top-level keys", n: 5_000, make: { n in
            recipe((0..<n).map { "k\($0): v\n" }.joined())
        }, firstError: "r.yaml:8:1: error: unknown key 'k0' in the recipe"),
        Shape(name: "writer inputs reading unknown outputs with unknown presets", n: 1_250, make: { n in
            "recipe: 1\nreader:\n  outputs:\n" + (0..<n).map { "    o\($0): { track: video }\n" }.joined()
                + "writer:\n  inputs:\n" + (0..<n).map { "    - { source: q\($0), settings: zz\($0) }\n" }.joined()
        }, firstError: "r.yaml:5006:17: error: writer input 1 reads 'q0', which is not a reader output"),
    ]

    /// The CPU time this thread spends parsing `text` (best of three), and the diagnostics. CPU
    /// time, not wall time: other tests and other processes on a loaded machine do not count. A
    /// run over 2 s is not repeated (it has failed already).
    static func time(_ text: String) -> (Double, [String]) {
        var best = Double.infinity
        var headlines: [String] = []
        for _ in 0..<3 {
            let before = threadCPUTime()
            let result = RecipeParser.parse(text, file: "r.yaml")
            best = min(best, threadCPUTime() - before)
            if case .failure(let e) = result { headlines = e.diagnostics.map(\.headline) } else { headlines = [] }
            if best > 2 { break }
        }
        return (best, headlines)
    }

    static func threadCPUTime() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    @Test("n and 4n: the larger is parsed fast and the time grows far less than quadratically", arguments: shapes)
    func scaling(shape: Shape) {
        let small = shape.make(shape.n), large = shape.make(4 * shape.n)
        #expect(large.utf8.count <= YAMLParser.maxBytes, "the test recipe must be under the limit")
        let (t1, _) = Self.time(small)
        let (t4, errors) = Self.time(large)
        #expect(t4 < 2, "\(shape.name): \(t4) s for n = \(4 * shape.n)")
        // A floor of 20 ms for the small run keeps timer noise on tiny times from failing this.
        #expect(t4 / max(t1, 0.02) < 10, "\(shape.name): \(t1) s for n, \(t4) s for 4n")
        #expect(errors.first == shape.firstError)
        if shape.firstError != nil {
            #expect(errors.count <= RecipeParser.maxErrors + 1)
        }
    }

    @Test("a recipe with thousands of mistakes gets the first 100 and a note, in file order")
    func errorLimit() {
        let text = Self.recipe((0..<5000).map { "k\($0): v\n" }.joined())
        let (t, errors) = Self.time(text)
        #expect(t < 2)
        #expect(errors.count == 101)
        #expect(errors[99] == "r.yaml:107:1: error: unknown key 'k99' in the recipe")
        #expect(errors[100] == "r.yaml: error: too many errors: only the first 100 are shown")
    }

    @Test("a 5,000-preset base: chain is refused at once, at the reference that starts it")
    func longChain() {
        let text = Self.recipe(settings: "p0", "presets:\n" + (0..<5000).map { "  p\($0): { base: p\($0 + 1) }\n" }.joined()
            + "  p5000: { base: h264-640x480 }\n")
        let (t, errors) = Self.time(text)
        #expect(t < 2)
        #expect(errors.first == "r.yaml:7:36: error: preset 'p0' has a 'base:' chain longer than 32 presets (p0 → … → p31 → p32 …)")
        #expect(errors.contains("r.yaml:9:3: error: preset 'p0' has a 'base:' chain longer than 32 presets (p0 → … → p31 → p32 …)"))
        #expect(errors.last == "r.yaml: error: too many errors: only the first 100 are shown")
    }

    @Test("chains of exactly 32 presets are valid; 33 is one too many")
    func chainLimit() throws {
        func chain(_ n: Int) -> String {
            Self.recipe(settings: "p1", "presets:\n" + (1..<n).map { "  p\($0): { base: p\($0 + 1) }\n" }.joined()
                + "  p\(n): { base: h264-640x480 }\n")
        }
        // p1 … p31 and the built-in: 32 presets.
        let r = try RecipeParser.parse(chain(31), file: "r.yaml").get()
        #expect(try r.resolvePreset(Located("p1", Mark(line: 7, column: 36))).chain.count == 32)
        #expect(Self.time(chain(32)).1 == [
            "r.yaml:7:36: error: preset 'p1' has a 'base:' chain longer than 32 presets (p1 → … → p32 → h264-640x480 …)",
            "r.yaml:9:3: error: preset 'p1' has a 'base:' chain longer than 32 presets (p1 → … → p32 → h264-640x480 …)",
        ])
    }

    @Test("the 1 MiB limit: exactly 1 MiB is read, one byte more is refused at once")
    func sizeLimit() {
        let body = Self.recipe("")
        let padding = YAMLParser.maxBytes - body.utf8.count - 2
        let atLimit = body + "#" + String(repeating: "x", count: padding) + "\n"
        #expect(atLimit.utf8.count == YAMLParser.maxBytes)
        #expect(Self.time(atLimit).1 == [])
        let over = atLimit + " "
        let (t, errors) = Self.time(over)
        #expect(t < 1)
        #expect(errors == ["r.yaml: error: the recipe is larger than 1 MiB"])
    }
}

private extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
