@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The lifecycle machine on its own: no sockets, threads or timers. Every event is tried in
/// every phase, and the races that matter are played out in both orders, each asserting that
/// exactly one ending comes out.
final class TransferLifecycleTests: XCTestCase {
    final class FakeTask {}
    typealias Machine = TransferLifecycle<FakeTask>

    private let request = WireRequest(url: URL(string: "http://127.0.0.1/x")!)
    private let task = FakeTask()

    // MARK: - Reaching each phase

    /// The phases, each with the events that lead to it from a new machine.
    private enum Reached: String, CaseIterable {
        case idle, adapting, queued, starting, running, processing, backingOff, finished, cancelled
        /// Running, with a redirect Courier follows itself once the task is over.
        case runningFollowAfterTask = "running(followAfterTask)"
        /// Running, with a redirect to a refused scheme.
        case runningRefused = "running(refused)"
        /// Running, stopped at a redirect over the limit.
        case runningLimitReached = "running(limitReached)"
    }

    private let next = WireRequest(url: URL(string: "http://127.0.0.1/next")!)
    private let redirectHead = HTTPResponse(statusCode: 307, headers: ["Location": "/next"])

    private func machine(in phase: Reached) -> Machine {
        var machine = Machine()
        func go(_ steps: Reached) {
            switch steps {
            case .idle: break
            case .adapting: _ = machine.submit()
            case .queued: go(.adapting); _ = machine.adapted(.success(request))
            case .starting: go(.queued); _ = machine.slotGranted()
            case .running: go(.starting); _ = machine.taskCreated(task)
            case .processing: go(.running); _ = machine.taskCompleted(failed: false)
            case .backingOff: go(.processing); _ = machine.attemptFailed(.timedOut, response: nil); _ = machine.retryDecided(delay: 1)
            case .finished: go(.processing); _ = machine.succeeded()
            case .cancelled: go(.running); _ = machine.abort(.cancelled)
            case .runningFollowAfterTask:
                go(.running); _ = machine.redirectMet(.follow(next, head: redirectHead, replaysBody: true), maximum: 5)
            case .runningRefused:
                go(.running); _ = machine.redirectMet(.refused(.unsupportedRedirect("ftp", redirectHead)), maximum: 5)
            case .runningLimitReached:
                go(.running); _ = machine.redirectMet(.follow(next, head: redirectHead, replaysBody: false), maximum: 0)
            }
        }
        go(phase)
        XCTAssertEqual(name(of: machine), phase.rawValue)
        return machine
    }

    /// The phase's name, with the running task's redirect sub-state.
    private func name(of machine: Machine) -> String {
        switch machine.phase {
        case .idle: return "idle"
        case .adapting: return "adapting"
        case .queued: return "queued"
        case .starting: return "starting"
        case .running:
            switch machine.redirect {
            case .none: return "running"
            case .followAfterTask: return "running(followAfterTask)"
            case .refused: return "running(refused)"
            case .limitReached: return "running(limitReached)"
            }
        case .processing: return "processing"
        case .backingOff: return "backingOff"
        case .finished: return "finished"
        case .cancelled: return "cancelled"
        }
    }

    private func kind(of action: Machine.Action) -> String {
        switch action {
        case .none: return "none"
        case .adapt: return "adapt"
        case .enqueue: return "enqueue"
        case .releaseSlot: return "releaseSlot"
        case .makeTask: return "makeTask"
        case .resume: return "resume"
        case .discard: return "discard"
        case .askRetry: return "askRetry"
        case .backOff: return "backOff"
        case let .redirect(_, byTransport): return byTransport ? "redirect(byTransport)" : "redirect(afterTask)"
        case .followRedirect: return "followRedirect"
        case let .judge(limitHit): return limitHit == nil ? "judge" : "judge(limitHit)"
        case let .end(ending):
            switch ending.outcome {
            case .success: return "end(success)"
            case let .failure(.invalidURL(detail), _): return "end(invalidURL(\(detail.debugDescription)))"
            case let .failure(error, _): return "end(\(error.caseName))"
            case .rejected: return "end(rejected)"
            }
        }
    }

    // MARK: - Every event in every phase

    private struct Event {
        let name: String
        let apply: (inout Machine, FakeTask) -> Machine.Action
    }

    private var events: [Event] {
        let request = self.request
        return [
            Event(name: "submit") { machine, _ in machine.submit() },
            Event(name: "adapted") { machine, _ in machine.adapted(.success(request)) },
            Event(name: "adaptFailed") { machine, _ in machine.adapted(.failure(.invalidURL("x"))) },
            Event(name: "slotGranted") { machine, _ in machine.slotGranted() },
            Event(name: "taskCreated") { machine, task in machine.taskCreated(task) },
            Event(name: "taskCreationFailed") { machine, _ in machine.taskCreationFailed(.invalidURL("x")) },
            Event(name: "taskCompleted") { machine, _ in machine.taskCompleted(failed: false) },
            Event(name: "taskFailed") { machine, _ in machine.taskCompleted(failed: true) },
            Event(name: "redirect") { machine, _ in
                machine.redirectMet(.follow(self.next, head: self.redirectHead, replaysBody: false), maximum: 5)
            },
            Event(name: "redirectWithBody") { machine, _ in
                machine.redirectMet(.follow(self.next, head: self.redirectHead, replaysBody: true), maximum: 5)
            },
            Event(name: "redirectOverLimit") { machine, _ in
                machine.redirectMet(.follow(self.next, head: self.redirectHead, replaysBody: false), maximum: 0)
            },
            Event(name: "redirectRefused") { machine, _ in
                machine.redirectMet(.refused(.unsupportedRedirect("ftp", self.redirectHead)), maximum: 5)
            },
            Event(name: "restart") { machine, _ in machine.restart(with: nil) },
            Event(name: "succeeded") { machine, _ in machine.succeeded() },
            Event(name: "rejected") { machine, _ in machine.rejected(CocoaError(.featureUnsupported)) },
            Event(name: "attemptFailed") { machine, _ in machine.attemptFailed(.timedOut, response: nil) },
            Event(name: "failedForGood") { machine, _ in machine.failedForGood(.timedOut, response: nil) },
            Event(name: "retryDecided(nil)") { machine, _ in machine.retryDecided(delay: nil) },
            Event(name: "retryDecided(1)") { machine, _ in machine.retryDecided(delay: 1) },
            Event(name: "backoffElapsed") { machine, _ in machine.backoffElapsed() },
            Event(name: "cancel") { machine, _ in machine.abort(.cancelled) },
            Event(name: "deadline") { machine, _ in machine.abort(.timedOut) },
        ]
    }

    /// `phase / event → action, new phase`; the whole transition table, written out so that a
    /// change to any transition shows up here.
    private let table: [String: String] = [
        "idle/submit": "adapt adapting",
        "idle/slotGranted": "releaseSlot idle",
        "idle/taskCreated": "discard idle",
        "idle/cancel": "end(cancelled) cancelled",
        "idle/deadline": "end(timedOut) finished",
        "adapting/adapted": "enqueue queued",
        "adapting/adaptFailed": "end(invalidURL(\"x\")) finished",
        "adapting/slotGranted": "releaseSlot adapting",
        "adapting/taskCreated": "discard adapting",
        "adapting/cancel": "end(cancelled) cancelled",
        "adapting/deadline": "end(timedOut) finished",
        "queued/slotGranted": "makeTask starting",
        "queued/taskCreated": "discard queued",
        "queued/cancel": "end(cancelled) cancelled",
        "queued/deadline": "end(timedOut) finished",
        "starting/slotGranted": "releaseSlot starting",
        "starting/taskCreated": "resume running",
        "starting/taskCreationFailed": "end(invalidURL(\"x\")) finished",
        "starting/cancel": "end(cancelled) cancelled",
        "starting/deadline": "end(timedOut) finished",
        "running/slotGranted": "releaseSlot running",
        "running/taskCreated": "discard running",
        "running/taskCompleted": "judge processing",
        "running/taskFailed": "judge processing",
        "running/redirect": "redirect(byTransport) running",
        "running/redirectWithBody": "redirect(afterTask) running(followAfterTask)",
        "running/redirectOverLimit": "none running(limitReached)",
        "running/redirectRefused": "none running(refused)",
        "running/cancel": "end(cancelled) cancelled",
        "running/deadline": "end(timedOut) finished",
        // A task that met a redirect it does not let the transport follow meets no other.
        "running(followAfterTask)/slotGranted": "releaseSlot running(followAfterTask)",
        "running(followAfterTask)/taskCreated": "discard running(followAfterTask)",
        "running(followAfterTask)/taskCompleted": "followRedirect processing",
        "running(followAfterTask)/taskFailed": "judge processing",
        "running(followAfterTask)/cancel": "end(cancelled) cancelled",
        "running(followAfterTask)/deadline": "end(timedOut) finished",
        "running(refused)/slotGranted": "releaseSlot running(refused)",
        "running(refused)/taskCreated": "discard running(refused)",
        "running(refused)/taskCompleted": "end(unsupportedRedirect) finished",
        "running(refused)/taskFailed": "end(unsupportedRedirect) finished",
        "running(refused)/cancel": "end(cancelled) cancelled",
        "running(refused)/deadline": "end(timedOut) finished",
        "running(limitReached)/slotGranted": "releaseSlot running(limitReached)",
        "running(limitReached)/taskCreated": "discard running(limitReached)",
        "running(limitReached)/taskCompleted": "judge(limitHit) processing",
        "running(limitReached)/taskFailed": "judge(limitHit) processing",
        "running(limitReached)/cancel": "end(cancelled) cancelled",
        "running(limitReached)/deadline": "end(timedOut) finished",
        "processing/slotGranted": "releaseSlot processing",
        "processing/taskCreated": "discard processing",
        "processing/restart": "makeTask starting",
        "processing/succeeded": "end(success) finished",
        "processing/rejected": "end(rejected) finished",
        "processing/attemptFailed": "askRetry processing",
        "processing/failedForGood": "end(timedOut) finished",
        "processing/cancel": "end(cancelled) cancelled",
        "processing/deadline": "end(timedOut) finished",
        "backingOff/slotGranted": "releaseSlot backingOff",
        "backingOff/taskCreated": "discard backingOff",
        "backingOff/backoffElapsed": "adapt adapting",
        "backingOff/cancel": "end(cancelled) cancelled",
        "backingOff/deadline": "end(timedOut) finished",
        "finished/slotGranted": "releaseSlot finished",
        "finished/taskCreated": "discard finished",
        "cancelled/slotGranted": "releaseSlot cancelled",
        "cancelled/taskCreated": "discard cancelled",
    ]

    func testEveryEventInEveryPhase() {
        for phase in Reached.allCases {
            for event in events {
                var machine = self.machine(in: phase)
                let action = event.apply(&machine, task)
                let key = "\(phase.rawValue)/\(event.name)"
                // Anything not in the table is ignored: no action, no change of phase.
                let expected = table[key] ?? "none \(phase.rawValue)"
                XCTAssertEqual("\(kind(of: action)) \(name(of: machine))", expected, key)
            }
        }
    }

    func testAnEndedTransferNeverEndsAgain() {
        for phase in [Reached.finished, .cancelled] {
            for event in events {
                var machine = self.machine(in: phase)
                if case .end = event.apply(&machine, task) { XCTFail("\(phase)/\(event.name) ended twice") }
            }
        }
    }

    // MARK: - What an ending releases

    func testEndingReleasesWhatThePhaseHeld() throws {
        let cases: [(Reached, task: Bool, slot: Bool)] = [
            (.idle, false, false), (.adapting, false, false), (.queued, false, false),
            (.starting, false, true), (.running, true, true), (.processing, false, true), (.backingOff, false, false),
        ]
        for (phase, hasTask, holdsSlot) in cases {
            var machine = self.machine(in: phase)
            guard case let .end(ending) = machine.abort(.cancelled) else { return XCTFail("\(phase) did not end") }
            XCTAssertEqual(ending.taskToCancel != nil, hasTask, "\(phase)")
            if hasTask { XCTAssertTrue(ending.taskToCancel === task) }
            XCTAssertEqual(ending.heldSlot, holdsSlot, "\(phase)")
            XCTAssertTrue(ending.wasCancelled)
            XCTAssertEqual(machine.publicState, .cancelled)
        }
    }

    // MARK: - Races, both orders, one ending each

    /// Plays `events` in order and returns the endings that came out.
    private func endings(_ machine: inout Machine, _ events: [(inout Machine) -> Machine.Action]) -> [Machine.Ending] {
        events.compactMap { event in
            if case let .end(ending) = event(&machine) { return ending }
            return nil
        }
    }

    func testCancelRacingCompletion() {
        var cancelFirst = machine(in: .running)
        let first = endings(&cancelFirst, [{ $0.abort(.cancelled) }, { $0.taskCompleted(failed: false) }, { $0.succeeded() }])
        XCTAssertEqual(first.count, 1)
        XCTAssertTrue(first.first?.wasCancelled == true)
        XCTAssertNotNil(first.first?.taskToCancel)

        var completionFirst = machine(in: .running)
        let second = endings(&completionFirst, [{ $0.taskCompleted(failed: false) }, { $0.succeeded() }, { $0.abort(.cancelled) }])
        XCTAssertEqual(second.count, 1)
        if case .success? = second.first?.outcome {} else { XCTFail("expected the success to win") }
        XCTAssertEqual(completionFirst.publicState, .finished)
    }

    func testDeadlineRacingRetry() {
        // The deadline fires while the retry policy is being asked: the retry's answer is dropped.
        var machine = self.machine(in: .processing)
        let raced = endings(&machine, [
            { $0.attemptFailed(.transport(URLError(.networkConnectionLost)), response: nil) },
            { $0.abort(.timedOut) },
            { $0.retryDecided(delay: 0) },
            { $0.backoffElapsed() },
        ])
        XCTAssertEqual(raced.count, 1)
        if case .failure(.timedOut, _)? = raced.first?.outcome {} else { XCTFail("\(String(describing: raced.first?.outcome))") }
        XCTAssertTrue(raced.first?.heldSlot == true, "the slot held while processing is released by the ending")

        // The deadline fires during the backoff: no slot, no task to cancel.
        var backingOff = self.machine(in: .backingOff)
        let late = endings(&backingOff, [{ $0.abort(.timedOut) }, { $0.backoffElapsed() }, { $0.adapted(.success(self.request)) }])
        XCTAssertEqual(late.count, 1)
        XCTAssertEqual(late.first?.heldSlot, false)
        XCTAssertNil(late.first?.taskToCancel)
    }

    func testCancelDuringAdapt() {
        var machine = self.machine(in: .adapting)
        let raced = endings(&machine, [{ $0.abort(.cancelled) }, { $0.adapted(.success(self.request)) }])
        XCTAssertEqual(raced.count, 1)
        // The slot that a late enqueue might still bring goes straight back.
        guard case .releaseSlot = machine.slotGranted() else { return XCTFail("slot not returned") }
    }

    func testCancelWhileTheTaskIsBeingMade() {
        var machine = self.machine(in: .starting)
        guard case let .end(ending) = machine.abort(.cancelled) else { return XCTFail("no ending") }
        XCTAssertTrue(ending.heldSlot)
        XCTAssertNil(ending.taskToCancel, "no task exists yet: the one being made is discarded when it arrives")
        guard case let .discard(discarded) = machine.taskCreated(task) else { return XCTFail("task not discarded") }
        XCTAssertTrue(discarded === task)
    }

    func testCloseBeforeSchedule() {
        // A closed Network cancels a transfer before it is submitted: submitting it afterwards does nothing.
        var machine = Machine()
        XCTAssertEqual(endings(&machine, [{ $0.abort(.cancelled) }, { $0.submit() }]).count, 1)
        XCTAssertEqual(machine.publicState, .cancelled)
    }

    // MARK: - Attempts

    func testRetriesCountAttemptsAndArmTheDeadlineOnce() {
        var machine = Machine()
        var armed = 0
        for attempt in 1...3 {
            guard case let .adapt(number) = attempt == 1 ? machine.submit() : machine.backoffElapsed() else { return XCTFail() }
            XCTAssertEqual(number, attempt)
            XCTAssertEqual(kind(of: machine.adapted(.success(request))), "enqueue")
            XCTAssertEqual(kind(of: machine.slotGranted()), "makeTask")
            guard case let .resume(_, armDeadline) = machine.taskCreated(FakeTask()) else { return XCTFail() }
            if armDeadline { armed += 1 }
            _ = machine.taskCompleted(failed: true)
            guard case let .askRetry(_, _, _, failedAttempt) = machine.attemptFailed(.timedOut, response: nil) else { return XCTFail() }
            XCTAssertEqual(failedAttempt, attempt)
            if attempt < 3 {
                guard case .backOff = machine.retryDecided(delay: 0.5) else { return XCTFail() }
                XCTAssertEqual(machine.publicState, .running)
            }
        }
        guard case let .end(ending) = machine.retryDecided(delay: nil) else { return XCTFail() }
        if case .failure(.timedOut, _) = ending.outcome {} else { XCTFail("the last attempt's error is delivered") }
        XCTAssertEqual(machine.attempts, 3)
        XCTAssertEqual(armed, 1)
    }

    func testARestartKeepsTheAttemptAndFollowsTheRedirect() {
        var machine = self.machine(in: .processing)
        let next = WireRequest(url: URL(string: "http://127.0.0.1/next")!)
        guard case let .makeTask(made) = machine.restart(with: next) else { return XCTFail() }
        XCTAssertEqual(made.url, next.url)
        XCTAssertEqual(machine.attempts, 1)
        guard case let .resume(_, armDeadline) = machine.taskCreated(FakeTask()) else { return XCTFail() }
        XCTAssertFalse(armDeadline, "the deadline is armed once, by the first task")
        XCTAssertEqual(machine.request?.url, next.url)
    }

    func testRedirectLimit() {
        var machine = self.machine(in: .running)
        let follow = Machine.RedirectProposal.follow(next, head: redirectHead, replaysBody: false)
        XCTAssertEqual(kind(of: machine.redirectMet(follow, maximum: 2)), "redirect(byTransport)")
        XCTAssertEqual(kind(of: machine.redirectMet(follow, maximum: 2)), "redirect(byTransport)")
        XCTAssertEqual(kind(of: machine.redirectMet(follow, maximum: 2)), "none", "the third is over the limit")
        guard case .redirectLimitReached = machine.headRoute else { return XCTFail("the redirect's head ends the transfer") }
        // A new attempt counts from zero again.
        guard case .judge(redirectLimitHit: _?) = machine.taskCompleted(failed: false) else { return XCTFail() }
        _ = machine.attemptFailed(.timedOut, response: nil)
        _ = machine.retryDecided(delay: 0)
        _ = machine.backoffElapsed()
        _ = machine.adapted(.success(request))
        _ = machine.slotGranted()
        _ = machine.taskCreated(FakeTask())
        XCTAssertEqual(kind(of: machine.redirectMet(follow, maximum: 2)), "redirect(byTransport)")
    }

    func testARedirectCourierFollowsSkipsItsHeadAndBodyThenMakesANewTask() {
        var machine = self.machine(in: .running)
        guard case .body = machine.headRoute else { return XCTFail() }
        XCTAssertFalse(machine.skipsBody)
        _ = machine.redirectMet(.follow(next, head: redirectHead, replaysBody: true), maximum: 5)
        guard case .skip = machine.headRoute else { return XCTFail("the 307's head is nobody's answer") }
        XCTAssertTrue(machine.skipsBody)
        guard case let .followRedirect(request) = machine.taskCompleted(failed: false) else { return XCTFail() }
        XCTAssertEqual(request.url, next.url)
        guard case let .makeTask(made) = machine.restart(with: request) else { return XCTFail() }
        XCTAssertEqual(made.url, next.url)
        _ = machine.taskCreated(FakeTask())
        XCTAssertFalse(machine.skipsBody, "the new task's body is the answer")
        XCTAssertEqual(machine.attempts, 1, "the same attempt")
    }

    /// A transport that follows at most 2 redirects a task (FoundationNetworking: 19): the third
    /// goes to a new task, whose count starts again, while the attempt's limit counts them all.
    func testRedirectsPastTheTransportsCeilingGoToANewTask() {
        var machine = self.machine(in: .running)
        let follow = Machine.RedirectProposal.follow(next, head: redirectHead, replaysBody: false)
        XCTAssertEqual(kind(of: machine.redirectMet(follow, maximum: 5, followedPerTask: 2)), "redirect(byTransport)")
        XCTAssertEqual(kind(of: machine.redirectMet(follow, maximum: 5, followedPerTask: 2)), "redirect(byTransport)")
        guard case .redirect(_, byTransport: false) = machine.redirectMet(follow, maximum: 5, followedPerTask: 2) else {
            return XCTFail("the third is Courier's to follow")
        }
        guard case .skip = machine.headRoute else { return XCTFail("the third redirect's head is nobody's answer") }
        guard case .followRedirect = machine.taskCompleted(failed: false) else { return XCTFail() }
        _ = machine.restart(with: next)
        _ = machine.taskCreated(FakeTask())
        XCTAssertEqual(kind(of: machine.redirectMet(follow, maximum: 5, followedPerTask: 2)), "redirect(byTransport)")
        XCTAssertEqual(kind(of: machine.redirectMet(follow, maximum: 5, followedPerTask: 2)), "redirect(byTransport)")
        XCTAssertEqual(kind(of: machine.redirectMet(follow, maximum: 5, followedPerTask: 2)), "none", "the sixth is over the limit")
        guard case .redirectLimitReached = machine.headRoute else { return XCTFail() }
    }

    func testPublicStates() {
        XCTAssertEqual(machine(in: .idle).publicState, .queued)
        XCTAssertEqual(machine(in: .queued).publicState, .queued)
        XCTAssertEqual(machine(in: .running).publicState, .running)
        XCTAssertEqual(machine(in: .backingOff).publicState, .running)
        XCTAssertEqual(machine(in: .finished).publicState, .finished)
        XCTAssertEqual(machine(in: .cancelled).publicState, .cancelled)
    }
}
