/// An output's `metadata:`: the file metadata the recipe sets, and what it keeps of the source's
/// (docs/recipes.md, "Metadata").
public struct MetadataSpec: Sendable {
    /// What of the source's file metadata is kept before the recipe's keys are set.
    public enum Keep: String, Sendable, CaseIterable {
        /// Everything the container can hold (as without `metadata:`).
        case all
        /// Nothing: only what the recipe sets and what the writer itself writes.
        case none
        /// All but location, device make, model and serial numbers, and owner names
        /// (`MetadataSpec.isPersonal`), as AVFoundation's AVMetadataItemFilter.forSharing.
        case forSharing = "for-sharing"
    }

    public enum CreationDate: Sendable, Equatable {
        /// The source's, whatever `keep` says.
        case source
        /// The time of the run.
        case now
        /// A date the recipe names, in UTC as `2024-05-01T10:00:00Z`.
        case date(String)
    }

    public enum Location: Sendable, Equatable {
        /// The source's, whatever `keep` says.
        case keep
        case remove
        /// An ISO 6709 place, `+48.8577+002.2950/`.
        case place(String)
    }

    /// One text item: a named key (`title`, …) under its FFmpeg name, or a custom key as written.
    public struct Item: Sendable {
        public let key: String
        public let value: String
        public let custom: Bool
        public let mark: Mark
    }

    public var keep: Keep = .all
    public var items: [Item] = []
    public var creationDate: CreationDate?
    public var location: Location?
    public let mark: Mark

    public init(mark: Mark) { self.mark = mark }

    /// The text keys a recipe names; FFmpeg (and every container's tag table) knows them by the
    /// same names.
    public static let textKeys = ["title", "artist", "comment", "description", "copyright", "keywords"]

    /// Keys the writer sets itself: the source's are never kept, and a recipe cannot set them.
    public static let writerKeys: Set<String> = ["major_brand", "minor_version", "compatible_brands", "encoder"]

    /// The keys of the file's creation date, in every spelling a container gives it.
    public static func isCreationDate(_ key: String) -> Bool {
        ["creation_time", "date", "com.apple.quicktime.creationdate"].contains(key.lowercased())
    }

    /// Location: `location` (MP4 `loci`/`©xyz`, Matroska `LOCATION`), QuickTime's
    /// `com.apple.quicktime.location.*` (ISO6709, accuracy, body, name, note, role, date), and any
    /// key naming GPS.
    public static func isLocation(_ key: String) -> Bool {
        let k = key.lowercased()
        return k == "location" || k.hasPrefix("location-") || k.hasPrefix("com.apple.quicktime.location.")
            || k.contains("gps") || k.hasSuffix(".location")
    }

    /// What `keep: for-sharing` drops besides the location: device make, model and serial numbers
    /// (`make`, `model`, `com.apple.quicktime.make`, `…model`, `…camera.identifier`,
    /// `…camera.lens_model`, `com.android.manufacturer`, `com.android.model`, any key naming a
    /// serial number) and owner names (`owner`, `author`, `com.apple.quicktime.author`, any key
    /// naming an owner).
    public static func isPersonal(_ key: String) -> Bool {
        let k = key.lowercased()
        let last = k.split(separator: ".").last.map(String.init) ?? k
        return isLocation(k) || ["make", "model", "manufacturer", "author", "owner", "identifier", "lens_model"].contains(last)
            || k.contains("serial") || k.contains("owner")
    }
}
