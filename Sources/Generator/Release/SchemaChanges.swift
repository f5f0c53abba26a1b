import Schemas

/// Classifies the change between two versions of an output's JSON Schema from the point of view
/// of apps already installed (readers of the old shape):
/// - breaking: a required property removed (or renamed: removed + added), a type changed or
///   narrowed, an enum value removed, the whole kind removed;
/// - compatible: a property added (optional or required), an enum value added, a description changed.
public struct SchemaChange: Sendable, Equatable {
    public var kind: String
    public var location: String
    public var rule: String
    public var breaking: Bool
}

public enum SchemaChanges {
    public static func compare(kind: String, old: JSON, new: JSON) -> [SchemaChange] {
        var out: [SchemaChange] = []
        walk(kind, old, new, "", &out)
        return out
    }

    static func types(_ s: JSON) -> Set<String>? {
        switch s["type"] {
        case .string(let t)?: return [t]
        case .array(let a)?: return Set(a.compactMap(\.stringValue))
        default:
            // Schema.nullable: anyOf [X, {"type":"null"}]
            if let any = s["anyOf"]?.arrayValue {
                var all = Set<String>()
                for a in any { guard let t = types(a) else { return nil }; all.formUnion(t) }
                return all
            }
            return nil
        }
    }

    /// The non-null branch of a nullable schema, or the schema itself.
    static func core(_ s: JSON) -> JSON {
        if let any = s["anyOf"]?.arrayValue, let x = any.first(where: { $0["type"]?.stringValue != "null" }) { return x }
        return s
    }

    private static func walk(_ kind: String, _ old: JSON, _ new: JSON, _ at: String, _ out: inout [SchemaChange]) {
        let here = at.isEmpty ? "/" : at
        if let ot = types(old), let nt = types(new), ot != nt {
            // Integer → number is a widening for numbers; everything else is a change old readers may reject.
            let widened = nt.isSuperset(of: ot)
            out.append(SchemaChange(kind: kind, location: here,
                                    rule: widened ? "type widened \(ot.sorted()) → \(nt.sorted())" : (ot.isSuperset(of: nt) ? "type narrowed \(ot.sorted()) → \(nt.sorted())" : "type changed \(ot.sorted()) → \(nt.sorted())"),
                                    breaking: true))
        }
        let o = core(old), n = core(new)
        if let oe = o["enum"]?.arrayValue {
            let ne = n["enum"]?.arrayValue ?? []
            for v in oe where !ne.contains(v) {
                out.append(SchemaChange(kind: kind, location: here, rule: "enum value \(v.compactText) removed", breaking: true))
            }
            for v in ne where !oe.contains(v) {
                out.append(SchemaChange(kind: kind, location: here, rule: "enum value \(v.compactText) added", breaking: false))
            }
        }
        let oReq = Set(o["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let nReq = Set(n["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let oProps = o["properties"]?.objectValue, nProps = n["properties"]?.objectValue
        for k in oReq.sorted() where !nReq.contains(k) {
            let gone = nProps?[k] == nil
            out.append(SchemaChange(kind: kind, location: "\(at)/\(k)", rule: gone ? "required property removed" : "required property made optional", breaking: true))
        }
        if let oProps, let nProps {
            for m in oProps.members {
                if let nv = nProps[m.key] { walk(kind, m.value, nv, "\(at)/\(m.key)", &out) }
                else if !oReq.contains(m.key) {
                    out.append(SchemaChange(kind: kind, location: "\(at)/\(m.key)", rule: "optional property removed", breaking: false))
                }
            }
            for m in nProps.members where oProps[m.key] == nil {
                out.append(SchemaChange(kind: kind, location: "\(at)/\(m.key)",
                                        rule: nReq.contains(m.key) ? "required property added" : "optional property added", breaking: false))
            }
        }
        if let oi = o["items"], let ni = n["items"] { walk(kind, oi, ni, "\(at)/[]", &out) }
        if let oa = o["additionalProperties"], let na = n["additionalProperties"], oa.objectValue != nil, na.objectValue != nil {
            walk(kind, oa, na, "\(at)/*", &out)
        }
    }
}
