import XCTest
import Foundation
@testable import Generator
import Schemas

/// The compact product store gives back every field as it was given, and orders text as Swift strings do (the order
/// the catalog's pages and indexes had when products were objects of strings).
final class ProductStoreTests: XCTestCase {
    func testFieldsRoundTrip() {
        let b = ProductStore.Builder(file: "in/catalog/products.jsonl")
        b.append(id: "b/1", segment: "b-1", name: "Drill", description: "Drill", brand: "ACME", brandKey: "acme", price: JSONNumber(literal: "19.99"),
                 currency: "USD", inStock: false, imageUrl: nil, ratingAverage: nil, ratingCount: 0, categoryId: "tools", extra: [("Color", "Red")], line: 7)
        b.append(id: "a", segment: "a", name: "Sägeblatt", description: "Für Holz", brand: nil, brandKey: nil, price: JSONNumber(5),
                 currency: "EUR", inStock: true, imageUrl: "https://x.example/ä.jpg", ratingAverage: 4.5, ratingCount: 12, categoryId: "", extra: [], line: 9)
        // A description that is the name shares its storage; the image comes after them.
        b.append(id: "c 1", segment: "c-1", name: "Saw", description: "Saw", brand: "ACME", brandKey: "acme", price: nil,
                 currency: "USD", inStock: true, imageUrl: "https://x.example/saw.jpg", ratingAverage: 3, ratingCount: 1, categoryId: "tools", extra: [], line: 11)
        let store = b.finish(order: [1, 0, 2])
        XCTAssertEqual(store.count, 3)
        let c = store[2]
        XCTAssertEqual([c.id, c.segment, c.name, c.description, c.imageUrl, c.brand, c.categoryId], ["c 1", "c-1", "Saw", "Saw", "https://x.example/saw.jpg", "ACME", "tools"])
        XCTAssertTrue(c.descriptionIsName); XCTAssertNil(c.price); XCTAssertEqual(c.ratingAverage, 3); XCTAssertEqual(c.line, 11)
        let a = store[0], d = store[1]
        XCTAssertEqual([a.id, a.segment, a.name, a.description, a.imageUrl, a.currency, a.categoryId], ["a", "a", "Sägeblatt", "Für Holz", "https://x.example/ä.jpg", "EUR", ""])
        XCTAssertNil(a.brand); XCTAssertNil(a.brandKey); XCTAssertEqual(a.brandIndex, -1)
        XCTAssertEqual(a.price?.description, "5"); XCTAssertEqual(a.ratingAverage, 4.5); XCTAssertEqual(a.ratingCount, 12)
        XCTAssertTrue(a.inStock); XCTAssertTrue(a.extra.isEmpty); XCTAssertEqual(a.line, 9); XCTAssertFalse(a.isASCII); XCTAssertFalse(a.descriptionIsName)
        XCTAssertEqual([d.id, d.segment, d.name, d.description, d.brand, d.brandKey, d.currency, d.categoryId], ["b/1", "b-1", "Drill", "Drill", "ACME", "acme", "USD", "tools"])
        XCTAssertNil(d.imageUrl); XCTAssertNil(d.ratingAverage); XCTAssertEqual(d.price?.description, "19.99")
        XCTAssertFalse(d.inStock); XCTAssertEqual(d.extra.map { "\($0.0)=\($0.1)" }, ["Color=Red"]); XCTAssertEqual(d.line, 7)
        XCTAssertTrue(d.isASCII); XCTAssertTrue(d.descriptionIsName); XCTAssertEqual(d.file, "in/catalog/products.jsonl")
    }

    /// `precedes` and `same` against Swift's own comparison of the strings, over ASCII, accented, decomposed
    /// (canonically equal to precomposed), emoji and prefix pairs.
    func testTextOrderIsSwiftStringOrder() {
        let texts = ["", "a", "ab", "abc", "B", "b", "Z", "é", "e\u{301}", "ét", "e\u{301}t", "Éa", "z", "ß", "ss", "😀", "a\u{0}", "10", "9"]
        for x in texts {
            for y in texts {
                let xs = Array(x.utf8)[...], ys = Array(y.utf8)[...]
                let a = xs.span, b = ys.span
                XCTAssertEqual(Product.precedes(a, b), x < y, "\(x.debugDescription) < \(y.debugDescription)")
                XCTAssertEqual(Product.same(a, b), x == y, "\(x.debugDescription) == \(y.debugDescription)")
                let ascii = x.utf8.allSatisfy { $0 < 0x80 } && y.utf8.allSatisfy { $0 < 0x80 }
                if ascii {
                    XCTAssertEqual(Product.precedes(a, b, ascii: true), x < y)
                    XCTAssertEqual(Product.same(a, b, ascii: true), x == y)
                }
            }
        }
    }

    /// The vectorised ASCII test against a byte-at-a-time one: a high byte at every offset of every length up to 80.
    func testIsASCIIFindsAHighByteAnywhere() {
        func isASCII(_ bytes: [UInt8]) -> Bool { let all = bytes[...]; return all.span.isASCII }
        for n in 0...80 {
            var bytes = [UInt8](repeating: 0x61, count: n)
            XCTAssertTrue(isASCII(bytes), "\(n) ASCII bytes")
            for k in 0..<n {
                bytes[k] = 0x80 | UInt8(k % 64)
                XCTAssertFalse(isASCII(bytes), "length \(n), high byte at \(k)")
                bytes[k] = 0x7F
                XCTAssertTrue(isASCII(bytes), "length \(n), 0x7F at \(k)")
                bytes[k] = 0x61
            }
        }
    }

    /// The eight-bytes-at-a-time search against a byte-at-a-time one: every byte value at every offset of every length
    /// up to 40, from every start.
    func testFirstIndexFindsTheFirstByte() {
        for n in 0...40 {
            for k in 0..<max(n, 1) {
                for filler: UInt8 in [0x61, 0x0B, 0x09, 0x8A] {
                    var bytes = [UInt8](repeating: filler, count: n)
                    if k < n { bytes[k] = 0x0A }
                    if k + 3 < n { bytes[k + 3] = 0x0A }
                    let all = bytes[...]
                    for start in 0...n {
                        XCTAssertEqual(all.span.firstIndex(of: 0x0A, from: start), bytes[start...].firstIndex(of: 0x0A), "n \(n), k \(k), start \(start)")
                    }
                }
            }
        }
    }

    func testBytesCompareAsMemcmp() {
        let texts = ["", "a", "ab", "abc", "abd", "b", "\u{0}", "é", "abcdefghij", "abcdefghik"].map { Array($0.utf8) }
        for x in texts {
            for y in texts {
                let a = x[...], b = y[...]
                XCTAssertEqual(a.span.lexicographicallyPrecedes(b.span), x.lexicographicallyPrecedes(y), "\(x) < \(y)")
                XCTAssertEqual(a.span.elementsEqual(b.span), x == y, "\(x) == \(y)")
            }
        }
    }
}
