import Foundation

extension LocalCopy {
    /// `.DIR.sync-check.json`: when a sync last found the copy current with a trusted release, and what that release
    /// said of its time (so an app told of an expired release can say since when its data is stale).
    struct Check: Codable, Equatable {
        var lastSuccessfulCheck: Date
        var releaseTime: Date?
        var expires: Date?
    }

    var checkPath: String { parent.appendingPathComponent(".\(name).sync-check.json").path }

    func readCheck() -> Check? {
        guard let d = FileManager.default.contents(atPath: checkPath), d.count < 4096 else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Check.self, from: d)
    }

    func writeCheck(_ c: Check) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let d = try? encoder.encode(c) else { return }
        // A record for the app, not a guard: losing it loses only the time of the last check.
        try? d.write(to: URL(fileURLWithPath: checkPath), options: .atomic)
    }

    /// The copy's manifest replaced by a newer signing of the same release (the same file index: only `expires` and
    /// the signature differ), written beside it and renamed over it, so a reader sees one or the other.
    func replaceManifest(_ bytes: [UInt8]) throws {
        do { try Data(bytes).write(to: directory.appendingPathComponent("update-manifest.json"), options: .atomic) } catch {
            throw SyncError(.localFailure, "cannot write \(directory.path)/update-manifest.json: \(error.localizedDescription)")
        }
    }
}
