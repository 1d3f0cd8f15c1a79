import Recipe

/// A package's segments start at the same instants in every rendition only when, at each
/// multiple of `segment`, every video rendition's first picture at or after it falls at the same
/// time. Renditions at different rates (a ladder's 30 fps rungs beside its 60 fps ones) part
/// where `segment` is not a whole number of frames of each (0.05 s: 60 fps has a picture there,
/// 30 fps the next at 0.067 s), which the run would find only once everything is encoded, when it
/// packages. Refused before anything runs, at the `segment` line.
extension RecipeCompiler {
    /// One refusal per package whose video renditions' segments would not line up; `marks` are
    /// the outputs' `segment` marks, in `compiled`'s order.
    static func segmentAlignmentRefusals(_ compiled: [CompiledRecipe], marks: [Mark?], in recipe: Recipe) -> [Diagnostic] {
        typealias Rendition = (name: String, rate: FrameRate)
        var packages: [String: [Rendition]] = [:], order: [String] = [], first: [String: (CompiledRecipe, Mark?)] = [:]
        for (c, mark) in zip(compiled, marks) {
            // A rendition's rate: the one it converts to, else its source's (kept as it is).
            guard let m = c.plan.package, let lane = c.plan.lanes.first(where: { $0.videoSettings != nil }),
                  let rate = lane.videoSettings?.frameRate ?? lane.track.format.averageFrameRate else { continue }
            if packages[m.folder] == nil { order.append(m.folder); first[m.folder] = (c, mark) }
            packages[m.folder, default: []].append((m.rendition, rate))
        }
        return order.compactMap { folder in
            let renditions = packages[folder]!
            guard let (c, mark) = first[folder], let segment = c.plan.package?.segment, Set(renditions.map(\.rate)).count > 1,
                  segment.isNumeric, segment.value > 0 else { return nil }
            let count = Int((c.plan.timeRange.duration.seconds / segment.seconds).rounded(.up))
            for k in stride(from: 1, to: count, by: 1) {
                let instant = MediaTime(value: segment.value * Int64(k), timescale: segment.timescale)
                let starts = renditions.map { firstPicture(atOrAfter: instant, rate: $0.rate) }
                guard let odd = starts.indices.first(where: { !same(starts[$0], starts[0]) }) else { continue }
                let (a, b) = (renditions[0], renditions[odd])
                return recipe.diagnostic(mark, "segment \(k + 1) of \(folder) would start at \(seconds(starts[0])) in rendition \(a.name) (\(a.rate.decimalDescription) fps) "
                    + "but at \(seconds(starts[odd])) in \(b.name) (\(b.rate.decimalDescription) fps): each starts at its first picture at or after \(instant.secondsDescription), "
                    + "so their segments would not line up; make 'segment' a length at which their pictures meet (whole seconds for 30 and 60 fps)")
            }
            return nil
        }
    }

    /// The first picture at or after `t` at `rate` (pictures at n / rate from 0), as picture
    /// number n and the rate: n · seconds / frames exactly.
    static func firstPicture(atOrAfter t: MediaTime, rate: FrameRate) -> (n: Int64, rate: FrameRate) {
        // n = ceil(t · frames / seconds) = ceil(value · frames / (timescale · seconds))
        let num = t.value * Int64(rate.frames), den = Int64(t.timescale) * Int64(rate.seconds)
        return ((num + den - 1) / den, rate)
    }

    static func same(_ a: (n: Int64, rate: FrameRate), _ b: (n: Int64, rate: FrameRate)) -> Bool {
        a.n * Int64(a.rate.seconds) * Int64(b.rate.frames) == b.n * Int64(b.rate.seconds) * Int64(a.rate.frames)
    }

    static func seconds(_ p: (n: Int64, rate: FrameRate)) -> String {
        MediaTime(value: p.n * Int64(p.rate.seconds), timescale: p.rate.frames).secondsDescription
    }
}
