import XCTest
import Foundation
@testable import Generator
import Schemas

/// app-config.json carries the build time, so a new build time alone makes no release; but its versions and features
/// are content: a new minimumAppVersion (how apps are told to update) must make a release, not be dropped.
final class AppConfigReleaseTests: XCTestCase {
    func testAppConfigSettingsMakeARelease() throws {
        let input = OutputGuardTests.smallInput()
        let out = TestSupport.tempDir("appconfig").appendingPathComponent("dist")
        let first = try Build.run(BuildOptions(input: input, output: out, epochSeconds: 1_700_000_000))
        XCTAssertEqual(first.version, 1)

        // Only the build time differs: no release.
        let again = try Build.run(BuildOptions(input: input, output: out, epochSeconds: 1_700_100_000))
        XCTAssertFalse(again.changed)

        // A new minimumAppVersion: release 2, published in app-config.json and the update manifest.
        let siteURL = input.appendingPathComponent("site.json")
        var site = try JSONSerialization.jsonObject(with: Data(contentsOf: siteURL)) as! [String: Any]
        site["appVersion"] = "3.0.0"; site["minimumAppVersion"] = "3.0.0"
        try JSONSerialization.data(withJSONObject: site).write(to: siteURL)
        let second = try Build.run(BuildOptions(input: input, output: out, epochSeconds: 1_700_200_000))
        XCTAssertTrue(second.changed)
        XCTAssertEqual(second.version, 2)
        let config = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("app-config.json")))
        XCTAssertEqual(config["minimumAppVersion"]?.stringValue, "3.0.0")
        let manifest = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("update-manifest.json")))
        XCTAssertEqual(manifest["minimumAppVersion"]?.stringValue, "3.0.0")
        XCTAssertEqual(manifest["version"]?.intValue, 2)
    }
}
