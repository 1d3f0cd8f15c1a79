import Foundation
import Pipeline
import Recipe

// libFuzzer target for the recipe path: bytes → UTF-8 → RecipeParser.parse, and a recipe that parses
// is compiled against a small real source, as `reencode plan` does (time ranges, presets, settings).
// Built only with REENCODE_FUZZ=1 and -sanitize=fuzzer (reliability/fuzz.sh); libFuzzer supplies main.

/// A 1 s source for compiling parsed recipes, made once per process with the project's writer.
/// Written once before the first input and only read afterwards; libFuzzer calls the target from
/// one thread, so the lazy global needs no further synchronisation.
let fuzzSource: String? = {
    let path = NSTemporaryDirectory() + "reencode-recipefuzz-\(getpid()).mp4"
    var v = GeneratedVideoFormat(width: 64, height: 48, frameRate: FrameRate(frames: 10))
    v.codecOptions = ["preset": "ultrafast"]
    guard let s = try? FrameSource(path: path, video: v, audio: GeneratedAudioFormat()) else { return nil }
    for i in 0..<10 {
        try? s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
        try? s.appendAudio(count: 4800) { _, _ in 0 }
    }
    guard (try? s.finish()) != nil else { return nil }
    atexit { unlink(NSTemporaryDirectory() + "reencode-recipefuzz-\(getpid()).mp4") }
    return path
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func recipeFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // The CLI refuses text that is not UTF-8 before parsing; do the same.
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    switch RecipeParser.parse(text, file: "fuzz.yaml") {
    case .failure(let e):
        for d in e.diagnostics { _ = d.description }
    case .success(let recipe):
        guard let source = fuzzSource else { return 0 }
        let out = NSTemporaryDirectory() + "reencode-recipefuzz-\(getpid())-out.mp4"
        if let compiled = try? RecipeCompiler.compile(recipe, input: source, output: out, overwrite: true) {
            _ = compiled.plan.duration.seconds
        }
    }
    return 0
}
