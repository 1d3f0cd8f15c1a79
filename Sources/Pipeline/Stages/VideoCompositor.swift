import Recipe

/// Video layers → one picture per slot of the output's constant-rate grid (AVVideoComposition's
/// instructions, drawn bottom to top). Each layer is a sequence of its segments that hands out
/// pictures only where a segment is (`SequenceCombiner(leavesGaps:)`); at slot n the compositor
/// takes from each layer the picture stamped n, if any, and draws those present over the
/// background colour, each transformed to its place (`LayerPainter`) at its opacity at the
/// slot's time. Which picture a slot shows is decided by the layers' grids, never here.
///
/// A slot that draws the same pictures at the same opacities as the one before hands out the
/// same picture again (slow motion repeats slots), so nothing is drawn or converted twice.
/// Runs on its lane's queue; owns its layers' stages.
final class VideoCompositor: SourceStage {
    struct Layer {
        /// Its pictures on the output's grid, only where its segments are.
        let stage: any SourceStage
        let style: VideoLayer
        /// No picture of it shows before this slot: it is not read (its file not opened) before.
        var firstSlot: Int64 = 0
    }

    private struct State {
        let layer: Layer
        /// The next picture it shows and its slot.
        var pending: (picture: Frame, pts: Int64)?
        var done = false
        /// The last picture prepared for drawing, kept while the layer repeats it.
        var prepared: (source: Frame, layer: PreparedLayer)?
    }

    private var layers: [State]
    private let painter: LayerPainter
    /// HDR pictures made SDR, each by its own transfer, before they are drawn (nil: none).
    private let toneMapping: PictureToneMapping?
    /// Slots of the timeline (nil: until every layer is done).
    private let end: Int64?
    private let frameDuration: MediaTime
    private var slot: Int64 = 0
    /// What the last slot drew (layer, picture, opacity) and the picture it made.
    private var last: (drawn: [Drawn], picture: Frame)?
    /// The layer read last, whose file and time an error names.
    private var current = 0

    private struct Drawn: Equatable {
        let layer: Int
        let picture: ObjectIdentifier
        let opacity: Double
    }

    init(layers: [Layer], painter: LayerPainter, toneMapping: PictureToneMapping?, end: Int64?, frameDuration: MediaTime) {
        self.layers = layers.map { State(layer: $0) }
        self.painter = painter
        self.toneMapping = toneMapping
        self.end = end
        self.frameDuration = frameDuration
    }

    var statistics: LaneStatistics {
        var s = LaneStatistics(track: layers.first?.layer.stage.statistics.track ?? 0)
        for l in layers { s.addReading(of: l.layer.stage.statistics) }
        return s
    }

    var lastTime: MediaTime { layers.indices.contains(current) ? layers[current].layer.stage.lastTime : .invalid }
    var file: String? { layers.indices.contains(current) ? layers[current].layer.stage.file : nil }

    func next() throws(MediaError) -> TimedFrame? {
        if let end, slot >= end { return nil }
        var shown: [(layer: Int, picture: Frame)] = []
        var more = false
        for i in layers.indices {
            if slot < layers[i].layer.firstSlot { more = true; continue }
            try advance(i, to: slot)
            if let p = layers[i].pending {
                more = true
                if p.pts == slot { shown.append((i, p.picture)) }
            }
        }
        if end == nil && !more { return nil }
        let t = (frameDuration * slot).seconds
        var opacities = shown.map { layers[$0.layer].layer.style.opacity?.value(atSeconds: t) ?? 1 }
        // Where both rolls of a cross-fade show, the lower one at (c − u)/(1 − u), c the track's
        // opacity and u the upper's (c·x): the result is c·(outgoing·(1 − x) + incoming·x) over
        // the background, as the track alone at opacity c would show the mix.
        if let l = shown.firstIndex(where: { layers[$0.layer].layer.style.roll == 0 }),
           let u = shown.firstIndex(where: { layers[$0.layer].layer.style.roll == 1 }) {
            let upper = min(1, opacities[u])
            opacities[l] = upper >= 1 ? 0 : max(0, min(1, (opacities[l] - upper) / (1 - upper)))
        }
        let drawn = zip(shown, opacities).map { Drawn(layer: $0.layer, picture: ObjectIdentifier($0.picture), opacity: $1) }
        let picture: Frame
        if let last, last.drawn == drawn {
            picture = last.picture
        } else {
            picture = try draw(shown, opacities: drawn.map(\.opacity))
            last = (drawn, picture)
        }
        let pts = slot
        slot += 1
        return .picture(picture, pts: pts, duration: 1)
    }

    /// Layer i's pending picture made the first at or after slot `s` (or none: it is done).
    private func advance(_ i: Int, to s: Int64) throws(MediaError) {
        while !layers[i].done {
            if let p = layers[i].pending, p.pts >= s { return }
            current = i
            guard let frame = try layers[i].layer.stage.next() else {
                layers[i].done = true
                layers[i].pending = nil
                layers[i].prepared = nil
                return
            }
            if case .picture(let picture, let pts, _) = frame { layers[i].pending = (picture, pts) }
        }
    }

    private func draw(_ shown: [(layer: Int, picture: Frame)], opacities: [Double]) throws(MediaError) -> Frame {
        let drawn = zip(shown, opacities).filter { $0.1 > 0 }
        // One opaque picture covering the whole frame is the frame: nothing to draw it on.
        if drawn.count == 1, let only = drawn.first, only.1 >= 1 {
            let prepared = try prepare(only.0.layer, only.0.picture)
            if prepared.rect == PixelRect(x: 0, y: 0, width: painter.width, height: painter.height), prepared.pixels.pixelFormat == painter.pixelFormat {
                return prepared.pixels
            }
        }
        // In the output's colours, whichever picture comes first (or none).
        let canvas = try painter.canvas(like: nil)
        for ((i, picture), opacity) in drawn {
            try painter.draw(try prepare(i, picture), opacity: min(1, opacity), onto: canvas)
        }
        return canvas
    }

    /// Layer i's picture made ready to draw, or the one kept while the layer repeats it.
    private func prepare(_ i: Int, _ picture: Frame) throws(MediaError) -> PreparedLayer {
        current = i
        let prepared: PreparedLayer
        if let kept = layers[i].prepared, kept.source === picture {
            prepared = kept.layer
        } else {
            let display = picture.display ?? (0, .square)
            let mapped = try toneMapping?.map(picture) ?? picture
            let par = display.pixelAspect.num > 0 && display.pixelAspect.den > 0 ? display.pixelAspect : .square
            let size = LayerGeometry.displayedSize(picture: (picture.width, picture.height),
                                                   quarterTurns: PictureFitter.quarterTurns(display.rotation), pixelAspect: par)
            let placement = layers[i].layer.style.placement(forDisplayed: Int(size.width), Int(size.height))
            let placed = try painter.prepare(mapped, rotation: display.rotation, pixelAspect: display.pixelAspect, placement: placement)
            // The upper roll covers the whole frame, bars included, so they fade with it.
            prepared = layers[i].layer.style.roll == 1 ? try painter.wholeFrame(placed, like: mapped) : placed
            layers[i].prepared = (picture, prepared)
        }
        return prepared
    }
}
