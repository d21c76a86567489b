import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `URLQueryEncoder`: the items it makes, how they are percent-encoded, and what a server reads.
final class QueryEncoderTests: XCTestCase {
    /// Items as `name=value` strings, unencoded, for compact assertions.
    private func pairs(_ value: some Encodable, _ encoder: URLQueryEncoder = URLQueryEncoder()) throws -> [String] {
        try encoder.encode(value).map { "\($0.name)=\($0.value ?? "<nil>")" }
    }

    // MARK: Shapes

    func testFlatValuesInDeclarationOrder() throws {
        struct Flat: Encodable { let q: String; let page: Int; let ratio: Double; let small: Float; let big: UInt64; let tiny: Int8 }
        XCTAssertEqual(try pairs(Flat(q: "swift", page: 2, ratio: 0.1, small: 1.5, big: .max, tiny: -8)),
                       ["q=swift", "page=2", "ratio=0.1", "small=1.5", "big=18446744073709551615", "tiny=-8"])
    }

    func testNestedValuesGetBracketedNames() throws {
        struct Inner: Encodable { let c: Int; let d: String }
        struct Middle: Encodable { let b: Inner; let e: Bool }
        struct Outer: Encodable { let a: Middle; let f: Int }
        XCTAssertEqual(try pairs(Outer(a: Middle(b: Inner(c: 1, d: "x"), e: false), f: 2)),
                       ["a[b][c]=1", "a[b][d]=x", "a[e]=false", "f=2"])
    }

    func testArraysInEachStyle() throws {
        struct Lists: Encodable { let list: [Int]; let names: [String] }
        let value = Lists(list: [1, 2], names: ["a"])
        XCTAssertEqual(try pairs(value), ["list[]=1", "list[]=2", "names[]=a"])
        XCTAssertEqual(try pairs(value, URLQueryEncoder(arrayEncodingStrategy: .repeatedKeys)), ["list=1", "list=2", "names=a"])
        XCTAssertEqual(try pairs(value, URLQueryEncoder(arrayEncodingStrategy: .indexed)), ["list[0]=1", "list[1]=2", "names[0]=a"])
    }

    func testArraysOfObjectsAndArraysOfArrays() throws {
        struct Item: Encodable { let name: String; let size: Int }
        struct Order: Encodable { let items: [Item]; let grid: [[Int]] }
        let order = Order(items: [Item(name: "a", size: 1), Item(name: "b", size: 2)], grid: [[1, 2], [3]])
        XCTAssertEqual(try pairs(order, URLQueryEncoder(arrayEncodingStrategy: .indexed)),
                       ["items[0][name]=a", "items[0][size]=1", "items[1][name]=b", "items[1][size]=2",
                        "grid[0][0]=1", "grid[0][1]=2", "grid[1][0]=3"])
        XCTAssertEqual(try pairs(order),
                       ["items[][name]=a", "items[][size]=1", "items[][name]=b", "items[][size]=2",
                        "grid[][]=1", "grid[][]=2", "grid[][]=3"])
    }

    func testDictionariesAreKeyed() throws {
        struct Wrapper: Encodable { let meta: [String: Int] }
        XCTAssertEqual(try pairs(Wrapper(meta: ["k": 1])), ["meta[k]=1"])
        XCTAssertEqual(try pairs(["only": "one"]), ["only=one"])
    }

    // MARK: Nil and empty

    func testNilIsLeftOutEverywhere() throws {
        struct Optionals: Encodable {
            let present: String?
            let absent: String?
            let nested: Optionals2?
            let list: [Int?]
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeIfPresent(present, forKey: .present)
                try container.encode(absent, forKey: .absent)          // explicit nil, not encodeIfPresent
                try container.encodeNil(forKey: .explicitNil)
                try container.encodeIfPresent(nested, forKey: .nested)
                try container.encode(list, forKey: .list)
            }
            enum CodingKeys: String, CodingKey { case present, absent, explicitNil, nested, list }
        }
        struct Optionals2: Encodable { let x: Int? }
        let value = Optionals(present: "yes", absent: nil, nested: Optionals2(x: nil), list: [1, nil, 3])
        XCTAssertEqual(try pairs(value), ["present=yes", "list[]=1", "list[]=3"])
        XCTAssertEqual(try pairs(value, URLQueryEncoder(arrayEncodingStrategy: .indexed)), ["present=yes", "list[0]=1", "list[2]=3"])
    }

    func testEmptyValuesGiveNoItemsButEmptyStringsStay() throws {
        struct Empty: Encodable {}
        struct Holder: Encodable { let list: [Int]; let object: Empty; let text: String }
        XCTAssertEqual(try URLQueryEncoder().encode(Empty()), [])
        XCTAssertEqual(try pairs(Holder(list: [], object: Empty(), text: "")), ["text="])
        XCTAssertEqual(try URLQueryEncoder().encodedQuery(Holder(list: [], object: Empty(), text: "")), "text=")
    }

    // MARK: Dates, booleans, special types

    func testDateStrategies() throws {
        struct When: Encodable { let at: Date }
        let whole = When(at: Date(timeIntervalSince1970: 1_738_324_800))
        let fraction = When(at: Date(timeIntervalSince1970: 1_738_324_800.25))
        XCTAssertEqual(try pairs(whole), ["at=2025-01-31T12:00:00Z"])
        XCTAssertEqual(try pairs(whole, URLQueryEncoder(dateEncodingStrategy: .secondsSince1970)), ["at=1738324800"])
        XCTAssertEqual(try pairs(fraction, URLQueryEncoder(dateEncodingStrategy: .secondsSince1970)), ["at=1738324800.25"])
        XCTAssertEqual(try pairs(When(at: Date(timeIntervalSince1970: -0.5)), URLQueryEncoder(dateEncodingStrategy: .secondsSince1970)),
                       ["at=-0.5"])
        XCTAssertEqual(try pairs(fraction, URLQueryEncoder(dateEncodingStrategy: .millisecondsSince1970)), ["at=1738324800250"])

        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy/MM/dd"
        XCTAssertEqual(try pairs(whole, URLQueryEncoder(dateEncodingStrategy: .formatted(formatter))), ["at=2025/01/31"])
        XCTAssertEqual(try pairs(whole, URLQueryEncoder(dateEncodingStrategy: .custom { "day-\(Int($0.timeIntervalSince1970) / 86_400)" })),
                       ["at=day-20119"])
    }

    func testDatesInArraysAndAThrowingDateClosure() throws {
        struct Dates: Encodable { let days: [Date] }
        XCTAssertEqual(try pairs(Dates(days: [Date(timeIntervalSince1970: 0)]), URLQueryEncoder(dateEncodingStrategy: .millisecondsSince1970)),
                       ["days[]=0"])
        struct Refused: Error {}
        XCTAssertThrowsError(try URLQueryEncoder(dateEncodingStrategy: .custom { _ in throw Refused() })
            .encode(Dates(days: [Date()]))) { error in
            XCTAssertTrue(error is Refused, "\(error)")
        }
    }

    func testBoolStrategies() throws {
        struct Flags: Encodable { let on: Bool; let off: Bool; let list: [Bool] }
        let flags = Flags(on: true, off: false, list: [false, true])
        XCTAssertEqual(try pairs(flags), ["on=true", "off=false", "list[]=false", "list[]=true"])
        XCTAssertEqual(try pairs(flags, URLQueryEncoder(boolEncodingStrategy: .oneZero)), ["on=1", "off=0", "list[]=0", "list[]=1"])
    }

    func testTypesWithTheirOwnQueryForm() throws {
        struct Special: Encodable { let link: URL; let bytes: Data; let amount: Decimal; let id: UUID }
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let value = Special(link: URL(string: "https://example.com/a?b=c")!, bytes: Data([0xFF, 0x00, 0x41]),
                            amount: Decimal(string: "12.50")!, id: id)
        XCTAssertEqual(try pairs(value), ["link=https://example.com/a?b=c", "bytes=/wBB", "amount=12.5",
                                          "id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F"])
    }

    // MARK: Keys

    func testSnakeCaseKeys() throws {
        struct Keys: Encodable {
            let createdAt = 1, userID = 2, myURLValue = 3, page2Size = 4, _private = 5, already_snake = 6, x = 7, HTTPStatus = 8
            let nestedValue = Nested()
            struct Nested: Encodable { let innerKey = 9 }
        }
        XCTAssertEqual(try pairs(Keys(), URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase)),
                       ["created_at=1", "user_id=2", "my_url_value=3", "page2_size=4", "_private=5", "already_snake=6", "x=7",
                        "http_status=8", "nested_value[inner_key]=9"])
        XCTAssertEqual(try pairs(Keys.Nested(), URLQueryEncoder(keyEncodingStrategy: .custom { $0.uppercased() })), ["INNERKEY=9"])
        XCTAssertEqual(try pairs(Keys.Nested()), ["innerKey=9"], "keys are left alone by default")
    }

    // MARK: Errors

    func testValuesThatAreNotKeyedAtTheTopAreRefused() {
        let encoder = URLQueryEncoder()
        for (value, what) in [(AnyEncodable([1, 2]), "array"), (AnyEncodable("text"), "string"), (AnyEncodable(3), "number"),
                              (AnyEncodable([["a": 1]]), "array of objects")] {
            XCTAssertThrowsError(try encoder.encode(value), what) { error in
                guard case EncodingError.invalidValue = error else { return XCTFail("\(what): \(error)") }
            }
        }
    }

    func testNonFiniteNumbersAreRefused() {
        struct Number: Encodable { let value: Double }
        XCTAssertThrowsError(try URLQueryEncoder().encode(Number(value: .nan)))
        XCTAssertThrowsError(try URLQueryEncoder().encode(Number(value: .infinity)))
    }

    // MARK: Percent-encoding

    func testQueryEncodingIsRFC3986() throws {
        struct Tricky: Encodable { let plus: String; let space: String; let reserved: String; let unicode: String; let tags: [String] }
        let value = Tricky(plus: "1+1", space: "a b", reserved: "&=?#/%", unicode: "café ☕️", tags: ["x~y"])
        XCTAssertEqual(try URLQueryEncoder().encodedQuery(value),
                       "plus=1%2B1&space=a%20b&reserved=%26%3D%3F%23%2F%25&unicode=caf%C3%A9%20%E2%98%95%EF%B8%8F&tags%5B%5D=x~y")
        XCTAssertEqual(try URLQueryEncoder().encodedForm(value),
                       "plus=1%2B1&space=a+b&reserved=%26%3D%3F%23%2F%25&unicode=caf%C3%A9+%E2%98%95%EF%B8%8F&tags%5B%5D=x%7Ey")
    }

    // MARK: Where it is used

    func testURLBuilderAndRequestAddTheQuery() throws {
        struct Page: Encodable { let page: Int; let perPage: Int; let q: String }
        let encoder = URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase)
        let built = try URLBuilder(host: "api.example.com").addingPathComponent("items")
            .addingQueryItem(name: "v", value: 1)
            .addingQuery(Page(page: 2, perPage: 50, q: "a+b c"), encoder: encoder)
            .build()
        XCTAssertEqual(built.absoluteString, "https://api.example.com/items?v=1&page=2&per_page=50&q=a%2Bb%20c")

        let request = try Request<Data>.get("https://api.example.com/items?v=1")
            .addingQuery(Page(page: 2, perPage: 50, q: "a+b c"), encoder: encoder)
            .string()   // the query survives converting the output
        XCTAssertEqual(try request.makeURL().absoluteString, "https://api.example.com/items?v=1&page=2&per_page=50&q=a%2Bb%20c")
    }

    func testEncodingFailuresAreEncodingFailed() {
        XCTAssertThrowsError(try URLBuilder(host: "example.com").addingQuery([1, 2])) { error in
            guard case NetworkError.encodingFailed(EncodingError.invalidValue) = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try Request<Data>.get("https://example.com").addingQuery("bare")) { error in
            guard case NetworkError.encodingFailed = error else { return XCTFail("\(error)") }
        }
        struct Number: Encodable, Sendable { let value: Double }
        let body = RequestBody.form(Number(value: .nan))
        XCTAssertThrowsError(try Request<Data>(method: .post, url: URL(string: "https://example.com")!, body: body).makeURLRequest()) { error in
            guard case NetworkError.encodingFailed = error else { return XCTFail("\(error)") }
        }
    }

    // MARK: End to end: what the server receives and reads

    private struct Search: Encodable, Sendable {
        let query: String
        let createdAfter: Date
        let filter: Filter
        let tags: [String]
        let cursor: String?
        struct Filter: Encodable, Sendable { let minPrice: Double; let inStock: Bool }
    }

    private let search = Search(query: "1+1 = 2 & café", createdAfter: Date(timeIntervalSince1970: 0),
                                filter: .init(minPrice: 9.5, inStock: true), tags: ["a b", "c+d"], cursor: nil)

    /// What a server makes of the query or form: `+` in a form is a space; then percent-decoding.
    private func decodeFields(_ encoded: String, plusIsSpace: Bool) -> [String] {
        encoded.split(separator: "&").map { pair in
            String(pair).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { part -> String in
                let text = plusIsSpace ? part.replacingOccurrences(of: "+", with: " ") : String(part)
                return text.removingPercentEncoding ?? "<undecodable>"
            }.joined(separator: "=")
        }
    }

    private let expectedFields = ["query=1+1 = 2 & café", "created_after=1970-01-01T00:00:00Z", "filter[min_price]=9.5",
                                  "filter[in_stock]=true", "tags[]=a b", "tags[]=c+d"]

    func testTheServerReadsTheQueryBackExactly() throws {
        let server = try makeServer()
        server.route("/search") { request, writer in writer.respond(status: 200, text: request.query ?? "") }
        let encoder = URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase)
        let request = try Request<Data>.get(server.url("/search")).addingQuery(search, encoder: encoder).string()
        let received = try XCTUnwrap(try result(of: request, on: makeNetwork())?.get())
        XCTAssertFalse(received.contains("+"), "a + must travel as %2B: \(received)")
        XCTAssertFalse(received.contains(" "), received)
        XCTAssertEqual(decodeFields(received, plusIsSpace: false), expectedFields)
        XCTAssertEqual(server.receivedRequests.last?.queryItems["query"], "1+1 = 2 & café")

        // Through a URLBuilder in a request type, too.
        struct Find: NetworkRequest {
            typealias Output = String
            let port: Int
            let search: Search
            func makeURL() throws -> URL {
                try URLBuilder(host: "127.0.0.1", scheme: "http", port: port).addingPathComponent("search")
                    .addingQuery(search, encoder: URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase)).build()
            }
        }
        let viaBuilder = try XCTUnwrap(try result(of: Find(port: server.port, search: search), on: makeNetwork())?.get())
        XCTAssertEqual(viaBuilder, received)
    }

    func testTheServerReadsTheFormBodyBackExactly() throws {
        let server = try makeServer().withStandardRoutes()
        let body = RequestBody.form(search, encoder: URLQueryEncoder(keyEncodingStrategy: .convertToSnakeCase))
        let request = Request<Data>(method: .post, url: server.url("/echo"), body: body).string()
        let received = try XCTUnwrap(try result(of: request, on: makeNetwork())?.get())
        XCTAssertEqual(server.receivedRequests.last?.header("Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertTrue(received.contains("query=1%2B1+%3D+2+%26+caf%C3%A9&"), received)
        XCTAssertEqual(decodeFields(received, plusIsSpace: true), expectedFields)
    }
}

/// Lets values of different types share one array in a table-driven test.
private struct AnyEncodable: Encodable {
    let encodeValue: (any Encoder) throws -> Void
    init(_ value: some Encodable) { encodeValue = value.encode(to:) }
    func encode(to encoder: any Encoder) throws { try encodeValue(encoder) }
}
