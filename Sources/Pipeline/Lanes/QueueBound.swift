import Dispatch

/// State owned by one serial queue (swift-nio's NIOLoopBound): every access checks that it runs
/// on that queue, so a lane's decoder, encoder and buffers are never touched from elsewhere.
// SAFETY: `_value` is only read or written through `value`, which asserts the owning queue.
final class QueueBound<Value>: @unchecked Sendable {
    let queue: DispatchQueue
    private var _value: Value

    init(_ value: Value, queue: DispatchQueue) {
        self._value = value
        self.queue = queue
    }

    var value: Value {
        get { dispatchPrecondition(condition: .onQueue(queue)); return _value }
        _modify { dispatchPrecondition(condition: .onQueue(queue)); yield &_value }
    }
}
