import Pipeline

/// How several outputs share one read, as `plan` shows it: per lane of the run, the source
/// track it reads and the output tracks it feeds (1-based, as the plan numbers them), and the
/// image outputs it hands pictures to. Made once; the text and the JSON are two views of it.
struct SharedRead {
    struct Lane {
        let sourceTrack: Int
        let type: String
        /// Decoded (else copied).
        let decoded: Bool
        /// (output number in the recipe, its track, 1-based).
        let feeds: [(output: Int, track: Int)]
        /// Image outputs taking their pictures from this lane.
        let stills: [Int]
        /// Output tracks (as `feeds`) that are one encode written into each of their files;
        /// only groups of more than one.
        let sharedEncodes: [[(output: Int, track: Int)]]
    }

    let source: String
    /// A composition's tracks, played (read, cut, drawn and mixed) once by output 1's lanes.
    let composed: Bool
    let lanes: [Lane]
    /// Image outputs decoded on their own.
    let ownStills: [Int]
    /// Those of them that are stills of a composition no output draws: its video drawn for them alone.
    let drawnStills: Set<Int>
    let outputCount: Int

    /// `lanes`: `OutputSet.lanes`; `encodes`: `OutputSet.encodes`; `numbers`: the media-file
    /// outputs' numbers in the recipe; `riding`: per image output (`stills`, their numbers), its lane, or nil.
    init(_ lanes: [[(output: Int, track: Int)]], encodes: [[[(output: Int, track: Int)]]], _ outputs: [CompiledRecipe], numbers: [Int],
         stills: [Int] = [], riding: [Int?] = [], drawn: Set<Int> = []) {
        source = outputs.first?.plan.source.path ?? "the source"
        composed = outputs.first?.plan.isComposed == true
        self.lanes = lanes.enumerated().map { f, members in
            let lane = outputs[members[0].output].plan.lanes[members[0].track]
            let decoded: Bool
            switch lane.kind { case .video, .audio, .subtitle: decoded = true; case .passthrough: decoded = false }
            let shared = encodes[f].filter { $0.count > 1 }.map { group in group.map { (numbers[$0.output], $0.track + 1) } }
            return Lane(sourceTrack: lane.track.index, type: lane.track.mediaType.rawValue, decoded: decoded,
                        feeds: members.map { (numbers[$0.output], $0.track + 1) }, stills: zip(stills, riding).filter { $0.1 == f }.map(\.0),
                        sharedEncodes: shared)
        }
        ownStills = zip(stills, riding).filter { $0.1 == nil }.map(\.0)
        drawnStills = drawn
        outputCount = numbers.count + stills.count
    }

    var object: [[String: Any]] {
        var out: [[String: Any]] = lanes.map { lane in
            var o: [String: Any] = ["sourceTrack": lane.sourceTrack, "type": lane.type, "decoded": lane.decoded,
                                    "feeds": lane.feeds.map { ["output": $0.output, "track": $0.track] }]
            if composed { o["composition"] = true }
            if !lane.stills.isEmpty { o["stills"] = lane.stills }
            if !lane.sharedEncodes.isEmpty {
                o["sharedEncodes"] = lane.sharedEncodes.map { group in group.map { ["output": $0.output, "track": $0.track] } }
            }
            return o
        }
        out += ownStills.map { drawnStills.contains($0) ? ["stills": [$0], "decoded": true, "own": true, "composition": true] : ["stills": [$0], "decoded": true, "own": true] }
        return out
    }

    var text: String {
        var lines = [composed ? "one play of the composition for \(outputCount) outputs (each track read, drawn and mixed once)"
                              : "one read of \(source) for \(outputCount) outputs"]
        for lane in lanes {
            let feeds = (lane.feeds.map { "output \($0.output) track \($0.track)" } + lane.stills.map { "stills of output \($0)" }).joined(separator: ", ")
                + lane.sharedEncodes.map { group in
                    "; encoded once for " + (group.count == lane.feeds.count ? "all" : group.map { "output \($0.output) track \($0.track)" }.joined(separator: ", "))
                }.joined()
            let shared = lane.feeds.count + lane.stills.count > 1
            if composed {
                lines.append("  the composition's \(lane.type) \(shared ? "played once" : "played") → \(feeds)")
            } else {
                lines.append("  #\(lane.sourceTrack) \(lane.type) \(lane.decoded ? (shared ? "decoded once" : "decoded") : "copied") → \(feeds)")
            }
        }
        lines += ownStills.map { n in
            drawnStills.contains(n) ? "  stills of output \(n): the composition's video drawn for them alone (nothing encoded), up to the last still's picture"
                : "  stills of output \(n): decoded on their own, from each still's sync sample to its frame"
        }
        return lines.joined(separator: "\n")
    }
}
