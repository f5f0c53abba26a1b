// Indexer: build the ranked, sharded search index of a few documents in memory and query it the way an app does,
// downloading only the files a query needs. Run it: swift run IndexerSearch
import Indexer
import Schemas

// snippet.show
let products = [("1", "DEWALT 20V Cordless Drill", "DEWALT"), ("2", "Hammer Drill Kit", "RYOBI"), ("3", "Garden Hose 50 ft", "Flexzilla")]
let documents = products.map { id, name, brand in
    RankedDocument(id: id, fields: [("name", 3, name), ("brand", 2, brand)],
                   stored: .obj(["id": .string(id), "name": .string(name)]))
}
let index = try RankedIndexBuilder().build(documents, folder: "search")
let files = Dictionary(uniqueKeysWithValues: index.files)   // path → bytes: what a static host would serve

var downloaded: [String] = []
let query = try Query(metaPath: index.metaPath) { path in
    downloaded.append(path)
    return files[path]!
}
for text in ["drill", "dril", "DEWALT", "hose"] {
    let (results, total) = try query.search(text, limit: 5)
    print("\(text): \(total) found:", results.map { $0.stored["name"]?.stringValue ?? "" })
}
print("files downloaded: \(downloaded.count) of \(files.count)")
// snippet.end
