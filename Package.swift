// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
    name: "reencode",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "reencode", targets: ["reencode"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        .library(name: "Recipe", targets: ["Recipe"]),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            // libavfilter's headers only (same include folder): it is loaded when a filter is first
            // needed, not linked (Sources/Pipeline/FFmpeg/FilterLibrary.swift).
            pkgConfig: "libavformat libavcodec libavutil libswresample libswscale",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavfilter-dev", "libavutil-dev", "libswresample-dev", "libswscale-dev"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // The recipe model, time and settings values: no FFmpeg here.
        .target(name: "Recipe", dependencies: ["CYAML"]),
        .target(name: "Pipeline", dependencies: ["CFFmpeg", "Recipe"]),
        .executableTarget(name: "reencode", dependencies: ["Pipeline", "Recipe"]),
        // Makes benchmark and sample media and runs engine-level measurements (bench/README.md).
        .executableTarget(name: "reencode-bench", dependencies: ["Pipeline", "Recipe", "CMalloc"], path: "bench/tool"),
        .systemLibrary(name: "CMalloc", path: "bench/CMalloc"),
        .testTarget(name: "RecipeTests", dependencies: ["Recipe"]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "Recipe"]),
        // Runs the built `reencode` binary: exit codes, messages, JSON.
        .testTarget(name: "CLITests", dependencies: ["Pipeline", "Recipe", "reencode"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (reliability/fuzz.sh, docs/reliability.md): only with REENCODE_FUZZ=1 and
// `-sanitize=fuzzer`, which supplies main; the default build and test run never see them.
if ProcessInfo.processInfo.environment["REENCODE_FUZZ"] == "1" {
    for name in ["RecipeFuzz", "MediaFuzz"] {
        package.targets.append(.executableTarget(name: name, dependencies: ["Pipeline", "Recipe"], path: "Fuzz/\(name)",
                                                 swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
}
