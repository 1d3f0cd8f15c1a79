import Recipe

/// What a player switching renditions relies on, checked on the segments written before the
/// package is put in place: every video segment starts with a sync sample, and every rendition
/// has the same segments starting at the same instants — video renditions exactly (within one
/// tick of the coarser timescale), sound within one of its frames.
enum PackageCheck {
    static func aligned(_ renditions: [RenditionSegments], folder: String) throws(MediaError) {
        for r in renditions where r.hasVideo {
            if let k = r.segments.firstIndex(where: { !$0.startsWithSync }) {
                throw MediaError(.processing, "segment \(k + 1) of rendition \(r.name) does not start with a keyframe", file: folder)
            }
        }
        guard let lead = renditions.first(where: \.hasVideo) ?? renditions.first else { return }
        for r in renditions where r.name != lead.name {
            guard r.segments.count == lead.segments.count else {
                throw MediaError(.processing, "rendition \(r.name) has \(r.segments.count) segments, \(lead.name) \(lead.segments.count): their segments do not line up", file: folder)
            }
            // Sound is cut at its first frame at or after the instant: up to a frame (AAC: 1024 samples, at most 2048) late.
            let slack = r.hasVideo ? 1.0 / Double(min(r.timescale, lead.timescale)) : 2048.0 / Double(r.timescale)
            for (k, (a, b)) in zip(lead.segments, r.segments).enumerated() {
                let d = abs(lead.seconds(a.start) - r.seconds(b.start))
                if d > slack + 1e-9 {
                    throw MediaError(.processing, "segment \(k + 1) of rendition \(r.name) starts at \(HLSPlaylists.decimal(r.seconds(b.start), places: 6)) s, of \(lead.name) at \(HLSPlaylists.decimal(lead.seconds(a.start), places: 6)) s: their segments do not line up", file: folder)
                }
            }
        }
    }
}
