import Foundation
import Pipeline
import Testing

/// The host name as the kernel gives it, made a temp-file tag (docs/engine.md).
private func kernelHostTag() -> String {
    var b = [CChar](repeating: 0, count: 256)
    _ = gethostname(&b, 255)
    let name = String(decoding: b.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return HostIdentity.fileTag(name)
}

@Suite("temp files carry this machine's identity: REENCODE_HOSTNAME, as batch uses")
struct TempFileHostTests {
    @Test("with REENCODE_HOSTNAME set, run removes only stale temp files of that identity: a pod sharing the kernel's host name keeps its own")
    func identityFromEnvironment() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = gone.processIdentifier
        // Another container on the same host network: the same kernel host name, its own pids.
        let otherPod = ".o.mp4.reencode-tmp-\(kernelHostTag())-\(dead)-abc"
        // This container's own leftover, from a process that is gone.
        let ours = ".o.mp4.reencode-tmp-pod-a.x-\(dead)-def"
        for n in [otherPod, ours] { try Data("partial".utf8).write(to: URL(fileURLWithPath: dir.file(n))) }
        let r = try Binary.run(["run", recipe, "-i", "s.mp4", "-o", "o.mp4", "--quiet"], timeLimit: 60, cwd: dir.path,
                               environment: ["REENCODE_HOSTNAME": "pod-a.x"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(dir.contents == [otherPod, "o.mp4", "s.mp4"].sorted())
    }
}
