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
}
