import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transfers of one ``Network``: every one not yet ended (for ``Network/cancelAll()``), and
/// the running ones by their transport task (for routing delegate calls).
///
/// On Linux per-task delegates are never called, so the one session delegate looks the transfer
/// up here. A task that is no longer registered has ended: its late callbacks are dropped.
final class TransferRegistry: @unchecked Sendable {
    private struct State {
        var live: [ObjectIdentifier: Transfer] = [:]
        var byTask: [ObjectIdentifier: Transfer] = [:]
    }

    private let state = Locked(State())

    func add(_ transfer: Transfer) {
        state.withLock { $0.live[ObjectIdentifier(transfer)] = transfer }
    }

    func attach(_ task: any TransportTask, to transfer: Transfer) {
        state.withLock { $0.byTask[ObjectIdentifier(task)] = transfer }
    }

    func transfer(for task: any TransportTask) -> Transfer? {
        state.withLock { $0.byTask[ObjectIdentifier(task)] }
    }

    /// Stops routing callbacks of `task` (it completed or its transfer ended).
    func detach(_ task: any TransportTask) {
        state.withLock { _ = $0.byTask.removeValue(forKey: ObjectIdentifier(task)) }
    }

    /// Forgets an ended transfer; returns how many are still live.
    @discardableResult
    func remove(_ transfer: Transfer) -> Int {
        state.withLock { state in
            state.live.removeValue(forKey: ObjectIdentifier(transfer))
            return state.live.count
        }
    }

    var liveTransfers: [Transfer] {
        state.withLock { Array($0.live.values) }
    }

    var liveCount: Int { state.withLock { $0.live.count } }
}
