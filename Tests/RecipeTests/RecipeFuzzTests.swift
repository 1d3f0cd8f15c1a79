import Foundation
import Recipe
import Testing

@Suite("The parser never crashes")
struct RecipeFuzzTests {
    static let recipesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("recipes")

    static func bundledRecipes() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: recipesFolder.path).filter { $0.hasSuffix(".yaml") }.sorted()
            .map { try String(contentsOf: recipesFolder.appendingPathComponent($0), encoding: .utf8) }
    }

    /// Parses and checks that an answer came back; a failure must carry at least one message.
    func survive(_ text: String) {
        switch RecipeParser.parse(text, file: "fuzz.yaml") {
        case .success: break
        case .failure(let e):
            #expect(!e.diagnostics.isEmpty)
            for d in e.diagnostics { _ = d.description }
        }
    }

    @Test("random bytes")
    func randomBytes() {
        var rng = SeededRandom(seed: 1)
        for _ in 0..<2000 {
            let n = Int.random(in: 0..<300, using: &rng)
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            survive(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test("mutated recipes: bytes flipped, lines dropped, duplicated and swapped")
    func mutations() throws {
        var rng = SeededRandom(seed: 2)
        let seeds = try Self.bundledRecipes()
        #expect(seeds.count >= 7)
        let alphabet = Array(":-{}[]#&*!|>'\"\n \t,?%@`0123456789abcxyz")
        for _ in 0..<3000 {
            var lines = seeds.randomElement(using: &rng)!.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 0..<lines.count, using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: lines.remove(at: i); if lines.isEmpty { lines = [""] }
                case 1: lines.insert(lines[i], at: i)
                case 2: lines.swapAt(i, Int.random(in: 0..<lines.count, using: &rng))
                default:
                    var chars = Array(lines[i])
                    let at = chars.isEmpty ? 0 : Int.random(in: 0..<chars.count, using: &rng)
                    if chars.isEmpty || Bool.random(using: &rng) { chars.insert(alphabet.randomElement(using: &rng)!, at: at) }
                    else { chars[at] = alphabet.randomElement(using: &rng)! }
                    lines[i] = String(chars)
                }
            }
            survive(lines.joined(separator: "\n"))
        }
    }

    @Test("nesting bombs, alias bombs, huge values and binary junk get errors")
    func hostile() {
        let deep = String(repeating: "[", count: 100_000)
        guard case .failure(let e1) = RecipeParser.parse(deep, file: "f") else { Issue.record("deep parsed"); return }
        #expect(e1.diagnostics[0].message == "the recipe nests deeper than 64 levels")

        let laughs = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b]"
        guard case .failure(let e2) = RecipeParser.parse(laughs, file: "f") else { Issue.record("aliases parsed"); return }
        #expect(e2.diagnostics[0].message.hasPrefix("aliases (*name) are not allowed"))

        let huge = "recipe: 1\nname: " + String(repeating: "x", count: 100_000)
        guard case .failure(let e3) = RecipeParser.parse(huge, file: "f") else { Issue.record("huge parsed"); return }
        #expect(e3.diagnostics[0].message == "a value longer than 64 KiB")

        let nul = "recipe: 1\u{0}\u{1}\u{2}"
        guard case .failure(let e4) = RecipeParser.parse(nul, file: "f") else { Issue.record("NUL parsed"); return }
        #expect(e4.diagnostics[0].headline == "f:1:10: error: the recipe is not text: it holds a NUL byte here")

        guard case .failure(let e5) = RecipeParser.parse("", file: "f") else { Issue.record("empty parsed"); return }
        #expect(e5.diagnostics[0].message == "the recipe is empty")
    }

    @Test("every bundled recipe is valid")
    func bundled() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.recipesFolder.path) where name.hasSuffix(".yaml") {
            let text = try String(contentsOf: Self.recipesFolder.appendingPathComponent(name), encoding: .utf8)
            #expect(text.hasPrefix("# "), "\(name) starts with a comment saying what it is for")
            if case .failure(let e) = RecipeParser.parse(text, file: name) { Issue.record("\(e)") }
        }
    }
}
