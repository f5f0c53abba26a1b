// Generator: compile an input folder (site.json and its datasets) into a tree, as `generator build` does, from code.
// Run it: swift run GeneratorBuild input /tmp/dist
import Foundation
import Generator

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: GeneratorBuild INPUT-FOLDER OUTPUT-FOLDER")
    exit(2)
}

// snippet.show
var options = BuildOptions(input: URL(fileURLWithPath: arguments[1]), output: URL(fileURLWithPath: arguments[2]), threads: 2)
options.lockWait = 0   // another build writing the same output: fail at once
do {
    let summary = try Build.run(options)
    if summary.changed {
        print("version \(summary.version) (\(summary.currentVersion)): \(summary.fileCount) files, \(summary.written) written")
    } else {
        print("no content changes: still version \(summary.version)")
    }
    for item in summary.report { print("  \(item.domain): \(item.key): \(item.count)") }
} catch {
    // Bad input names its file, line and field; the previous tree is as it was.
    print("build failed: \(error)")
    exit(1)
}
// snippet.end
