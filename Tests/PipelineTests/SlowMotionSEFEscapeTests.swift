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
}
