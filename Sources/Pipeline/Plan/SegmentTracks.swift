import Recipe

/// Which track of its file a composition segment reads when it names one (`track:`), resolved
/// against that file at plan time: two segments of one file may read different tracks of a kind,
/// each by its own reader. A segment that names none reads, in each lane, the lane's own track in
/// the lane's file and the first track of the lane's kind elsewhere (`CompositionSources.tracks`).
enum SegmentTracks {
    /// A segment's own track: the lanes of `kind` read stream `index` of its file.
    struct Own: Hashable {
        let kind: MediaType
        let index: Int
    }

    /// Per request, its own track (nil: it names none). A file without the named track, or whose
    /// `#N` is not of the list's kind, is refused naming the file, the segment and the track.
    static func resolve(_ requests: [SegmentRequest], assets: [Asset]) throws(MediaError) -> [Own?] {
        var numbers: [String: Int] = [:]
        return try requests.map { r throws(MediaError) -> Own? in
            // Segments are counted within their composition track (a list, or a mix input).
            let key = "\(r.list.rawValue) \(r.layer)"
            let n = (numbers[key] ?? 0) + 1
            numbers[key] = n
            guard let own = r.track, assets.indices.contains(r.source) else { return nil }
            let asset = assets[r.source]
            let name = SegmentRequest.name(n, list: r.list, layer: r.layer)
            func refuse(_ message: String) -> MediaError {
                MediaError(.notMedia, "\(name): \(message)", file: asset.path, segment: SegmentField(n, .track, list: r.list, layer: r.layer))
            }
            let found: Track?
            switch own.selector {
            case .type(let type, let ordinal): found = asset.track(type, ordinal: ordinal)
            case .index(let i): found = asset.track(index: i)
            }
            guard let track = found else {
                throw refuse("it reads the \(own.selector) track, but the file has none (it has \(contents(of: asset)))")
            }
            guard track.mediaType == own.kind, !track.isAttachedPicture else {
                let what = track.isAttachedPicture ? "cover art" : track.mediaType.rawValue
                throw refuse("it reads track #\(track.index), which is \(what), not \(own.kind.rawValue)")
            }
            return Own(kind: own.kind, index: track.index)
        }
    }

    /// `#0 video, #1 audio, #2 audio`: what a file holds, for messages.
    static func contents(of asset: Asset) -> String {
        let has = asset.tracks.map { "#\($0.index) \($0.isAttachedPicture ? "cover art" : $0.mediaType.rawValue)" }
        return has.isEmpty ? "no tracks" : has.joined(separator: ", ")
    }
}
