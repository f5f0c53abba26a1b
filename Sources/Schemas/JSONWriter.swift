import Foundation

/// A value the writer refuses (NaN or ±Infinity), with the path of the field holding it.
public struct JSONWriteError: Error, CustomStringConvertible {
    public let path: String
    public let message: String
    public var description: String { "\(path): \(message)" }
}

/// Deterministic byte writer: members in declared order, shortest round-trip doubles,
/// whole numbers without ".0", "/" never escaped, control characters as \uXXXX (with the
/// usual short forms for \b \f \n \r \t), compact by default or pretty with 2-space indents.
public struct JSONWriter {
    public var pretty: Bool
    public init(pretty: Bool = false) { self.pretty = pretty }

    public func data(_ value: JSON) throws -> Data { Data(try bytes(value)) }

    public func bytes(_ value: JSON) throws -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(256)
        try write(value, into: &out)
        return out
    }

    public func string(_ value: JSON) throws -> String { String(decoding: try bytes(value), as: UTF8.self) }

    public func write(_ value: JSON, into out: inout [UInt8]) throws {
        do {
            try emit(value, &out, 0)
            if pretty { out.append(0x0A) }
        } catch let e as PathError {
            throw JSONWriteError(path: "/" + e.components.reversed().joined(separator: "/"), message: e.message)
        }
    }

    private struct PathError: Error { var components: [String]; let message: String }

    private func emit(_ value: JSON, _ out: inout [UInt8], _ depth: Int) throws {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): b ? out.append(contentsOf: [0x74, 0x72, 0x75, 0x65]) : out.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .number(let n): try JSONWriter.writeNumber(n, &out)
        case .string(let s): JSONWriter.writeString(s, &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            if items.isEmpty { out.append(UInt8(ascii: "]")); return }
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, depth + 1) }
                do { try emit(item, &out, depth + 1) } catch var e as PathError {
                    e.components.append(String(i)); throw e
                }
            }
            if pretty { newline(&out, depth) }
            out.append(UInt8(ascii: "]"))
        case .object(let obj):
            out.append(UInt8(ascii: "{"))
            if obj.isEmpty { out.append(UInt8(ascii: "}")); return }
            for (i, m) in obj.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, depth + 1) }
                JSONWriter.writeString(m.key, &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(0x20) }
                do { try emit(m.value, &out, depth + 1) } catch var e as PathError {
                    e.components.append(m.key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1"))
                    throw e
                }
            }
            if pretty { newline(&out, depth) }
            out.append(UInt8(ascii: "}"))
        }
    }

    @inline(__always) private func newline(_ out: inout [UInt8], _ depth: Int) {
        out.append(0x0A)
        for _ in 0..<(depth * 2) { out.append(0x20) }
    }

    private static func writeNumber(_ n: JSONNumber, _ out: inout [UInt8]) throws {
        switch n.storage {
        case .int(let i): writeInt(i, &out)
        case .double(let d):
            guard d.isFinite else { throw PathError(components: [], message: "\(d) is not representable in JSON") }
            out.append(contentsOf: JSONNumber.format(d).utf8)
        case .text(let t): out.append(contentsOf: t.utf8)
        }
    }

    private static func writeInt(_ v: Int, _ out: inout [UInt8]) {
        if v == 0 { out.append(0x30); return }
        if v == Int.min { out.append(contentsOf: String(v).utf8); return }
        var n = v
        if n < 0 { out.append(UInt8(ascii: "-")); n = -n }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var len = 0
        withUnsafeMutableBytes(of: &tmp) { p in
            while n > 0 { p[len] = UInt8(0x30 + n % 10); n /= 10; len += 1 }
            for k in stride(from: len - 1, through: 0, by: -1) { out.append(p[k]) }
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, _ out: inout [UInt8]) {
        out.append(0x22)
        var s = s
        s.withUTF8 { buf in
            var runStart = 0
            for i in 0..<buf.count {
                let c = buf[i]
                guard c < 0x20 || c == 0x22 || c == 0x5C else { continue }
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[runStart..<i])) }
                runStart = i + 1
                switch c {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
                case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default:
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 0xF)]])
                }
            }
            if runStart < buf.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[runStart..<buf.count])) }
        }
        out.append(0x22)
    }
}

extension JSON {
    /// Compact JSON text (for messages and tests).
    public var compactText: String { (try? JSONWriter().string(self)) ?? "<unwritable>" }
}
