import Recipe

/// A composition of several files makes one output track of each kind from tracks that differ
/// in size, orientation, frame rate, sample rate and channels. Here those are reconciled, the way
/// AVFoundation's video composition defaults do it: the render size is the largest picture as
/// displayed (upright), every source fitted into it with its aspect kept; the frame rate is the
/// highest of the sources' (the shortest frame duration), so no source loses frames; the sound
/// takes the highest sample rate and the most channels. The settings assistant then decides from
/// that reconciled format as it does from one file's, and `plan` says what was reconciled.
enum CompositionSources {
    /// The track lane `l` takes from each source: its own in its own file,
    /// else that file's first track of the same kind; nil where the file has none (that lane is
    /// black or silent during its segments).
    static func tracks(of lanes: [LanePlan], in assets: [Asset]) -> [[Int?]] {
        lanes.map { lane in
            assets.enumerated().map { k, asset in
                k == lane.source ? lane.track.index : asset.track(lane.track.mediaType, ordinal: 0)?.index
            }
        }
    }

    /// The video format the assistant decides from, the settings it decides with (a frame rate
    /// forced where the recipe gives none: sources of different timing share one grid), and what
    /// was reconciled, for the plan. `formats`: every used source's picture format with its file.
    /// `renderFiles`: the files whose pictures decide the render size (a layer's pictures go in
    /// a rectangle of it; nil: all); `renderSize`: the recipe's own, which wins.
    static func video(_ formats: [(file: String, format: FormatDescription)], settings: VideoSettings,
                      renderFiles: Set<String>? = nil, renderSize: RenderSize? = nil) throws(MediaError)
        -> (format: FormatDescription, settings: VideoSettings, decisions: [Decision]) {
        guard var merged = formats.first?.format else { return (FormatDescription(mediaType: .video, codec: "none"), settings, []) }
        var s = settings
        var decisions: [Decision] = []
        // Render size: the largest displayed picture (by area; the first of equals).
        let sizing = renderFiles.map { files in formats.filter { files.contains($0.file) } }.flatMap { $0.isEmpty ? nil : $0 } ?? formats
        let largest = sizing.max { a, b in
            let (aw, ah) = a.format.displaySize, (bw, bh) = b.format.displaySize
            return aw * ah < bw * bh
        } ?? sizing[0]
        let (w, h) = renderSize.map { ($0.width, $0.height) } ?? largest.format.displaySize
        merged.width = w
        merged.height = h
        merged.pixelAspect = .square
        merged.rotation = 0
        // Each file is deinterlaced by its own field order; the assistant decides for all by the
        // first interlaced one. Fields cannot be kept: pictures are fitted and composed.
        if let interlaced = formats.first(where: { $0.format.fieldOrder?.isInterlaced == true }) {
            if settings.deinterlace == .off {
                throw MediaError(.invalidSettings, "'deinterlace: off' keeps fields, but a composition fits and composes its pictures, which blends them (\(FilePaths.label(of: interlaced.file, among: formats.map(\.file))) is \(interlaced.format.fieldOrder?.description ?? "interlaced")): let them be deinterlaced ('deinterlace: auto' or 'field-rate')",
                                 setting: "deinterlace")
            }
            merged.fieldOrder = interlaced.format.fieldOrder
            // An editing codec would keep the fields where nothing is asked (ProRes): composed
            // pictures have none to keep.
            if s.deinterlace == nil { s.deinterlace = .auto }
        }
        // Pictures of several files, turned upright, fitted, faded and layered onto one canvas: where
        // their chroma samples end up is not one file's to state. Said when a file states a siting
        // other than `left`, the codecs' default (what the output then implies).
        merged.chromaLocation = nil
        if renderSize != nil {
            decisions.append(Decision(setting: "render-size", value: "\(w)x\(h)", rule: "composition.render-size",
                                      reason: "the composition's 'render-size'; each picture is turned upright and fitted inside its place, aspect kept"))
        } else {
            let sizes = sizing.map { "\(FilePaths.label(of: $0.file, among: formats.map(\.file))) \($0.format.displaySize.width)x\($0.format.displaySize.height)" }
            let whose = sizing.count < formats.count ? "the video track's sources" : "the composition's sources"
            decisions.append(Decision(setting: "render-size", value: "\(w)x\(h)", rule: "composition.render-size",
                                      reason: "the largest picture of \(whose) as displayed (\(sizes.joined(separator: ", "))); each source is turned upright and fitted inside it, aspect kept, on black"))
        }
        // Dynamic range: one output holds one kind. Files that differ (SDR beside HDR, PQ beside
        // HLG) make an SDR output with every HDR picture tone-mapped, whichever file comes first.
        if let firstHDR = formats.first(where: { $0.format.dynamicRange != .sdr }),
           formats.contains(where: { $0.format.dynamicRange != firstHDR.format.dynamicRange }) {
            let list = formats.map { "\(FilePaths.label(of: $0.file, among: formats.map(\.file))) \($0.format.dynamicRange.name)" }.joined(separator: ", ")
            if s.hdr == .keep {
                throw MediaError(.invalidSettings, "'hdr: keep' needs every picture of the composition HDR of one kind, but its files differ (\(list)): say 'hdr: tone-map' (or leave 'hdr' out) for an SDR output", setting: "hdr")
            }
            let h = firstHDR.format
            merged.colorPrimaries = h.colorPrimaries
            merged.colorTransfer = h.colorTransfer
            merged.colorMatrix = h.colorMatrix
            merged.colorRange = h.colorRange
            merged.hdr = h.hdr
            s.hdr = .toneMap
            decisions.append(Decision(setting: "hdr", value: "tone-map", rule: "composition.dynamic-range",
                                      reason: "the composition's files differ in dynamic range (\(list)): one output holds one kind, so it is SDR and every HDR picture is tone-mapped to BT.709"))
        }
        // Frame rate: the highest nominal rate.
        let rates = formats.compactMap { f in (f.format.nominalFrameRate ?? f.format.averageFrameRate).map { (f.file, $0) } }
        if let fastest = rates.max(by: { $0.1 < $1.1 }) {
            let rate = SettingsAssistant.nearestStandardRate(fastest.1)
            merged.averageFrameRate = rate
            merged.isVariableFrameRate = false
            merged.nominalFrameRate = nil
            if s.frameRate == nil || s.frameRate == .source {
                s.frameRate = .rate(rate)
                s.frameRatePolicy = .exact
                let list = rates.map { "\(FilePaths.label(of: $0.0, among: formats.map(\.file))) \($0.1.decimalDescription)" }.joined(separator: ", ")
                decisions.append(Decision(setting: "frame-rate", value: rate.description, rule: "composition.frame-rate",
                                          reason: "the composition's sources (\(list)) share one grid at the highest standard rate among them, so none loses a frame"))
            }
        }
        let sited = formats.compactMap { f in f.format.chromaLocation.flatMap { $0 == "left" ? nil : "\(FilePaths.label(of: f.file, among: formats.map(\.file))) \($0)" } }
        if !sited.isEmpty {
            decisions.append(Decision(setting: "chroma-location", value: "unspecified", rule: "composition.chroma-location",
                                      reason: "the composition's pictures are fitted and composed onto one canvas, so the chroma siting of its files (\(sited.joined(separator: ", "))) is not stated (players then assume left)"))
        }
        return (merged, s, decisions)
    }

    /// The sound format the assistant decides from: the highest sample rate and the most channels.
    static func audio(_ formats: [(file: String, format: FormatDescription)]) -> (format: FormatDescription, decisions: [Decision]) {
        guard var merged = formats.first?.format else { return (FormatDescription(mediaType: .audio, codec: "none"), []) }
        let rate = formats.map(\.format.sampleRate).max() ?? merged.sampleRate
        let channels = formats.map(\.format.channels).max() ?? merged.channels
        if let richest = formats.first(where: { $0.format.channels == channels }) { merged.channelLayout = richest.format.channelLayout }
        merged.sampleRate = rate
        merged.channels = channels
        // The bit rate an output stays under: the richest file's, where every file states one.
        let bitRates = formats.map(\.format.bitRate)
        merged.bitRate = bitRates.contains(nil) ? nil : bitRates.compactMap { $0 }.max()
        let list = formats.map { "\(FilePaths.label(of: $0.file, among: formats.map(\.file))) \($0.format.sampleRate) Hz \($0.format.channels) ch" }.joined(separator: ", ")
        return (merged, [Decision(setting: "sound", value: "\(rate) Hz, \(channels) ch", rule: "composition.sound",
                                  reason: "the composition's sources (\(list)) are resampled and mixed to the highest rate and the most channels among them")])
    }
}
