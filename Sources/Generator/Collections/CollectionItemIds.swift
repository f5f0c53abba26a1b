import Foundation
import Schemas

/// The ids of a collection's items, as they are admitted: each must be unique, usable as a file name, and not share
/// its file (`items/{id}.json`) with another id on a case-insensitive file system.
struct CollectionItemIds {
    /// The declaration of the id field (its `from` names the field in messages).
    let idField: CollectionDeclaration.Field
    private var firstSeen: [String: (file: String, line: Int)] = [:]
    private var paths = CollisionDetector()

    init(idField: CollectionDeclaration.Field) { self.idField = idField }

    /// The item of a record's converted `values`, its id admitted; or the error naming the record's file and line.
    mutating func item(_ values: JSONObject, _ decl: CollectionDeclaration, file: String, line: Int) throws(BuildError) -> CollectionItem {
        let idValue = values[decl.idField]!
        let id = idValue.stringValue ?? idValue.numberValue!.description
        let segment: String
        do { segment = try SafePath.segment(id) } catch {
            throw BuildError(file: file, line: line, field: idField.from, "id \(Excerpt.quote(id)) cannot be a file name: it \(error)")
        }
        if let (firstFile, firstLine) = firstSeen[id] {
            throw BuildError(file: file, line: line, field: idField.from, "duplicate id \(Excerpt.quote(id)) (first at \(firstFile):\(firstLine))")
        }
        if let other = paths.claim(path: segment, id: id) {
            throw BuildError(file: file, line: line, field: idField.from, "id \(Excerpt.quote(id)) would share the file items/\(Excerpt.text(segment)).json with id \(Excerpt.quote(other)) on a case-insensitive file system")
        }
        firstSeen[id] = (file, line)
        return CollectionItem(id: id, segment: segment, values: values)
    }
}
