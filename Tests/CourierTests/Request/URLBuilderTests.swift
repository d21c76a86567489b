import Courier
import Foundation
import XCTest

final class URLBuilderTests: XCTestCase {
    func testBuildsHostPathAndTypedQuery() throws {
        let url = try URLBuilder(host: "api.example.com")
            .addingPathComponents(["v1", "weather"])
            .addingQueryItem(name: "lat", value: 48.123123012, digits: 5)
            .addingQueryItem(name: "lon", value: -12.9123001299, digits: 5)
            .addingQueryItem(name: "units", value: "metric")
            .addingQueryItem(name: "page", value: 2)
            .addingQueryItem(name: "debug", value: true)
            .build()
        XCTAssertEqual(url.absoluteString,
                       "https://api.example.com/v1/weather?lat=48.12312&lon=-12.91230&units=metric&page=2&debug=true")
    }

    func testEncodesReservedCharactersInsideComponentsAndValues() throws {
        let url = try URLBuilder(host: "example.com", scheme: "http", port: 8080)
            .addingPathComponent("a b/c")
            .addingQueryItem(name: "q", value: "1+1=2 & more")
            .addingQueryFlag("raw")
            .build()
        XCTAssertEqual(url.absoluteString, "http://example.com:8080/a%20b%2Fc?q=1%2B1%3D2%20%26%20more&raw")
    }

    func testNilValuesAreSkippedAndDigitsZeroRounds() throws {
        let missing: String? = nil
        let url = try URLBuilder(host: "example.com")
            .addingQueryItem(name: "skip", value: missing)
            .addingQueryItem(name: "n", value: 2.5001, digits: 0)
            .build()
        XCTAssertEqual(url.query, "n=3")
    }

    func testEmptyHostIsInvalidURL() {
        XCTAssertThrowsError(try URLBuilder(host: "").build()) { error in
            guard case NetworkError.invalidURL = error else { return XCTFail("\(error)") }
        }
    }
}
