import Recipe
import Testing

/// `metadata:` of `output` and of each entry of `outputs`: dates in UTC, places in ISO 6709,
/// the mistakes at their lines.
@Suite("Recipe metadata: parsed per output, dates to UTC, places checked")
struct MetadataParseTests {
    static func spec(_ metadata: String) throws -> MetadataSpec {
        let text = """
            recipe: 1
            output:
              path: a.mp4
              metadata: \(metadata)
            reader: { outputs: { picture: { track: video } } }
            writer: { inputs: [ { source: picture } ] }
            """
        return try #require(try RecipeParser.parse(text, file: "r.yaml").get().output.metadata)
    }

    @Test("a creation date becomes UTC across day, month and year boundaries; a date alone is midnight UTC",
          arguments: [("2024-01-01T00:30:00+01:00", "2023-12-31T23:30:00Z"), ("2024-02-28T23:00:00-02:30", "2024-02-29T01:30:00Z"),
                      ("2024-05-01", "2024-05-01T00:00:00Z"), ("2024-05-01 10:00", "2024-05-01T10:00:00Z"),
                      ("2024-05-01T10:00:07.25Z", "2024-05-01T10:00:07Z"), ("2000-02-29T12:00:00+0530", "2000-02-29T06:30:00Z")])
    func utc(written: String, utc: String) throws {
        #expect(try Self.spec("{ creation-date: '\(written)' }").creationDate == .date(utc))
    }

    @Test("an ISO 6709 place is kept as written, with its final / added when missing",
          arguments: [("+48.8577+002.2950/", "+48.8577+002.2950/"), ("-33.8568+151.2153+005.0/", "-33.8568+151.2153+005.0/"),
                      ("+90.0000-180.0000", "+90.0000-180.0000/"), ("+40-074/", "+40-074/")])
    func place(written: String, kept: String) throws {
        #expect(try Self.spec("{ location: '\(written)' }").location == .place(kept))
    }

    @Test("each output of outputs has its own metadata; still images hold none")
    func perOutput() throws {
        let text = """
            recipe: 1
            reader: { outputs: { picture: { track: video } } }
            outputs:
              - path: a.mp4
                metadata: { keep: for-sharing, title: A }
                inputs: [ { source: picture } ]
              - path: b.mkv
                metadata: { keep: none, custom: { com.example.k: v } }
                inputs: [ { source: picture } ]
            """
        let r = try RecipeParser.parse(text, file: "r.yaml").get()
        let specs = r.eachOutput.map(\.output.metadata)
        #expect(specs.map { $0?.keep } == [.forSharing, MetadataSpec.Keep.none])
        #expect(specs.map { $0?.items.map { "\($0.key)=\($0.value) \($0.custom)" } ?? [] } == [["title=A false"], ["com.example.k=v true"]])

        let stills = """
            recipe: 1
            reader: { outputs: { picture: { track: video } } }
            outputs:
              - path: "s-{n}.png"
                metadata: { title: A }
                images: { source: picture, at: 10% }
            """
        guard case .failure(let e) = RecipeParser.parse(stills, file: "r.yaml") else { Issue.record("parsed"); return }
        #expect(e.diagnostics.map { "\($0.mark.map { "\($0.line):\($0.column)" } ?? ""): \($0.message)" } == ["5:15: output 1 writes still images, which hold no 'metadata'"])
    }
}
