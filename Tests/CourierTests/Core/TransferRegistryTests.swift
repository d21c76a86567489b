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

    /// A task that routes itself (the curl engine's) is never entered in the registry: the
    /// registry hands it its transfer, and on a cancel the slot to keep; the task gives it back.
    func testATaskThatRoutesItselfKeepsTheSlotItDrains() {
        let registry = TransferRegistry()
        let task = SelfRoutingTask(), transfer = FakeTransfer()
        registry.attach(task, to: transfer)
        XCTAssertNil(registry.transfer(for: task), "no entry for a task that routes itself")
        XCTAssertTrue(task.sink === transfer)
        let releases = Counter()
        registry.drain(task, fallback: nil, on: TimerQueue(queue: DispatchQueue(label: "test.timers"))) { releases.add() }
        XCTAssertEqual(releases.value, 0, "kept until the task ends")
        XCTAssertNil(task.sink, "no event reaches the transfer once the task drains")
        task.end()
        task.end()
        XCTAssertEqual(releases.value, 1)
    }

    /// The same task drained after it ended: nothing is left to wait for, the slot goes back at once.
    func testATaskThatRoutesItselfAndHasEndedGivesTheSlotBackAtOnce() {
        let registry = TransferRegistry()
        let task = SelfRoutingTask(), transfer = FakeTransfer()
        registry.attach(task, to: transfer)
        task.end()
        let releases = Counter()
        registry.drain(task, fallback: nil, on: TimerQueue(queue: DispatchQueue(label: "test.timers"))) { releases.add() }
        XCTAssertEqual(releases.value, 1)
        task.end()
        XCTAssertEqual(releases.value, 1)
    }
}

/// A task that keeps its transfer and the slot it drains, as the curl engine's does.
private final class SelfRoutingTask: TransportTask, @unchecked Sendable {  // @unchecked: its state is behind `lock`.
    private let lock = NSLock()
    private var transfer: (any ScheduledTransfer)?
    private var slot: SlotRelease?
    private var ended = false

    func resume() {}
    func cancel() {}
    var hasCompleted: Bool { lock.withLock { ended } }
    var routesItself: Bool { true }
    var sink: (any ScheduledTransfer)? { lock.withLock { transfer } }
    func deliverEvents(to transfer: any ScheduledTransfer) { lock.withLock { self.transfer = transfer } }
    func stopDeliveringEvents() { lock.withLock { transfer = nil } }

    func keepUntilEnd(_ slot: SlotRelease) -> Bool {
        lock.withLock {
            transfer = nil
            guard !ended else { return false }
            self.slot = slot
            return true
        }
    }

    /// Ends the task: tells its transfer, or gives back the slot it kept.
    func end() {
        let route = lock.withLock { () -> ((any ScheduledTransfer)?, SlotRelease?)? in
            guard !ended else { return nil }
            ended = true
            defer { transfer = nil; slot = nil }
            return (transfer, slot)
        }
        route?.0?.didComplete(.completed, metrics: nil)
        route?.1?.release()
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
