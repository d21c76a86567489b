@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The curl loop's batch of completions (``DispatchBatch``): held while it holds, queued in order
/// at a flush, and never held on any other thread or outside `holding`.
final class DispatchBatchTests: XCTestCase {
    private let queue = DispatchQueue(label: "test.batch")

    func testWorkQueuedWhileHoldingWaitsForTheFlushAndKeepsItsOrder() {
        let batch = DispatchBatch()
        let order = Locked<[Int]>([])
        batch.holding {
            for index in 0..<3 {
                DispatchBatch.async({ order.withLock { $0.append(index) } }, on: queue)
            }
        }
        // Anything already queued would run before this (the queue is serial).
        queue.sync {}
        XCTAssertEqual(order.current, [], "held work ran before the flush")
        batch.flush()
        queue.sync {}
        XCTAssertEqual(order.current, [0, 1, 2])
    }

    func testAFlushInsideHoldingQueuesWhatIsHeldSoFar() {
        let batch = DispatchBatch()
        let order = Locked<[String]>([])
        batch.holding {
            DispatchBatch.async({ order.withLock { $0.append("first") } }, on: queue)
            batch.flush()
            queue.sync {}
            XCTAssertEqual(order.current, ["first"], "a flush left work held")
            DispatchBatch.async({ order.withLock { $0.append("second") } }, on: queue)
        }
        queue.sync {}
        XCTAssertEqual(order.current, ["first"], "work held after a flush was queued")
        batch.flush()
        queue.sync {}
        XCTAssertEqual(order.current, ["first", "second"])
    }

    func testOtherThreadsAndTheThreadOutsideHoldingQueueAtOnce() {
        let batch = DispatchBatch()
        let ran = Locked(0)
        DispatchBatch.async({ ran.withLock { $0 += 1 } }, on: queue)
        queue.sync {}
        XCTAssertEqual(ran.current, 1, "no batch: queued at once")
        batch.holding {
            // Another thread, while this one holds: its work is not this batch's.
            let elsewhere = DispatchGroup()
            let queue = self.queue
            elsewhere.enter()
            Thread {
                DispatchBatch.async({ ran.withLock { $0 += 1 } }, on: queue)
                elsewhere.leave()
            }.start()
            XCTAssertEqual(elsewhere.wait(timeout: .now() + 10), .success)
            queue.sync {}
            XCTAssertEqual(ran.current, 2, "another thread's work was held by this thread's batch")
        }
        DispatchBatch.async({ ran.withLock { $0 += 1 } }, on: queue)
        queue.sync {}
        XCTAssertEqual(ran.current, 3, "the batch stayed installed after holding ended")
    }

    func testANestedHoldHandsBackToTheOuterBatch() {
        let outer = DispatchBatch(), inner = DispatchBatch()
        let order = Locked<[String]>([])
        outer.holding {
            inner.holding {
                DispatchBatch.async({ order.withLock { $0.append("inner") } }, on: queue)
            }
            DispatchBatch.async({ order.withLock { $0.append("outer") } }, on: queue)
        }
        inner.flush()
        queue.sync {}
        XCTAssertEqual(order.current, ["inner"], "the outer batch's work went to the inner one")
        outer.flush()
        queue.sync {}
        XCTAssertEqual(order.current, ["inner", "outer"])
    }

    /// Responses released together, so that one turn of the loop can end several transfers and
    /// hold their completions: each still arrives, once, on the network's callback queue.
    func testResponsesEndingTogetherEachCompleteOnceOnTheCallbackQueue() throws {
        let server = try makeServer()
        let count = 6
        let arrivals = DispatchSemaphore(value: 0)
        let gate = holdRequests(at: "/held", on: server, arrived: { arrivals.signal() })
        let callbacks = DispatchQueue(label: "test.batch.callbacks")
        let network = makeNetwork(limit: count, callbackQueue: callbacks)
        let completions = Locked<[Int: Int]>([:])
        let done = expectation(description: "every completion")
        done.expectedFulfillmentCount = count
        for index in 0..<count {
            network.schedule(Request<Data>.get(server.url("/held")).string()) { result in
                dispatchPrecondition(condition: .onQueue(callbacks))
                XCTAssertEqual(try? result.get(), "late")
                completions.withLock { $0[index, default: 0] += 1 }
                done.fulfill()
            }
        }
        for _ in 0..<count { XCTAssertEqual(arrivals.wait(timeout: .now() + 10), .success) }
        gate.open()
        wait(for: [done], timeout: 10)
        // A second completion for any of them would land here.
        callbacks.sync {}
        XCTAssertEqual(completions.current, Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 1) }))
    }
}
