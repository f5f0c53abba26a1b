import XCTest
import Foundation

/// The publishing workflow passes scripts/lint-workflow.py (structure, our publishing contract, bash -n and
/// shellcheck on every run script, generator commands that exist; actionlint too when it is installed).
final class WorkflowTests: XCTestCase {
    let workflow = TestSupport.repoRoot.appendingPathComponent(".github/workflows/publish.yml")
    let lint = TestSupport.repoRoot.appendingPathComponent("scripts/lint-workflow.py")

    func testPublishWorkflowPassesTheLinter() throws {
        let r = try TestSupport.run(["python3", lint.path, workflow.path, TestSupport.generatorBinary.path])
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("publish.yml: OK"), r.output)
    }

    /// The linter is not a rubber stamp: each defect below is reported.
    func testLinterCatchesDefects() throws {
        let original = try String(contentsOf: workflow, encoding: .utf8)
        let defects: [(String, (String) -> String)] = [
            ("shellcheck", { $0.replacingOccurrences(of: #"cat diff.md >> "$GITHUB_STEP_SUMMARY""#, with: #"cat diff.md >> $GITHUB_STEP_SUMMARY"#) }),
            ("has no command 'publish'", { $0.replacingOccurrences(of: "generator validate dist", with: "generator publish dist") }),
            ("does not use actions/deploy-pages", { $0.replacingOccurrences(of: "actions/deploy-pages@v4", with: "actions/upload-artifact@v4") }),
            ("--fail-on breaking", { $0.replacingOccurrences(of: "fail_on=breaking", with: "fail_on=never") }),
            ("unknown key 'run-on'", { $0.replacingOccurrences(of: "    runs-on: ubuntu-latest\n    timeout", with: "    run-on: ubuntu-latest\n    timeout") }),
            ("bash -n", { $0.replacingOccurrences(of: "          fi\n", with: "          fii\n") }),
        ]
        let dir = TestSupport.tempDir("workflow")
        for (expected, mutate) in defects {
            let broken = mutate(original)
            XCTAssertNotEqual(broken, original, "mutation for \(expected) did not apply")
            let f = dir.appendingPathComponent("publish.yml")
            try broken.write(to: f, atomically: true, encoding: .utf8)
            let r = try TestSupport.run(["python3", lint.path, f.path, TestSupport.generatorBinary.path])
            XCTAssertEqual(r.status, 1, "\(expected): \(r.output)")
            XCTAssertTrue(r.output.contains(expected), "expected '\(expected)' in: \(r.output)")
        }
    }
}
