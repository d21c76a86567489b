import Foundation

/// The name `courier download` saves a URL's body under in the download folder: always one plain
/// file name inside that folder, whatever the URL holds.
///
/// The rule, in order:
/// 1. Take the last segment of the URL's path, as written, and percent-decode it (bytes that are
///    not UTF-8 become `U+FFFD`). A `%2F` does not split the segment.
/// 2. A path that is empty or ends in `/`, or a last segment `.` or `..` (however encoded), names
///    a folder: the file is ``folderName`` (`index.html`), as wget does.
/// 3. `/`, and every control character (`NUL`, `%0A`, `%1B`…) or bidirectional-text control
///    (``TerminalText/isControl(_:)``), becomes `_`.
/// 4. The name is cut to ``maximumBytes`` bytes of UTF-8, so that the download's sidecar
///    (`NAME.partial.json`) still fits the 255-byte limit of file names: at a character
///    boundary, keeping an extension of up to ``maximumExtensionBytes`` bytes (`.pdf`).
/// 5. Should nothing be left, the name is ``folderName`` too.
enum DownloadFileName {
    /// The name of a URL that names a folder, or of nothing usable.
    static let folderName = "index.html"
    /// 255 bytes less `.partial.json`.
    static let maximumBytes = 255 - ".partial.json".utf8.count
    /// Longest extension kept when a name is cut; a longer "extension" is just more name.
    static let maximumExtensionBytes = 16

    /// The file name for `url`'s body, by the rule above.
    static func of(_ url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        guard let segment = path.split(separator: "/", omittingEmptySubsequences: false).last,
              !segment.isEmpty else { return folderName }
        let decoded = percentDecoded(segment)
        if decoded == "." || decoded == ".." { return folderName }
        var plain = String.UnicodeScalarView()
        for scalar in decoded.unicodeScalars {
            plain.append(scalar == "/" || TerminalText.isControl(scalar) ? "_" : scalar)
        }
        let name = capped(String(plain))
        return name.isEmpty ? folderName : name
    }

    /// `%XX` sequences turned into bytes; anything else, a malformed `%` included, kept as it is.
    static func percentDecoded(_ text: Substring) -> String {
        let input = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
               let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `name` cut to ``maximumBytes`` at a character boundary, its extension kept.
    static func capped(_ name: String) -> String {
        guard name.utf8.count > maximumBytes else { return name }
        var stem = Substring(name)
        var suffix = Substring()
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name[dot...].utf8.count <= maximumExtensionBytes {
            stem = name[..<dot]
            suffix = name[dot...]
        }
        let budget = maximumBytes - suffix.utf8.count
        var kept = ""
        var used = 0
        for character in stem {
            let size = character.utf8.count
            guard used + size <= budget else { break }
            kept.append(character)
            used += size
        }
        return kept.isEmpty ? "" : kept + suffix
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
