@testable import Pipeline
import Recipe
import Testing

/// SEF names and segment text are the file's bytes: control characters in them (newlines, ANSI
/// escapes) are written as `\u{…}` before they reach `inspect` or an error message.
@Suite("Slow-motion SEF escaping")
struct SlowMotionSEFEscapeTests {
    typealias T = SlowMotionSEFTests

    @Test("an entry name with a newline and an ANSI escape is listed escaped, on one line")
    func names() throws {
        let (bytes, _) = T.sef([T.Entry(type: 0x0a01, name: "Evil\nwarning: forged\u{1B}[31m", payload: [1, 2]), T.slowMotion("0:1000:2")])
        let c = try #require(try T.read(bytes))
        #expect(c.otherEntries == ["Evil\\u{A}warning: forged\\u{1B}[31m"])
        #expect(c.segments == [T.ms(0, 1000, 2)])
    }

    @Test("segment text quoted in an error has its control characters escaped")
    func segmentText() {
        let (bytes, _) = T.sef([T.slowMotion("88:8\u{7}9:2\n")])
        #expect(T.damage(bytes) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: its SlowMotion_Data segment 1 '88:8\\u{7}9:2\\u{A}' holds something that is not a whole number of milliseconds")
    }

    @Test("a trailer of 4096 entries with 256-byte names: the first 16 names listed, each cut to 64 characters, the rest counted")
    func flood() throws {
        let long = String(repeating: "Flood_", count: 42) + "abcd"  // 256 bytes
        var entries = (0..<4095).map { _ in T.Entry(type: 0x0a01, name: long, payload: []) }
        entries.insert(T.slowMotion("0:1000:2"), at: 2000)
        let (bytes, _) = T.sef(entries)
        let c = try #require(try T.read(bytes))
        #expect(c.segments == [T.ms(0, 1000, 2)])
        #expect(c.otherEntries == Array(repeating: String(long.prefix(63)) + "…", count: 16))
        #expect(c.otherEntriesLeftOut == 4095 - 16)
        // A name of control characters is cut between escapes, never inside one.
        let escapes = String(repeating: "\u{1B}", count: 40)
        let (one, _) = T.sef([T.Entry(type: 0x0a01, name: escapes, payload: [])])
        let listed = try #require(try T.read(one)?.otherEntries.first)
        #expect(listed == String(repeating: "\\u{1B}", count: 10) + "…")  // 10 × 6 = 60 characters: one more would pass 63
        // Names up to the cap are listed whole.
        let exact = String(repeating: "x", count: 64)
        #expect(try T.read(T.sef([T.Entry(type: 1, name: exact, payload: [])]).bytes)?.otherEntries == [exact])
    }
}
