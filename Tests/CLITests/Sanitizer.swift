import Foundation
import Testing

/// What the `reencode` under test was built with.
enum Sanitizer {
    /// Built with `-sanitize=thread`: its runtime answers `TSAN_OPTIONS=help=1` with its flag list.
    static let thread: Bool = {
        guard let r = try? Binary.run(["--version"], timeLimit: 60, environment: ["TSAN_OPTIONS": "help=1"]) else { return false }
        return r.stderr.contains("ThreadSanitizer")
    }()

    /// Why the file-size-limit tests do not run under ThreadSanitizer.
    static let fileSizeLimitReason: Comment =
        "under a file-size limit (ulimit -f) the ThreadSanitizer runtime itself dies (SIGBUS) before reencode meets the limit"
}
