import XCTest
import Foundation
import TestTools

/// The publishing workflow passes scripts/lint-workflow.py: actionlint, zizmor (nothing of medium severity or above),
/// check-jsonschema's GitHub-workflow schema, shellcheck and `bash -n` on every run script, our structure and
/// publishing-contract checks, and generator commands and options that exist. Without a linter the tests skip with
/// the command that installs it (`scripts/test` installs them all, and requires them).
final class WorkflowTests: XCTestCase {
    let workflow = TestSupport.repoRoot.appendingPathComponent(".github/workflows/publish.yml")
    let lint = TestSupport.repoRoot.appendingPathComponent("scripts/lint-workflow.py")
    static let linters = ["actionlint", "zizmor", "check-jsonschema", "shellcheck"]

    /// The python3 found on PATH, by the full path of the interpreter itself (a test below runs the linter with a
    /// PATH of its own, where a pyenv shim could not run).
    static let python: String = {
        if let r = try? TestSupport.run(["python3", "-c", "import sys; print(sys.executable)"]), r.status == 0 {
            return r.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return "/usr/bin/python3"
    }()
    var python: String { Self.python }

    /// The linter needs PyYAML and every outside linter it runs.
    override func setUpWithError() throws {
        try Tool.require(.python3, .yaml, .actionlint, .zizmor, .checkJSONSchema, .shellcheck)
    }

    func runLint(_ file: URL, env: [String: String] = [:]) throws -> (status: Int32, output: String) {
        try TestSupport.run([python, lint.path, file.path, TestSupport.generatorBinary.path], env: env)
    }

    func testPublishWorkflowPassesTheLinter() throws {
        let r = try runLint(workflow)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("publish.yml: OK"), r.output)
        // Each linter ran for real (its version is printed), none was skipped.
        let ran = r.output.split(separator: "\n").first { $0.hasPrefix("linters run: ") } ?? ""
        for tool in Self.linters {
            XCTAssertNotNil(ran.range(of: "\(tool) [0-9]+\\.[0-9]+", options: .regularExpression), "\(tool) did not run: \(r.output)")
        }
    }

    /// The linter is not a rubber stamp: each defect below is reported, each by the check named first. The expected
    /// words are ones only that check prints (a rule name, a code), never words of the message for a missing linter.
    func testLinterCatchesDefects() throws {
        let original = try String(contentsOf: workflow, encoding: .utf8)
        let defects: [(check: String, expected: String, mutate: (String) -> String)] = [
            ("shellcheck", "SC2086", { $0.replacingOccurrences(of: #">> "$GITHUB_STEP_SUMMARY""#, with: #">> $GITHUB_STEP_SUMMARY"#) }),
            ("bash -n", "bash -n: ", { $0.replacingOccurrences(of: "          fi\n", with: "          fii\n") }),
            ("actionlint", "[runner-label]", { $0.replacingOccurrences(of: "    runs-on: ubuntu-24.04\n    timeout-minutes: 10", with: "    runs-on: ubuntu-24.4\n    timeout-minutes: 10") }),
            ("zizmor", "zizmor: [artipacked]", { $0.replacingOccurrences(of: "          persist-credentials: false\n", with: "          fetch-depth: 1\n") }),
            ("zizmor", "zizmor: [unpinned-uses]", { $0.replacingOccurrences(of: "actions/deploy-pages@cd2ce8fcbc39b97be8ca5fce6e763baed58fa128 # v5.0.0", with: "actions/deploy-pages@v5") }),
            ("check-jsonschema", "Schema validation errors", { $0.replacingOccurrences(of: "timeout-minutes: 30", with: "timeout-minutes: thirty") }),
            ("pins", "is not pinned to a full commit SHA", { $0.replacingOccurrences(of: "actions/cache@55cc8345863c7cc4c66a329aec7e433d2d1c52a9 # v6.1.0", with: "actions/cache@v6.1.0") }),
            ("pins", "has no version comment", { $0.replacingOccurrences(of: "55cc8345863c7cc4c66a329aec7e433d2d1c52a9 # v6.1.0", with: "55cc8345863c7cc4c66a329aec7e433d2d1c52a9") }),
            ("checkout", "must set persist-credentials: false", { $0.replacingOccurrences(of: "persist-credentials: false", with: "persist-credentials: true") }),
            ("template injection", "inside run:", { $0.replacingOccurrences(of: "exited $DIFF_STATUS (1:", with: "exited ${{ steps.diff.outputs.status }} (1:") }),
            ("permissions", "permission pull-requests: write is not needed", { $0.replacingOccurrences(of: "      contents: read # to check out the repository\n", with: "      contents: read # to check out the repository\n      pull-requests: write\n") }),
            ("permissions", "no top-level permissions", { $0.replacingOccurrences(of: "\npermissions: {}\n", with: "\n") }),
            ("commands", "has no command 'deploy'", { $0.replacingOccurrences(of: "generator validate dist", with: "generator deploy dist") }),
            ("options", "has no option '--fail-onn'", { $0.replacingOccurrences(of: "--fail-on \"$fail_on\"", with: "--fail-onn \"$fail_on\"") }),
            ("deploy", "does not use actions/deploy-pages", { $0.replacingOccurrences(of: "uses: actions/deploy-pages@", with: "uses: actions/upload-artifact@") }),
            ("deploy", "must deploy only from main", { $0.replacingOccurrences(of: "    needs: build\n    if: (needs.build.outputs.changed == 'true' || needs.build.outputs.renewed == 'true') && github.ref == 'refs/heads/main' && github.event_name != 'pull_request'", with: "    needs: build\n    if: (needs.build.outputs.changed == 'true' || needs.build.outputs.renewed == 'true') && github.event_name != 'pull_request'") }),
            ("deploy", "include-hidden-files: true", { $0.replacingOccurrences(of: "include-hidden-files: true", with: "include-hidden-files: false") }),
            ("live site", "built with --previous from the live site", { $0.replacingOccurrences(of: #"--previous "$PAGES_URL""#, with: "--previous dist") }),
            ("live site", "must not hold release state", { $0.replacingOccurrences(of: "          path: .build\n", with: "          path: |\n            .build\n            dist\n") }),
            // (The renewal step syncs the live tree too, into dist: the diff is then the one left without it.)
            ("live site", "the diff must compare against the release fetched by generator sync", { $0.replacingOccurrences(of: #"generator sync "$PAGES_URL" previous"#, with: "mkdir -p previous") }),
            ("contract", "--fail-on breaking", { $0.replacingOccurrences(of: "fail_on=breaking", with: "fail_on=never") }),
            ("structure", "unknown key 'run-on'", { $0.replacingOccurrences(of: "    runs-on: ubuntu-24.04\n    timeout-minutes: 30", with: "    run-on: ubuntu-24.04\n    timeout-minutes: 30") }),
        ]
        // Each defect in a folder of its own, all linted in one run (each outside linter starts once; a workflow it
        // flags is linted again on its own): each workflow gets its own report, ending with its own summary line.
        let files = try defects.map { d -> URL in
            let f = TestSupport.tempDir("workflow").appendingPathComponent("publish.yml")
            try d.mutate(original).write(to: f, atomically: true, encoding: .utf8)
            return f
        }
        // The workflow as it is, linted beside them.
        let runs = TestSupport.concurrently(2) { i in
            i == 0 ? try self.runLint(self.workflow) : try TestSupport.run([self.python, self.lint.path] + files.map(\.path) + [TestSupport.generatorBinary.path])
        }
        let baseline = try runs[0].get().output, all = try runs[1].get()
        XCTAssertEqual(all.status, 1, all.output)
        XCTAssertFalse(all.output.contains("not found on PATH"), "a linter is missing: \(all.output)")
        let reports = Self.reports(all.output, files.map(\.path))
        for (i, (check, expected, mutate)) in defects.enumerated() {
            let broken = mutate(original)
            XCTAssertNotEqual(broken, original, "\(check): the mutation for '\(expected)' did not apply")
            XCTAssertFalse(baseline.contains(expected), "\(check): '\(expected)' is reported without the defect: \(baseline)")
            let r = try XCTUnwrap(reports[files[i].path], "\(check): no report for \(files[i].path) in: \(all.output)")
            XCTAssertTrue(r.hasSuffix(" problem(s)"), "\(check): \(r)")
            XCTAssertTrue(r.contains(expected), "\(check): expected '\(expected)' in: \(r)")
        }
        // A report is the workflow's own: a workflow linted alone gives the same lines (one flagged by actionlint,
        // one by check-jsonschema, the two linters run once over all of them).
        let alone = [2, 5], single = TestSupport.concurrently(alone.count) { k in try self.runLint(files[alone[k]]) }
        for (k, i) in alone.enumerated() {
            let r = try single[k].get()
            XCTAssertEqual(r.status, 1, r.output)
            XCTAssertEqual(Self.reports(r.output, [files[i].path])[files[i].path], reports[files[i].path])
        }
    }

    /// Each workflow's report in the output of one run: its problem lines and its summary line (`PATH: OK` or
    /// `PATH: N problem(s)`), as one text.
    static func reports(_ output: String, _ paths: [String]) -> [String: String] {
        var reports: [String: String] = [:], lines: [Substring] = []
        for line in output.split(separator: "\n") {
            if line.hasPrefix("linters run: ") { break }
            lines.append(line)
            if let path = paths.first(where: { line == "\($0): OK" || (line.hasPrefix("\($0): ") && line.hasSuffix(" problem(s)")) }) {
                reports[path] = lines.joined(separator: "\n")
                lines = []
            }
        }
        return reports
    }

    /// A linter that is not installed fails the lint, and says how to install it; the others still run.
    func testMissingLinterFailsWithTheInstallCommand() throws {
        let install: [String: Tool] = ["actionlint": .actionlint, "zizmor": .zizmor, "check-jsonschema": .checkJSONSchema,
                                       "shellcheck": .shellcheck]
        func which(_ tool: String) -> String? { install[tool]?.location ?? Tool(.program(tool), from: .apt(tool)).location }
        // For each linter, a PATH holding bash and every linter but that one; linted two at a time.
        var bins: [URL] = []
        for absent in Self.linters {
            let bin = TestSupport.tempDir("bin-without-\(absent)")
            for tool in ["bash"] + Self.linters where tool != absent {
                let found = try XCTUnwrap(which(tool), "\(tool) is not installed")
                try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent(tool).path, withDestinationPath: found)
            }
            bins.append(bin)
        }
        let runs = TestSupport.concurrently(bins.count) { k in try self.runLint(self.workflow, env: ["PATH": bins[k].path]) }
        for (k, absent) in Self.linters.enumerated() {
            let r = try runs[k].get()
            XCTAssertEqual(r.status, 1, "\(absent): \(r.output)")
            XCTAssertTrue(r.output.contains("\(absent) not found on PATH; install it with: "), "\(absent): \(r.output)")
            XCTAssertTrue(r.output.contains(install[absent]!.installCommand), "\(absent): no install command in: \(r.output)")
            let ran = r.output.split(separator: "\n").first { $0.hasPrefix("linters run: ") } ?? ""
            for tool in Self.linters {
                XCTAssertEqual(ran.contains("\(tool) "), tool != absent, "\(absent) absent, \(tool): \(ran)")
            }
        }
    }
}
