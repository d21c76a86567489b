@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The registry's bookkeeping of a cancel racing a task's own end, in both orders, without
/// sockets: the slot a cancelled task keeps must go back exactly once, whichever comes first.
/// (`ConcurrencyLimitTests` races the same thing on a real server.)
final class TransferRegistryTests: XCTestCase {
    /// The window the race opens: the transport has reported the end (the entry is out), the
    /// transfer has not heard yet and ends by a cancel, which drains the task. Nothing is left
    /// to report, so the slot goes back at once.
    func testACancelAfterTheTaskReportedItsEndGivesTheSlotBackAtOnce() {
        let registry = TransferRegistry()
        let task = FakeTask(), transfer = FakeTransfer()
        registry.attach(task, to: transfer)
        registry.complete(task, outcome: .completed)
        let releases = Counter()
        registry.drain(task, fallback: nil, on: TimerQueue(queue: DispatchQueue(label: "test.timers"))) { releases.add() }
        XCTAssertEqual(releases.value, 1)
        XCTAssertEqual(transfer.completions.value, 1)
        registry.taskDidComplete(task)   // a late report of the cancel changes nothing
        XCTAssertEqual(releases.value, 1)
    }

    /// The usual order: the cancel drains a running task, and its report frees the slot, once;
    /// the transfer, ended already, does not hear of it.
    func testACancelBeforeTheEndKeepsTheSlotUntilTheTaskReportsIt() {
        let registry = TransferRegistry()
        let task = FakeTask(), transfer = FakeTransfer()
        registry.attach(task, to: transfer)
        let releases = Counter()
        registry.drain(task, fallback: nil, on: TimerQueue(queue: DispatchQueue(label: "test.timers"))) { releases.add() }
        XCTAssertEqual(releases.value, 0)
        XCTAssertNil(registry.transfer(for: task))
        registry.complete(task, outcome: .completed)
        XCTAssertEqual(releases.value, 1)
        XCTAssertEqual(transfer.completions.value, 0)
        registry.complete(task, outcome: .completed)
        registry.taskDidComplete(task)
        XCTAssertEqual(releases.value, 1)
    }

    /// Without a cancel, the report reaches the transfer once and the task stops routing.
    func testTheEndReachesTheTransferOnce() {
        let registry = TransferRegistry()
        let task = FakeTask(), transfer = FakeTransfer()
        registry.attach(task, to: transfer)
        registry.complete(task, outcome: .completed)
        registry.complete(task, outcome: .completed)
        XCTAssertEqual(transfer.completions.value, 1)
        XCTAssertNil(registry.transfer(for: task))
    }
}

/// Counts calls from any thread.
private final class Counter: Sendable {
    private let count = Locked(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

private final class FakeTask: TransportTask {
    func resume() {}
    func cancel() {}
    var hasCompleted: Bool { false }
}

/// A transfer that only counts the ends reported to it.
private final class FakeTransfer: ScheduledTransfer {
    let completions = Counter()
    var startsOffThread: Bool { false }
    func submit() {}
    func start() -> Bool { true }
    func end(with error: NetworkError) {}
    var publicState: NetworkTask.State { .running }
    var attemptCount: Int { 1 }
    func didReceive(head: HTTPResponse) {}
    func didReceive(data: Data) -> ReceiveDecision { .accepted }
    func didReceive(bytes: UnsafeRawBufferPointer, encodedBytes: Int64?) -> ReceiveDecision { .accepted }
    func didSend(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}
    func didComplete(_ outcome: TransportOutcome, metrics: TransferMetrics?) { completions.add() }
    func didRejectAuthenticationChallenge() {}
    func redirect(_ response: HTTPResponse, to proposed: WireRequest, from previous: WireRequest?) -> WireRequest? { nil }
}
