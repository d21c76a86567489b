import Foundation

/// Collects the items of one ``URLQueryEncoder/encode(_:)`` call, in the order they are encoded.
/// Used by one thread, for one call.
final class QueryItemSink {
    let options: URLQueryEncoder
    var items: [URLQueryItem] = []
    /// A misuse found where `Encoder` cannot throw (asking for an unkeyed or single-value
    /// container at the top); `encode(_:)` throws it at the end.
    var failure: EncodingError?

    init(options: URLQueryEncoder) {
        self.options = options
    }

    /// Items need a name: only a keyed container at the top gives one.
    func topLevelError(_ codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue("", .init(
            codingPath: codingPath,
            debugDescription: "URLQueryEncoder needs a keyed value at the top (a struct or a dictionary), not a single value or an array."))
    }
}

/// The `Encoder` handed to `encode(to:)`: one position in the value, named by the query name
/// written so far (`filter[price]`), or `nil` at the top, where only keys can be written.
///
/// Items are written straight into the sink as the value encodes itself, so their order is the
/// encoding order and nothing is built in between.
struct QueryValueEncoder: Encoder {
    let name: String?
    let codingPath: [any CodingKey]
    let sink: QueryItemSink

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(QueryKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if name == nil { sink.failure = sink.failure ?? sink.topLevelError(codingPath) }
        return QueryUnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        QuerySingleValueContainer(encoder: self)
    }

    /// The encoder one level down, for a key or an array element.
    func child(named childName: String, key: any CodingKey) -> QueryValueEncoder {
        QueryValueEncoder(name: childName, codingPath: codingPath + [key], sink: sink)
    }

    /// Writes `name=text`.
    func write(_ text: String) throws {
        guard let name else { throw sink.topLevelError(codingPath) }
        sink.items.append(URLQueryItem(name: name, value: text))
    }

    /// Writes a number in full; Infinity and NaN have no query form.
    func write<Number: BinaryFloatingPoint & LosslessStringConvertible>(float value: Number) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) cannot be written in a query."))
        }
        try write(String(value))
    }

    /// Encodes any value here: the types with a query form of their own (whose `Codable` form is
    /// not what a server expects: `Date` would be a bare number of seconds since 2001, `URL` an
    /// object), else whatever the value's `encode(to:)` writes.
    func encodeValue<Value: Encodable>(_ value: Value) throws {
        switch value {
        case let date as Date: try write(sink.options.string(for: date, codingPath: codingPath))
        case let url as URL: try write(url.absoluteString)
        case let data as Data: try write(data.base64EncodedString())
        case let decimal as Decimal: try write(decimal.description)
        default: try value.encode(to: self)
        }
    }
}

/// Keys of an object: `name[key]`, or `key` at the top. A `nil` value writes nothing.
struct QueryKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: QueryValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func child(_ key: any CodingKey) -> QueryValueEncoder {
        let part = encoder.sink.options.encodedKey(key.stringValue)
        return encoder.child(named: encoder.name.map { "\($0)[\(part)]" } ?? part, key: key)
    }

    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode(_ value: Bool, forKey key: Key) throws { try child(key).write(encoder.sink.options.string(for: value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { try child(key).write(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try child(key).write(float: value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try child(key).write(float: value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try child(key).write(String(value)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try child(key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        child(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        child(QueryIndexKey(stringValue: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        child(key)
    }
}

/// Elements of an array, named by ``URLQueryEncoder/ArrayEncodingStrategy``. A `nil` element
/// writes nothing (and, indexed, leaves its position unused).
struct QueryUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: QueryValueEncoder
    private(set) var count = 0

    init(encoder: QueryValueEncoder) {
        self.encoder = encoder
    }

    var codingPath: [any CodingKey] { encoder.codingPath }

    /// The next element's encoder; counts the element.
    private mutating func next() -> QueryValueEncoder {
        defer { count += 1 }
        let name = encoder.name ?? ""   // at the top the sink has already recorded the misuse
        let elementName: String
        switch encoder.sink.options.arrayEncodingStrategy {
        case .brackets: elementName = name + "[]"
        case .repeatedKeys: elementName = name
        case .indexed: elementName = name + "[\(count)]"
        }
        return encoder.child(named: elementName, key: QueryIndexKey(intValue: count))
    }

    mutating func encodeNil() throws { count += 1 }
    mutating func encode(_ value: Bool) throws { try next().write(encoder.sink.options.string(for: value)) }
    mutating func encode(_ value: String) throws { try next().write(value) }
    mutating func encode(_ value: Double) throws { try next().write(float: value) }
    mutating func encode(_ value: Float) throws { try next().write(float: value) }
    mutating func encode(_ value: Int) throws { try next().write(String(value)) }
    mutating func encode(_ value: Int8) throws { try next().write(String(value)) }
    mutating func encode(_ value: Int16) throws { try next().write(String(value)) }
    mutating func encode(_ value: Int32) throws { try next().write(String(value)) }
    mutating func encode(_ value: Int64) throws { try next().write(String(value)) }
    mutating func encode(_ value: UInt) throws { try next().write(String(value)) }
    mutating func encode(_ value: UInt8) throws { try next().write(String(value)) }
    mutating func encode(_ value: UInt16) throws { try next().write(String(value)) }
    mutating func encode(_ value: UInt32) throws { try next().write(String(value)) }
    mutating func encode(_ value: UInt64) throws { try next().write(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        next().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        next()
    }
}

/// A single value, written under the encoder's name; `nil` writes nothing.
struct QuerySingleValueContainer: SingleValueEncodingContainer {
    let encoder: QueryValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws {}
    mutating func encode(_ value: Bool) throws { try encoder.write(encoder.sink.options.string(for: value)) }
    mutating func encode(_ value: String) throws { try encoder.write(value) }
    mutating func encode(_ value: Double) throws { try encoder.write(float: value) }
    mutating func encode(_ value: Float) throws { try encoder.write(float: value) }
    mutating func encode(_ value: Int) throws { try encoder.write(String(value)) }
    mutating func encode(_ value: Int8) throws { try encoder.write(String(value)) }
    mutating func encode(_ value: Int16) throws { try encoder.write(String(value)) }
    mutating func encode(_ value: Int32) throws { try encoder.write(String(value)) }
    mutating func encode(_ value: Int64) throws { try encoder.write(String(value)) }
    mutating func encode(_ value: UInt) throws { try encoder.write(String(value)) }
    mutating func encode(_ value: UInt8) throws { try encoder.write(String(value)) }
    mutating func encode(_ value: UInt16) throws { try encoder.write(String(value)) }
    mutating func encode(_ value: UInt32) throws { try encoder.write(String(value)) }
    mutating func encode(_ value: UInt64) throws { try encoder.write(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}

/// An array position (or the `super` key) in a coding path.
struct QueryIndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
