import Foundation

/// Writes JSON text straight from typed values, for outputs too many or too large to build as `JSON` first
/// (100,000 product pages, a 90 MB search index): no value per field, nothing to free afterwards. The bytes are
/// the ones `JSONWriter` (compact) gives for the same value: same escaping, same number forms.
///
/// The caller writes members in order; commas and colons are placed here. Structure is the caller's to keep
/// balanced; the result is meant to be checked against its schema from the text (`JSONSchemaValidator.isValid(text:)`),
/// which also catches a malformed stream.
public final class JSONStream {
    /// The buffer and the comma flag live behind a pointer: a class's stored `var`s are checked for exclusive access
    /// at run time on every use, which costs more than the writing itself.
    private struct State {
        var sink: ByteSink
        /// Whether the next member or element needs a comma before it.
        var needsComma = false
    }
    private let state: UnsafeMutablePointer<State>
    private var sink: ByteSink {
        @inline(__always) _read { yield state.pointee.sink }
        @inline(__always) _modify { yield &state.pointee.sink }
    }
    private var needsComma: Bool {
        @inline(__always) get { state.pointee.needsComma }
        @inline(__always) set { state.pointee.needsComma = newValue }
    }

    public init(capacity: Int = 4096) {
        state = .allocate(capacity: 1)
        state.initialize(to: State(sink: ByteSink(capacity: capacity)))
    }
    deinit {
        state.pointee.sink.release()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Bytes written so far.
    public var count: Int { sink.count }

    /// Lends the bytes written so far, without copying (a search index is 90 MB).
    public func withSpan<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R { try sink.withSpan(body) }

    /// Replaced by `withSpan(_:)`; kept until the callers in Generator have moved.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: sink.base, count: sink.count))
    }

    /// A copy of the bytes written so far.
    public var bytes: [UInt8] { sink.array }

    /// Empties the stream, keeping its buffer (to write many small documents with one allocation).
    public func reset() { sink.count = 0; needsComma = false }

    /// Moves the text written so far to the end of `out` and empties the buffer, keeping the writer's state: a long
    /// text is built in an array a piece at a time, its large parts (text made elsewhere) appended to the array itself.
    public func drain(into out: inout [UInt8]) {
        sink.append(to: &out)
        sink.count = 0
    }

    /// Like `raw`, a value (or run of values) already text, but appended to `out` after the text so far is drained
    /// there (see `drain`): a large value goes into the array without passing through this buffer.
    public func raw(_ fragment: Span<UInt8>, drainingInto out: inout [UInt8]) {
        fragment.withUnsafeBytes { raw($0, drainingInto: &out) }
    }

    /// Replaced by `raw(_:drainingInto:)` taking a `Span<UInt8>`; kept until the callers in Generator have moved.
    public func raw(_ fragment: UnsafeRawBufferPointer, drainingInto out: inout [UInt8]) {
        separate()
        drain(into: &out)
        out.append(contentsOf: fragment)
    }

    @inline(__always) private func separate() {
        if needsComma { sink.byte(0x2C) }
        needsComma = true
    }

    public func beginObject() { separate(); sink.byte(0x7B); needsComma = false }
    public func endObject() { sink.byte(0x7D); needsComma = true }
    public func beginArray() { separate(); sink.byte(0x5B); needsComma = false }
    public func endArray() { sink.byte(0x5D); needsComma = true }

    /// A member name known at compile time, copied as is when it is ASCII with nothing to escape (a few bytes to
    /// look at); any other goes through the escaping path.
    public func key(_ k: StaticString) {
        guard k.hasPointerRepresentation,
              UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount).allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != 0x22 && $0 != 0x5C })
        else { return key(k.description) }
        separate()
        sink.reserve(k.utf8CodeUnitCount + 3)
        sink.byte(0x22)
        sink.bytes(UnsafeRawBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount))
        sink.byte(0x22); sink.byte(0x3A)
        needsComma = false
    }

    /// A member name from data (escaped as needed). Disfavoured, so a literal name takes the overload above (a string
    /// literal would otherwise pick `String`, and every member name would be scanned for escapes).
    @_disfavoredOverload
    public func key(_ k: String) {
        separate()
        JSONWriter.writeString(k, &sink)
        sink.byte(0x3A)
        needsComma = false
    }

    public func string(_ s: String) { separate(); JSONWriter.writeString(s, &sink) }
    /// A string given as its UTF-8 bytes (valid UTF-8; escaped as needed): no `String` made.
    public func string(utf8: Span<UInt8>) { separate(); JSONWriter.writeEscaped(utf8, &sink) }
    /// The string given as its UTF-8 bytes, or `null` when absent.
    public func string(utf8: Span<UInt8>?) { if let utf8 { string(utf8: utf8) } else { null() } }
    /// The string, or `null` when absent.
    public func string(_ s: String?) { if let s { string(s) } else { null() } }
    public func int(_ v: Int) { separate(); JSONWriter.writeInt(v, &sink) }
    public func bool(_ b: Bool) { separate(); sink.ascii(b ? "true" : "false") }
    public func null() { separate(); sink.ascii("null") }

    /// A number; NaN, infinities and text that is not a number literal are refused (JSON has no spelling for them),
    /// with the JSON Pointer of the member or element they were for.
    public func number(_ n: JSONNumber) throws {
        separate()
        do { try JSONWriter.writeNumber(n, &sink) } catch let e as JSONWriter.PathError {
            throw JSONWriteError(path: withSpan { JSONStream.pointer(at: $0) }, message: e.message)
        }
    }
    public func double(_ d: Double) throws { try number(JSONNumber(d)) }
    /// The number, or `null` when absent.
    public func double(_ d: Double?) throws { if let d { try double(d) } else { null() } }

    /// A value built as `JSON` (for the small parts of a streamed document).
    public func value(_ v: JSON) throws { separate(); try JSONWriter().write(v, &sink) }

    /// The JSON Pointer of the value that would follow `prefix` (text written so far, ending after a member name's
    /// colon or an element's comma or bracket). Worked out from the bytes only when a value is refused, so writing
    /// keeps no path at all.
    static func pointer(at prefix: Span<UInt8>) -> String {
        enum Level { case object(key: String), array(index: Int) }
        var levels: [Level] = []
        var i = 0
        let b = prefix
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "{"): levels.append(.object(key: ""))
            case UInt8(ascii: "["): levels.append(.array(index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = levels.popLast()
            case UInt8(ascii: ","): if case .array(let k)? = levels.last { levels[levels.count - 1] = .array(index: k + 1) }
            case UInt8(ascii: "\""):
                // A string: a member name when a colon follows it.
                let start = i
                i += 1
                while i < b.count, b[i] != UInt8(ascii: "\"") { i += b[i] == UInt8(ascii: "\\") ? 2 : 1 }
                let end = min(i + 1, b.count)
                if end < b.count, b[end] == UInt8(ascii: ":"), case .object? = levels.last {
                    let name = (try? JSONReader.parse(b.extracting(start..<end)))?.stringValue ?? ""
                    levels[levels.count - 1] = .object(key: name)
                }
            default: break
            }
            i += 1
        }
        let parts = levels.map { level -> String in
            switch level {
            case .object(let key): return key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            case .array(let index): return String(index)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Text already written by this writer: one complete value (a list entry shared by many documents), or several
    /// values or members separated by commas (a chunk of a list or of an object written on another thread).
    public func raw(_ fragment: Span<UInt8>) { separate(); sink.bytes(fragment) }
    public func raw(_ fragment: [UInt8]) { separate(); sink.bytes(fragment) }
    /// More of the text begun by the last `raw` (a long fragment copied in parts).
    public func append(_ more: Span<UInt8>) { sink.bytes(more) }
    public func append(_ more: [UInt8]) { sink.bytes(more) }
    /// Replaced by `raw(_:)` taking a `Span<UInt8>` or `[UInt8]`; kept until the callers in Generator have moved.
    public func raw(_ fragment: UnsafeRawBufferPointer) { separate(); sink.bytes(fragment) }
    /// Replaced by `append(_:)` taking a `Span<UInt8>` or `[UInt8]`; kept until the callers in Generator have moved.
    public func append(_ more: UnsafeRawBufferPointer) { sink.bytes(more) }
}
