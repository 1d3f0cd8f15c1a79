import Foundation
import Pipeline
import Recipe

/// The plan's graph as `plan` prints it: each edge from one stage to the next with the format
/// both agreed on (text), or its nodes and edges (JSON).
enum GraphText {
    static func lines(_ p: ConversionPlan) -> [String] {
        guard let g = p.graph else { return [] }
        let files = p.sources.map(\.path)
        var lines = ["", "graph (each edge with the format both stages agreed on)"]
        for e in g.edges {
            let segment = e.segment.map { " (segment \($0 + 1))" } ?? ""
            lines.append("  \(name(g.nodes[e.from], files: files)) → \(name(g.nodes[e.to], files: files))\(segment)")
            lines.append("      \(e.format)")
        }
        return lines
    }

    static func object(_ p: ConversionPlan) -> Any {
        guard let g = p.graph else { return NSNull() }
        let files = p.sources.map(\.path)
        let nodes = g.nodes.enumerated().map { i, n -> [String: Any] in
            var o: [String: Any] = ["id": i]
            switch n {
            case .source(let file, let track): o["kind"] = "source"; o["file"] = files.indices.contains(file) ? files[file] : NSNull(); o["track"] = track
            case .combiner(let c, let output): o["kind"] = "combiner"; o["combiner"] = c.rawValue; o["output"] = output + 1
            case .sink(let output): o["kind"] = "sink"; o["output"] = output + 1
            case .chunkEncoders(let output, let chunks, let workers):
                o["kind"] = "chunks"; o["output"] = output + 1; o["chunks"] = chunks; o["workers"] = workers
            case .join(let output): o["kind"] = "join"; o["output"] = output + 1
            case .file(let path): o["kind"] = "file"; o["path"] = path
            }
            return o
        }
        let edges = g.edges.map { e -> [String: Any] in
            ["from": e.from, "to": e.to, "segment": e.segment.map { $0 + 1 } ?? NSNull(), "format": format(e.format)]
        }
        return ["nodes": nodes, "edges": edges]
    }

    private static func name(_ n: PlanGraph.Node, files: [String]) -> String {
        switch n {
        case .source(let file, let track):
            let path = files.indices.contains(file) ? files[file] : "?"
            return "source \(FilePaths.label(of: path, among: files)) #\(track)"
        case .combiner(let c, let output): return "\(c.rawValue) of output track \(output + 1)"
        case .sink(let output): return "sink of output track \(output + 1)"
        case .chunkEncoders(let output, let chunks, let workers):
            return "\(chunks) chunk encoder\(chunks == 1 ? "" : "s") of output track \(output + 1) (\(workers) worker\(workers == 1 ? "" : "s") at once)"
        case .join(let output): return "join of output track \(output + 1)"
        case .file(let path): return "file \(path)"
        }
    }

    private static func format(_ f: EdgeFormat) -> [String: Any] {
        func ratio(_ r: Ratio) -> String { "\(r.num)/\(r.den)" }
        switch f {
        case .pictures(let p):
            return ["kind": "pictures", "width": p.width, "height": p.height, "pixelFormat": p.pixelFormat,
                    "timeBase": ratio(p.timeBase), "frameRate": p.frameRate.map { "\($0.frames)/\($0.seconds)" } ?? NSNull()]
        case .sound(let s):
            return ["kind": "sound", "sampleRate": s.sampleRate, "sampleFormat": s.sampleFormat, "channelLayout": s.channelLayout,
                    "timeBase": ratio(s.timeBase)]
        case .stream(let s):
            var o: [String: Any] = ["kind": "stream", "codec": s.codec, "profile": s.profile ?? NSNull(), "timeBase": ratio(s.timeBase)]
            if s.width > 0 { o["width"] = s.width; o["height"] = s.height; o["pixelFormat"] = s.pixelFormat ?? NSNull() }
            if s.sampleRate > 0 { o["sampleRate"] = s.sampleRate; o["channelLayout"] = s.channelLayout ?? NSNull() }
            return o
        }
    }
}
