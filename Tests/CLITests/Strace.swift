import Foundation

/// strace, which lands a signal or a failure at a chosen system call (`-e inject=…`): the only way
/// to hit a known moment of a process's first milliseconds, or to make one call fail as a short
/// system would (EMFILE on one path). Installed when missing (as root, with apt-get, as
/// scripts/setup.sh does); the reason where it cannot be, or where this machine forbids tracing.
enum Strace {
    struct Unavailable: Error { let reason: String }

    static let tool: Result<String, Unavailable> = {
        func works() -> Bool { status(["strace", "-o", "/dev/null", "true"]) == 0 }
        if works() { return .success("strace") }
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get") else {
            return .failure(Unavailable(reason: "strace is missing and installing it needs root and apt-get"))
        }
        _ = status(["apt-get", "install", "-y", "-qq", "strace"])
        if works() { return .success("strace") }
        return .failure(Unavailable(reason: "strace cannot trace here (not installed, or ptrace is forbidden)"))
    }()

    /// A `shell:` for `Binary.run` that runs reencode under strace with every `openat` of `path`
    /// failing with `errno` (e.g. "EMFILE"): nil, with the reason printed, where strace cannot run.
    static func failingOpens(of path: String, with errno: String, suite: String) -> String? {
        switch tool {
        case .failure(let why): print("\(suite) skipped: \(why.reason)"); return nil
        case .success(let t):
            // Binary.run's `shell` runs before reencode: `exec` here makes strace the process.
            return "exec \(t) -f -o /dev/null -P '\(path)' -e trace=openat -e inject=openat:error=\(errno) \"$0\" \"$@\""
        }
    }

    /// The exit status of a command run to its end with no input and its output discarded.
    private static func status(_ args: [String]) -> Int32? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(["DEBIAN_FRONTEND": "noninteractive"]) { _, new in new }
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        p.waitUntilExit()
        return p.terminationStatus
    }
}
