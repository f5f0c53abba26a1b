import Foundation
import Schemas

extension CollectionsDomain {
    /// Declared sort keys (missing and null last, whatever the order), then the id, so order never depends on input order.
    static func precedes(_ a: CollectionItem, _ b: CollectionItem, _ decl: CollectionDeclaration) -> Bool {
        for key in decl.sort {
            let x = a.values[key.field], y = b.values[key.field]
            let xNull = x == nil || x!.isNull, yNull = y == nil || y!.isNull
            if xNull != yNull { return !xNull }
            if xNull { continue }
            if let c = compare(x!, y!), c != 0 { return key.descending ? c > 0 : c < 0 }
        }
        if let c = compare(a.values[decl.idField]!, b.values[decl.idField]!), c != 0 { return c < 0 }
        return a.id < b.id
    }

    static func compare(_ x: JSON, _ y: JSON) -> Int? {
        switch (x, y) {
        case (.number(let a), .number(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.string(let a), .string(let b)): return a == b ? 0 : (a < b ? -1 : 1)   // ISO dates sort as text
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (!a ? -1 : 1)
        default: return nil
        }
    }
}
