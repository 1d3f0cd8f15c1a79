/// An entry of `outputs:` that is a streaming package (`format: hls`, `dash` or `cmaf`): a
/// folder `path`, a `segment` length and `renditions`, each with its own `inputs`. Each rendition
/// becomes an output of the recipe (`PackageRole`): a fragmented MP4 cut every `segment`, which
/// the run splits into the rendition's segments inside the folder.
extension Parser {
    static let packageKeys = ["path", "format", "segment", "overwrite", "renditions"]
    static let renditionKeys = ["name", "inputs", "ladder"]
    /// A segment when the recipe names none: Apple's HLS authoring specification's.
    static let defaultSegment = MediaTime(seconds: 6)

    /// The package format an entry asks for (nil: it writes a file, `parseOutputSpec` reads it).
    static func packageFormat(_ item: Node) -> (PackageFormat, Mark)? {
        guard case .mapping(let pairs, _) = item,
              let value = pairs.first(where: { $0.0.scalar == "format" })?.1,
              let format = value.scalar.flatMap({ PackageFormat(rawValue: $0.lowercased()) }) else { return nil }
        return (format, value.mark)
    }

    /// Adds one output per rendition of entry `k` (0-based) of `outputs:`; `paths` holds the
    /// paths taken so far (the folder takes its own).
    mutating func parsePackage(_ item: Node, _ k: Int, format: (PackageFormat, Mark), paths: inout [String: Int]) {
        let what = "output \(k + 1)"
        guard let pairs = mapping(item, what, keys: Self.packageKeys) else { return }
        var folder: Located<String>?, segment = Located(Self.defaultSegment, format.1), overwrite = false
        var renditionsNode: Node?
        for (key, value, _) in pairs {
            switch key {
            case "path":
                if let s = string(value, key) { folder = Located(s, value.mark); checkTokens(s, value.mark) }
            case "segment":
                guard let t = time(value, key) else { continue }
                // Under one frame is refused where the frame rate is known (the plan).
                guard t > .zero, t <= RecipeParser.maxFragment else {
                    error(value.mark, "'segment' must be longer than 0 and at most \(RecipeParser.maxFragmentDescription), not \(value.kindDescription)")
                    continue
                }
                segment = Located(t, value.mark)
            case "overwrite": if let b = bool(value, key) { overwrite = b }
            case "renditions": renditionsNode = value
            default: break
            }
        }
        guard let folder else { error(item.mark, "\(what) needs a 'path' (the \(format.0.rawValue) package's folder)"); return }
        if let first = paths[folder.value] {
            error(folder.mark, "\(what) has the same path as output \(first) ('\(folder.value)'): each output is a file of its own")
        } else {
            paths[folder.value] = k + 1
        }
        guard let renditionsNode else {
            error(item.mark, "\(what) needs 'renditions' (- { name: 720p, inputs: [ … ] }, one per rendition)")
            return
        }
        guard case .sequence(let items, _) = renditionsNode, !items.isEmpty else {
            error(renditionsNode.mark, "'renditions' must be a list of renditions (- { name: 720p, inputs: [ … ] }), not \(renditionsNode.kindDescription)")
            return
        }
        var names: [String: Int] = [:]
        for (r, rendition) in items.enumerated() {
            let whose = "rendition \(r + 1) of \(what)"
            guard let entry = mapping(rendition, whose, keys: Self.renditionKeys) else { continue }
            // A ladder's renditions are named by their rungs (`720p-3000k`), after its own name if it has one.
            let ladder = parseLadder(entry)
            var name = ladder == nil ? "r\(r + 1)" : "", nameMark = rendition.mark
            if let n = entry.first(where: { $0.0 == "name" })?.1, let s = string(n, "name") {
                guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                    error(n.mark, "a rendition's 'name' is its folder's name: letters, digits, '-' and '_' only, not '\(s)'")
                    continue
                }
                (name, nameMark) = (s, n.mark)
            }
            if let first = names[name] {
                error(nameMark, "\(whose) has the same name as rendition \(first) ('\(name)'): each rendition is a folder of its own")
                continue
            }
            names[name] = r + 1
            guard let inputs = entry.first(where: { $0.0 == "inputs" })?.1 else {
                error(rendition.mark, "\(whose) needs 'inputs' (its tracks: - { source: …, settings: … })")
                continue
            }
            var spec = OutputSpec()
            // A ladder's rungs get their paths when it is expanded; until then (`validate`) it stands
            // as a rendition named `ladder`, whose path names a file as every rendition's does.
            spec.path = Located(FilePaths.join(folder.value, name.isEmpty ? "ladder" : name), nameMark)
            spec.format = Located(.mp4, format.1)
            spec.overwrite = overwrite
            spec.fragment = segment
            spec.package = PackageRole(folder: folder, format: Located(format.0, format.1), segment: segment.value,
                                       rendition: name, entry: k + 1, renditions: items.count)
            spec.package?.ladder = ladder
            recipe.outputs.append(RecipeOutput(number: k + 1, spec: spec, writerInputs: parseWriterInputs(inputs), mark: rendition.mark))
        }
    }

    /// A rendition's `ladder: auto` (where it is written), or nil without one.
    mutating func parseLadder(_ entry: [(String, Node, Mark)]) -> Mark? {
        guard let value = entry.first(where: { $0.0 == "ladder" })?.1 else { return nil }
        guard value.scalar == "auto" else {
            error(value.mark, "'ladder' must be auto (one rendition per rung of Apple's HLS authoring specification that fits the source), not \(value.kindDescription)")
            return nil
        }
        return value.mark
    }
}
