import Foundation

/// Runs an outside command for a test (through `/usr/bin/env`, so it is found on PATH) and waits for it.
public enum Command {
    /// `arguments` run in `folder` (the test's own working folder when nil): the exit status and everything the
    /// command wrote, standard output and standard error together (what a failed assertion should show).
    public static func run(_ arguments: [String], in folder: URL? = nil) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        if let folder { p.currentDirectoryURL = folder }
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, output)
    }
}
