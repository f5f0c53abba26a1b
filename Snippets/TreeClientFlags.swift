// TreeClient: evaluate a synced copy's feature flags and update policy on the device, as an app does at launch:
// no server asked, the same answer as flags/flags.js in a browser and `generator flags` in a shell.
// Run it: swift run TreeClientFlags ./copy install-42 ios 3.3.0
import Foundation
import TreeClient

let arguments = CommandLine.arguments
guard (3...5).contains(arguments.count) else {
    print("usage: TreeClientFlags FOLDER UNIT [PLATFORM] [APP-VERSION]")
    exit(2)
}

// snippet.show
let copy = URL(fileURLWithPath: arguments[1])
let context = FlagContext(unit: arguments[2],                    // an install id: the same unit, the same bucket
                          platform: arguments.count > 3 ? arguments[3] : nil,
                          appVersion: arguments.count > 4 ? arguments[4] : nil,
                          attributes: ["country": Locale.current.region?.identifier ?? "US"])
do {
    let flags = try FeatureFlags(copy: copy)                      // FOLDER/config/flags.json
    switch flags.update(for: context) {
    case .blocked, .required: print("update: this version must be updated")
    case .recommended: print("update: a newer version is recommended")
    case .none: print("update: none")
    }
    if flags.isOn("new_checkout", for: context) { print("new_checkout: on") }
    for (key, value) in flags.values(for: context) { print("\(key) = \(String(decoding: value.bytes, as: UTF8.self))") }
} catch {
    // No flags file (or one this client cannot read): the app keeps its built-in defaults.
    print("no flags: \(error)")
    exit(1)
}
// snippet.end
