import Foundation
import Pipeline
import Recipe

// libFuzzer target for probing and converting media: the input bytes become a file (its container
// guessed from content, the extension from the first byte), Asset.load probes it, and what probes is
// converted for at most 0.5 s of media (H.264 + AAC, re-encoded) into a temp folder, which must be
// empty again afterwards unless the conversion succeeded.
// Built only with REENCODE_FUZZ=1 and -sanitize=fuzzer (reliability/fuzz.sh); libFuzzer supplies main.

let extensions = ["mp4", "mov", "mkv", "m4a", "ts"]

@_cdecl("LLVMFuzzerTestOneInput")
public func mediaFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let folder = NSTemporaryDirectory() + "reencode-mediafuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let src = folder + "/in." + extensions[Int(data[0]) % extensions.count]
    let out = folder + "/out/x.mp4"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    guard FileManager.default.createFile(atPath: src, contents: Data(bytes: data, count: size)) else { return 0 }
    guard let asset = try? Asset.load(src) else { return 0 }
    _ = asset.duration.seconds
    var tracks: [TrackRequest] = []
    if !asset.videoTracks.isEmpty {
        tracks.append(TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, codecOptions: ["preset": "ultrafast"]))))
    }
    if !asset.audioTracks.isEmpty { tracks.append(TrackRequest(.type(.audio, 0), .audio(AudioSettings()))) }
    guard !tracks.isEmpty else { return 0 }
    var request = ConversionRequest(source: src, output: out, tracks: tracks)
    request.timeRange = TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 2))
    try? FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
    let converted: Bool
    if let plan = try? Planner.plan(request, asset: asset), (try? ExportSession(plan: plan).run()) != nil {
        converted = true
    } else {
        converted = false
    }
    // Nothing left behind: only the finished output, and only after a success.
    let left = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/out")) ?? []
    if left != (converted ? ["x.mp4"] : []) {
        FileHandle.standardError.write(Data("MediaFuzz: left behind after \(converted ? "success" : "failure"): \(left)\n".utf8))
        abort()
    }
    return 0
}
