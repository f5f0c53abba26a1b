import Foundation

/// Alabama's 67 counties, and the spellings county files use for them ("St. Clair", "SAINT CLAIR", "ST_CLAIR",
/// "De Kalb", "Dekalb County").
enum AlabamaCounties {
    static let names = [
        "Autauga", "Baldwin", "Barbour", "Bibb", "Blount", "Bullock", "Butler", "Calhoun", "Chambers", "Cherokee",
        "Chilton", "Choctaw", "Clarke", "Clay", "Cleburne", "Coffee", "Colbert", "Conecuh", "Coosa", "Covington",
        "Crenshaw", "Cullman", "Dale", "Dallas", "DeKalb", "Elmore", "Escambia", "Etowah", "Fayette", "Franklin",
        "Geneva", "Greene", "Hale", "Henry", "Houston", "Jackson", "Jefferson", "Lamar", "Lauderdale", "Lawrence",
        "Lee", "Limestone", "Lowndes", "Macon", "Madison", "Marengo", "Marion", "Marshall", "Mobile", "Monroe",
        "Montgomery", "Morgan", "Perry", "Pickens", "Pike", "Randolph", "Russell", "Saint Clair", "Shelby", "Sumter",
        "Talladega", "Tallapoosa", "Tuscaloosa", "Walker", "Washington", "Wilcox", "Winston",
    ]

    /// Letters only, lowercase, "st" → "saint", without a trailing "county".
    static func key(_ s: String) -> String {
        var words = s.lowercased().replacingOccurrences(of: "_", with: " ").replacingOccurrences(of: ".", with: " ")
            .split(whereSeparator: { $0 == " " || $0 == "-" }).map(String.init)
        if words.last == "county" { words.removeLast() }
        if words.first == "st" { words[0] = "saint" }
        return words.joined()
    }

    static let byKey: [String: String] = Dictionary(uniqueKeysWithValues: names.map { (key($0), $0) })

    /// The canonical name, or nil for a name that is not an Alabama county.
    static func canonical(_ s: String) -> String? { byKey[key(s)] }

    /// `saint-clair`, `dekalb`: the county's file name.
    static func slug(_ name: String) -> String { name.lowercased().replacingOccurrences(of: " ", with: "-") }
}
