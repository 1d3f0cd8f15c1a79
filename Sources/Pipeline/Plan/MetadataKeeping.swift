import Recipe

/// A recipe's `metadata:`: what the output keeps of the source's file metadata, what the recipe
/// sets, and what each item is written as (docs/recipes.md, "Metadata"). Which container holds
/// which key is Keeping's rule, the same for the recipe's items as for the source's.
public enum MetadataKeeping {
    /// The source's items (canonical names) `spec` keeps: `creation-date: source` and
    /// `location: keep` keep theirs whatever `keep` says.
    static func kept(_ source: [String: String], by spec: MetadataSpec?) -> [String: String] {
        guard let spec else { return source }
        return source.filter { key, _ in
            if MetadataSpec.isLocation(key), let l = spec.location { return l == .keep }
            if MetadataSpec.isCreationDate(key), let d = spec.creationDate { return d == .source }
            switch spec.keep {
            case .all: return true
            case .none: return false
            case .forSharing: return !MetadataSpec.isPersonal(key)
            }
        }
    }

    /// The items the recipe sets, under FFmpeg's names (they win over the source's); `now` is
    /// the time of the run in UTC, as `MetadataSpec.CreationDate.date` states one.
    public static func set(by spec: MetadataSpec?, now: String) -> [String: String] {
        guard let spec else { return [:] }
        var out: [String: String] = [:]
        for item in spec.items { out[item.key] = item.value }
        switch spec.creationDate {
        case .now: out["creation_time"] = now; out["date"] = now
        case .date(let d): out["creation_time"] = d; out["date"] = d
        case .source, nil: break
        }
        if case .place(let p) = spec.location { out["location"] = p }
        return out
    }

    /// What an item of the output's metadata is written as in `format` (`quickTimeKeys`: the
    /// file's items are QuickTime keys), for `plan`.
    public static func writtenAs(_ key: String, format: ContainerFormat, quickTimeKeys: Bool) -> String {
        switch format {
        case .mp4, .mov, .m4a:
            var forms: [String] = []
            if quickTimeKeys { forms.append("QuickTime key \(key)") } else if let atom = Keeping.iTunesAtoms[key] { forms.append("iTunes item \(atom)") }
            if key == "creation_time" { forms.append("movie header creation time") }
            if key == "location" { forms.append("3GPP loci box") }
            return forms.joined(separator: " + ")
        case .mkv, .webm:
            if key == "title" { return "segment title" }
            if key == "creation_time" { return "segment date (DateUTC)" }
            return "Matroska tag \(key.uppercased())"
        case .flac, .opus, .ogg:
            return key == "creation_time" ? "Vorbis comment creation_time" : "Vorbis comment \(key)"
        case .wav:
            return Keeping.riffInfoTags[key].map { "RIFF INFO \($0)" } ?? "—"
        }
    }

    /// The output's items with where each comes from (`recipe` or `source`) and what it is
    /// written as, by key.
    public static func listing(_ kept: KeptItems, format: ContainerFormat) -> [(key: String, value: String, origin: String, writtenAs: String)] {
        kept.metadata.sorted { $0.key < $1.key }.map { key, value in
            let fromRecipe = kept.recipeKeys.contains(key) || Keeping.quickTimeToMP4[key].map { kept.recipeKeys.contains($0) && kept.metadata[$0] == value } == true
            return (key, value, fromRecipe ? "recipe" : "source", writtenAs(key, format: format, quickTimeKeys: kept.quickTimeKeys))
        }
    }
}
