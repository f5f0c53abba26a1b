import Foundation

/// Dates are formatted in one place: ISO-8601 UTC with a `Z`, no fractional seconds.
public enum ISODate {
    public static func format(epochSeconds: Int) -> String {
        var t = time_t(epochSeconds)
        var tmv = tm()
        gmtime_r(&t, &tmv)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(tmv.tm_year) + 1900, Int(tmv.tm_mon) + 1,
                      Int(tmv.tm_mday), Int(tmv.tm_hour), Int(tmv.tm_min), Int(tmv.tm_sec))
    }
    /// `YYYY-MM-DD` of an epoch time (UTC).
    public static func day(epochSeconds: Int) -> String { String(format(epochSeconds: epochSeconds).prefix(10)) }
}
