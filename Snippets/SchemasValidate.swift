// Schemas: read JSON exactly (numbers keep their digits), check it against a JSON Schema (draft 2020-12), write it
// back deterministically. Run it: swift run SchemasValidate
import Schemas

// snippet.show
let schema = try JSONReader.parse(Array(#"""
{"type": "object", "required": ["id", "price"],
 "properties": {"id": {"type": "string", "minLength": 1}, "price": {"type": "number", "minimum": 0}}}
"""#.utf8))
let validator = try JSONSchemaValidator(schema: schema)

let good = try JSONReader.parse(Array(#"{"price": 19.990, "id": "p-1"}"#.utf8))
let bad = try JSONReader.parse(Array(#"{"id": "", "price": -1}"#.utf8))
print("good is valid:", validator.isValid(good))
for e in validator.validate(bad) {
    print("bad: \(e.instanceLocation) violates \(e.keywordLocation): \(e.message)")
}
// Members keep their order and numbers their text: the same value is always written with the same bytes.
print(try JSONWriter().string(good))
// snippet.end
