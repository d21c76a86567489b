import Foundation

/// The responses an ``HTTPCache`` keeps in a folder: one file per URL (all its `Vary` variants),
/// at most `capacity` bytes of files, the least recently used (by modification date, touched on
/// every read) removed first.
///
/// Every file is written whole to a temporary name and renamed into place (`Data.write` with
/// `.atomic`), so a reader — this process after a crash, or another process sharing the folder —
/// sees an old entry or a new one, never a torn one; a file that does not read back exactly
/// (a foreign or damaged one) is a miss, and is removed. The disk is a best effort: a folder that
/// is full, read-only or deleted costs the entries that could not be written, never a request.
/// (A deleted folder is made again on the next write.)
struct DiskCacheStore {
    let directory: URL
    let capacity: Int
    private var knownUsage: Int?

    private static let magic = Data("COURIER-HTTP-CACHE 1\n".utf8)
    private static let suffix = ".courier-cache"

    init(directory: URL, capacity: Int) {
        self.directory = directory
        self.capacity = max(0, capacity)
    }

    /// Bytes of entries in the folder now (counted once, then kept up to date).
    mutating func usage() -> Int {
        if let knownUsage { return knownUsage }
        let total = files().reduce(0) { $0 + $1.size }
        knownUsage = total
        return total
    }

    mutating func variants(for key: String) -> [CachedResponse]? {
        let file = fileURL(for: key)
        guard let data = try? Data(contentsOf: file) else { return nil }
        guard let variants = Self.decode(data, key: key) else {
            try? FileManager.default.removeItem(at: file)
            knownUsage = nil
            return nil
        }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
        return variants
    }

    mutating func set(_ variants: [CachedResponse], for key: String) {
        guard !variants.isEmpty else { return remove(key) }
        // Bodies past the capacity are not copied into a file's bytes only to be dropped.
        guard variants.reduce(0, { $0 + $1.body.count }) <= capacity,
              let data = Self.encode(variants, key: key), data.count <= capacity else { return remove(key) }
        let file = fileURL(for: key)
        let old = (try? file.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0
        do {
            try write(data, to: file)
        } catch {
            return
        }
        if let known = knownUsage { knownUsage = known - old + data.count }
        if usage() > capacity { evict() }
    }

    private func write(_ data: Data, to file: URL) throws {
        do {
            try data.write(to: file, options: .atomic)
        } catch {
            // The folder may have been deleted while in use: made again, once.
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        }
    }

    mutating func remove(_ key: String) {
        let file = fileURL(for: key)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        try? FileManager.default.removeItem(at: file)
        knownUsage = nil
    }

    mutating func removeAll() {
        for file in files() { try? FileManager.default.removeItem(at: file.url) }
        knownUsage = nil
    }

    /// Removes the least recently used files until three quarters of the capacity are left,
    /// counting the folder afresh (another process may share it).
    private mutating func evict() {
        var entries = files()
        var total = entries.reduce(0) { $0 + $1.size }
        entries.sort { $0.used < $1.used }
        let target = capacity - capacity / 4
        for entry in entries where total > target {
            try? FileManager.default.removeItem(at: entry.url)
            total -= entry.size
        }
        knownUsage = total
    }

    private func files() -> [(url: URL, size: Int, used: Date)] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let names = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else { return [] }
        return names.filter { $0.lastPathComponent.hasSuffix(Self.suffix) }.map { url in
            let values = try? url.resourceValues(forKeys: Set(keys))
            return (url, values?.fileSize ?? 0, values?.contentModificationDate ?? .distantPast)
        }
    }

    private func fileURL(for key: String) -> URL {
        // FNV-1a over the key: a stable name; the key itself is in the file and checked on read.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let name = String(hash, radix: 16)
        return directory.appendingPathComponent(String(repeating: "0", count: 16 - name.count) + name + Self.suffix)
    }

    // MARK: - The file's form: a line naming it, the length of a JSON description, the
    // description, then the bodies one after another.

    private struct Description: Codable {
        struct Variant: Codable {
            var status: Int
            var major: Int
            var minor: Int
            var url: String
            var fields: [[String]]
            var requestTime: Double
            var responseTime: Double
            var varyNames: [String]
            var varyValues: [String?]
            var bodyLength: Int
        }
        var key: String
        var variants: [Variant]
    }

    static func encode(_ variants: [CachedResponse], key: String) -> Data? {
        let description = Description(key: key, variants: variants.map { variant in
            Description.Variant(status: variant.statusCode, major: variant.httpVersion.major, minor: variant.httpVersion.minor,
                                url: variant.url.absoluteString, fields: variant.headers.fields.map { [$0.name, $0.value] },
                                requestTime: variant.requestTime.timeIntervalSince1970,
                                responseTime: variant.responseTime.timeIntervalSince1970,
                                varyNames: variant.varying.map(\.name), varyValues: variant.varying.map(\.value),
                                bodyLength: variant.body.count)
        })
        guard let json = try? JSONEncoder().encode(description) else { return nil }
        var data = magic
        var length = UInt32(json.count).littleEndian
        withUnsafeBytes(of: &length) { data.append(contentsOf: $0) }
        data.append(json)
        for variant in variants { data.append(variant.body) }
        return data
    }

    static func decode(_ data: Data, key: String) -> [CachedResponse]? {
        guard data.count >= magic.count + 4, data.prefix(magic.count) == magic else { return nil }
        var offset = data.startIndex + magic.count
        var length: UInt32 = 0
        for index in 0..<4 { length |= UInt32(data[offset + index]) << (8 * UInt32(index)) }
        offset += 4
        guard data.endIndex - offset >= Int(length),
              let description = try? JSONDecoder().decode(Description.self, from: data[offset..<offset + Int(length)]),
              description.key == key else { return nil }
        offset += Int(length)
        var variants: [CachedResponse] = []
        for variant in description.variants {
            guard variant.bodyLength >= 0, data.endIndex - offset >= variant.bodyLength, let url = URL(string: variant.url),
                  variant.fields.allSatisfy({ $0.count == 2 }), variant.varyNames.count == variant.varyValues.count,
                  (0...9).contains(variant.major), (0...9).contains(variant.minor) else { return nil }
            let body = Data(data[offset..<offset + variant.bodyLength])
            offset += variant.bodyLength
            variants.append(CachedResponse(
                statusCode: variant.status, httpVersion: HTTPVersion(major: variant.major, minor: variant.minor), url: url,
                headers: HTTPHeaders(variant.fields.map { (name: $0[0], value: $0[1]) }), body: body,
                requestTime: Date(timeIntervalSince1970: variant.requestTime),
                responseTime: Date(timeIntervalSince1970: variant.responseTime),
                varying: zip(variant.varyNames, variant.varyValues).map { (name: $0, value: $1) }))
        }
        // Exactly the bodies described, and nothing after them.
        return offset == data.endIndex ? variants : nil
    }
}
