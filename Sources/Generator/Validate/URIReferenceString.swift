/// URI references held as plain strings.
enum URIReferenceString {
    static func stripFragment(_ s: String) -> String { s.split(separator: "#", maxSplits: 1).first.map(String.init) ?? s }
}
