import Foundation
import Schemas

/// A collection as read and checked: its declaration and its items in output order (see `CollectionsDomain.precedes`).
struct CollectionModel {
    let declaration: CollectionDeclaration
    let items: [CollectionItem]
    let report: [ReportItem]
}

/// One record, converted to its declared types.
struct CollectionItem {
    let id: String
    /// The id as a file name (`items/{segment}.json`).
    let segment: String
    let values: JSONObject
}
