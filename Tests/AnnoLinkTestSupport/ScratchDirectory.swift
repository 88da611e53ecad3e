import Foundation

/// A new empty folder under the system's temporary directory, removed when the value goes away:
/// one per test, so that no two tests share a file.
public final class ScratchDirectory: @unchecked Sendable {
    /// The folder.
    public let url: URL

    /// Creates the folder `annolink-<prefix>-<UUID>`.
    ///
    /// Throws what `FileManager` throws when the folder cannot be made.
    public init(prefix: String = "test") throws {
        url = try ScratchDirectory.make(prefix: prefix)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the folder (the file itself is not made).
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Makes a new empty folder `annolink-<prefix>-<UUID>` and returns it; the caller removes it
    /// (or leaves it to the system's clean-up of the temporary directory).
    public static func make(prefix: String = "test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
