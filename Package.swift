// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        // `swift run courier <url>`. The target has another name because a module `courier`
        // would clash with `Courier` on case-insensitive file systems.
        .executable(name: "courier", targets: ["CourierCLI"]),
    ],
    targets: [
        // The library depends on the toolchain only: Foundation, FoundationNetworking, Dispatch,
        // and (through CCurl, with dlopen at run time) the libcurl.so.4 FoundationNetworking loads.
        .target(name: "Courier", dependencies: ["CCurl"]),
        // Declares the few libcurl functions and constants the curl engine uses, so that no
        // libcurl headers are needed to build; opens the library with dlopen.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .executableTarget(name: "CourierCLI", dependencies: ["Courier"], path: "Sources/CLI"),
        // Release-build benchmarks, run by scripts/bench; not a product.
        // CCurl: the bare libcurl clients, the reference the curl engine is measured against.
        .executableTarget(name: "Benchmarks", dependencies: ["Courier", "CCurl"], path: "Sources/Benchmarks"),
        // The loopback HTTP server the tests run against (TestServer, ResponseWriter,
        // ServerRequest) and Gate, shared by the test targets. A plain target only because SwiftPM has no
        // test-support kind: no product links it.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Depends on the executables so that `swift test` builds them for the end-to-end tests.
        .testTarget(name: "CourierTests", dependencies: ["Courier", "CourierCLI", "Benchmarks", "TestSupport"]),
        // HPNetwork 2.x's README examples, as its users wrote them, compiled with `import Courier`
        // alone (no @testable) and run against the loopback server
        // (Sources/Courier/Courier.docc/Migrating.md).
        .testTarget(name: "HPNetworkExamplesTests", dependencies: ["Courier", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
