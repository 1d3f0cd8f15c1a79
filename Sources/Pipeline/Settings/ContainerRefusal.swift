import Recipe

extension SettingsAssistant {
    /// Refuses a codec the containers' table says `container` does not hold although its muxer
    /// takes it (Vorbis into MOV: written, but no QuickTime player plays it), with the table's
    /// reason, at the recipe's `codec`. A codec its muxer refuses is refused when it opens.
    static func checkHeld(_ name: String, codec: String, streams: [String], in container: ContainerFormat?) throws(MediaError) {
        guard let container, let why = streams.lazy.compactMap({ container.holds.refused[$0] }).first else { return }
        throw MediaError(.invalidSettings, "\(container.article) \(container.rawValue) file does not hold \(name) (codec \(codec)): \(why)", setting: "codec")
    }
}
