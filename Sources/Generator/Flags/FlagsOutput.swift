import Foundation
import Schemas

/// `config/flags.json`: the feature flags and the update policy per platform, as `input/flags.json` declares them,
/// evaluated on the device by `TreeClient.FeatureFlags`, `flags/flags.js` and `generator flags`.
enum FlagsOutput {
    static let path = "config/flags.json"

    /// Any JSON value but null (a flag's default, a rule's value).
    static let value: JSON = ["type": ["boolean", "number", "string", "array", "object"], "items": .obj([:])]
    static let version = Schema.string(pattern: #"^\d{1,9}(\.\d{1,9}){0,7}$"#)
    static let comparator = #"(>=|<=|>|<|=)\d{1,9}(\.\d{1,9}){0,7}"#

    /// Attribute → the values it may have; `appVersion` → a version range.
    static let when: JSON = .obj([
        "type": "object",
        "properties": .obj(["appVersion": Schema.string(pattern: "^\(comparator)( \(comparator))*$")]),
        "additionalProperties": Schema.array(Schema.nonEmptyString, minItems: 1),
    ])

    /// A rule decides with a value, or with a rollout's value for a share of the units (never both).
    static let rule: JSON = .obj(["anyOf": [
        Schema.object(["when": Schema.optional(when), "value": value]),
        Schema.object(["when": Schema.optional(when), "rollout": Schema.object(["percent": Schema.number(min: 0, max: 100), "value": value])]),
    ]])

    static let kind = OutputKind(
        name: "flags", pathTemplate: path,
        summary: "Feature flags (rules by platform, app version and attributes; percentage rollouts bucketed by SHA-256 of \"flag:unit\") and the update policy per platform.",
        schema: Schema.object([
            "format": Schema.integer(min: 1, max: 1),
            "flags": Schema.map(Schema.object([
                "description": Schema.optional(Schema.string),
                "default": value,
                "rules": Schema.array(rule),
            ])),
            "updates": Schema.map(Schema.object([
                "minimum": Schema.optional(version), "recommended": Schema.optional(version),
                "blocked": Schema.optional(Schema.array(version, minItems: 1)),
            ])),
        ]),
        typeName: "FeatureFlags")

    /// The browser evaluator, `flags/flags.js`: the same bytes in every tree (it finds `config/flags.json` from its
    /// own URL).
    static let script = AssetKind(
        name: "flags-script", pathTemplate: "flags/flags.js", mediaType: "text/javascript; charset=utf-8",
        summary: "Feature flags in the browser: an ES module exporting loadFlags() and evaluate(doc, context), the same values and update status as TreeClient's FeatureFlags.")
}
