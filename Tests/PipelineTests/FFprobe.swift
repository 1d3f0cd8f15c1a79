import Foundation

/// Cross-checks with the ffprobe command line, where it is installed (nil otherwise).
enum FFprobe {
    static let path: String? = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func run(_ args: [String]) throws -> String? {
        guard let path else { return nil }
        return String(decoding: try output(of: path, ["-v", "error"] + args), as: UTF8.self)
    }

    /// What a command line tool (ffprobe, ffmpeg) writes to stdout.
    static func output(of tool: String, _ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return data
    }

    /// Picture types (I/P/B) of the first video track, in presentation order.
    static func pictureTypes(_ file: String) throws -> [String]? {
        try run(["-select_streams", "v:0", "-show_entries", "frame=pict_type", "-of", "csv=p=0", file])?
            .split(separator: "\n").map { String($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// `stream=…` entries of one stream as key → value.
    static func stream(_ file: String, _ selector: String, _ entries: String) throws -> [String: String]? {
        guard let out = try run(["-select_streams", selector, "-show_entries", "stream=\(entries):stream_tags:stream_side_data", "-of", "flat", file]) else { return nil }
        return parseFlat(out)
    }

    static func format(_ file: String) throws -> [String: String]? {
        guard let out = try run(["-show_entries", "format:format_tags", "-of", "flat", file]) else { return nil }
        return parseFlat(out)
    }

    /// Number of decoded frames ffprobe counts in a stream.
    static func frameCount(_ file: String, _ selector: String) throws -> Int? {
        guard let out = try run(["-count_frames", "-select_streams", selector, "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file]) else { return nil }
        return Int(out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static func parseFlat(_ s: String) -> [String: String] {
        var d: [String: String] = [:]
        for line in s.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].split(separator: ".").last.map(String.init) ?? ""
            var v = String(line[line.index(after: eq)...])
            if v.hasPrefix("\"") && v.hasSuffix("\"") && v.count >= 2 { v = String(v.dropFirst().dropLast()) }
            d[key] = v
        }
        return d
    }
}
