import Courier
import Foundation
import XCTest

/// Values handed from callbacks to the test, in order.
final class Recorder<Value>: @unchecked Sendable {
    // `lock` guards `values`, the only mutable state.
    private let lock = NSLock()
    private var values: [Value] = []

    func record(_ value: Value) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }

    var all: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }

    var last: Value? { all.last }
}

/// Marks a queue, so that code can tell whether it runs there (on the queue itself or on one
/// targeting it). DispatchQueue has no usable identity on Linux.
final class QueueProbe: Sendable {
    private let key = DispatchSpecificKey<Bool>()
    private let seen = Recorder<Bool>()

    init(_ queue: DispatchQueue) {
        queue.setSpecific(key: key, value: true)
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Records whether the caller runs on the queue.
    func check() {
        seen.record(isCurrent)
    }

    /// What every ``check()`` found.
    var checks: [Bool] { seen.all }
}

extension XCTestCase {
    /// A route of the shared server that holds every request until the returned gate opens
    /// (at the end of the test at the latest), then answers `200 late`.
    func heldRoute(_ path: String) -> Gate {
        let gate = Gate()
        addTeardownBlock { gate.open() }
        Loopback.server.route(path) { _, writer in
            gate.wait(timeout: 30)
            writer.respond(status: 200, text: "late")
        }
        return gate
    }

    /// Waits, bounded, until `condition` holds; polled on an expectation, never slept on.
    func waitUntil(timeout: TimeInterval = 10, _ condition: @escaping @Sendable () -> Bool) -> Bool {
        let satisfied = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in condition() }, object: nil)
        return XCTWaiter().wait(for: [satisfied], timeout: timeout) == .completed
    }

    /// A marker unique to this test's requests on the shared server.
    var marker: String { UUID().uuidString }
}

import TestSupport

/// A request of a path of the loopback server, declared with HPNetwork's members only.
struct PathRequest: NetworkRequest {
    typealias Output = Data
    let path: String
    func makeURL() throws -> URL { Loopback.url(path) }
}
