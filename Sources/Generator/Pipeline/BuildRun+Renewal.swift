import Foundation
import Schemas
import TreeClient

extension BuildRun {
    /// A signed build with nothing new still renews the release's signature when its output is the release's own
    /// tree: the manifest signed again with a later expiry (see `ReleaseSigning.sign`), written in place atomically, so
    /// a scheduled build keeps apps from finding the release stale. Nothing is written when the expiry would not move
    /// forward under the same root.
    func renewSignature(of previous: PreviousRelease, _ signing: ReleaseSigning?) throws {
        guard let signing, !signing.keys.isEmpty, options.previousSite == nil, options.previous == nil || options.previous == options.output else { return }
        let old = try TreeReader(root: options.output).read("update-manifest.json")
        guard case .object(let members)? = try? JSONReader.parse(old) else { return }
        let before = members["expires"]?.stringValue.flatMap(TrustTime.date)
        let unsigned = JSONObject(members.members.filter { !["expires", "rootVersion", "signed"].contains($0.key) }.map { ($0.key, $0.value) })
        let renewed = try signing.sign(manifest: try JSONWriter().bytes(.object(unsigned)), epochSeconds: options.epochSeconds)
        let expires = Date(timeIntervalSince1970: TimeInterval(options.epochSeconds + signing.lifetime))
        if let before, before >= expires, members["rootVersion"]?.intValue == signing.newest.version { return }
        // (Beside the manifest, then renamed over it: a reader sees the old manifest or the new one, never a part.)
        let temporary = options.output.appendingPathComponent(".update-manifest.json.renewing-\(getpid())")
        try Data(renewed).write(to: temporary, options: .withoutOverwriting)
        guard rename(temporary.path, options.output.appendingPathComponent("update-manifest.json").path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporary.path)
            throw BuildError(file: options.output.path, "cannot renew update-manifest.json's signature (\(why))")
        }
        summary.renewed = true
        summary.notes.append("release \(previous.version) signed again under root \(signing.newest.version): current until \(TrustTime.text(expires))")
    }
}
