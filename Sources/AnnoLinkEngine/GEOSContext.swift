import CGEOS

/// Owns one GEOS context (`GEOS_init_r` … `GEOS_finish_r`): every GEOS call goes through a
/// context, and GEOS reports errors and notices to the context's message handlers, which this
/// class collects into `GEOSError` instead of letting GEOS print them.
///
/// Geometries made in a context (`GEOSGeometry`) keep it alive. A context and its geometries
/// belong to one isolation domain (they are not `Sendable`); make one context per task.
public final class GEOSContext {
    /// The `GEOSContextHandle_t`.
    let handle: OpaquePointer
    /// Error and notice messages since the current call began.
    private let messages = MessageLog()
    let handleCounter: HandleCounter?

    /// Opens a GEOS context, with its error and notice handlers set.
    ///
    /// - Parameter handleCounter: counts this context and its geometries while they live.
    /// - Throws: `GEOSError` when GEOS cannot make a context.
    /// Wraps `GEOS_init_r` and `GEOSContext_setErrorMessageHandler_r`.
    public init(handleCounter: HandleCounter? = nil) throws {
        // GEOS is loaded on first use (Sources/CGEOS): a missing library is a typed error here,
        // before any GEOS function is called.
        guard annolink_geos_load() == 0 else {
            let reason = annolink_geos_load_error().map { String(cString: $0) } ?? "cannot load GEOS"
            throw GEOSError(function: "dlopen", messages: [reason])
        }
        guard let handle = GEOS_init_r() else {
            throw GEOSError(function: "GEOS_init_r", messages: [])
        }
        self.handle = handle
        self.handleCounter = handleCounter
        let log = Unmanaged.passUnretained(messages).toOpaque()
        // Non-capturing: the log arrives as user data. It lives as long as `self`, which
        // finishes the handle in `deinit`, so GEOS never calls back into freed memory.
        GEOSContext_setErrorMessageHandler_r(handle, { message, userData in
            guard let message, let userData else { return }
            Unmanaged<MessageLog>.fromOpaque(userData).takeUnretainedValue()
                .append(String(cString: message))
        }, log)
        GEOSContext_setNoticeMessageHandler_r(handle, { message, userData in
            guard let message, let userData else { return }
            Unmanaged<MessageLog>.fromOpaque(userData).takeUnretainedValue()
                .append(String(cString: message))
        }, log)
        handleCounter?.geos += 1
    }

    deinit {
        GEOS_finish_r(handle)
        handleCounter?.geos -= 1
    }

    /// GEOS's version string, e.g. `3.11.1-CAPI-1.17.1`. Wraps `GEOSversion`.
    public static var version: String {
        annolink_geos_load() == 0 ? String(cString: GEOSversion()) : "not loadable"
    }

    // MARK: Calling GEOS with its failure conventions

    /// Runs one GEOS call with an empty message log.
    func call<Result>(_ body: (OpaquePointer) -> Result) -> Result {
        messages.clear()
        return body(handle)
    }

    /// The error for a failed call of `function`, with what GEOS said during it.
    func failure(_ function: String) -> GEOSError {
        GEOSError(function: function, messages: messages.take())
    }

    /// A call returning a new geometry or coordinate sequence the caller owns; NULL is failure.
    func pointer(_ function: String, _ body: (OpaquePointer) -> OpaquePointer?) throws -> OpaquePointer {
        guard let result = call(body) else { throw failure(function) }
        return result
    }

    /// A call returning a new geometry, wrapped in its owner.
    func geometry(_ function: String, _ body: (OpaquePointer) -> OpaquePointer?) throws -> GEOSGeometry {
        GEOSGeometry(owning: try pointer(function, body), context: self)
    }

    /// A predicate: GEOS returns 1 for true, 0 for false and 2 on exception.
    func predicate(_ function: String, _ body: (OpaquePointer) -> CChar) throws -> Bool {
        switch call(body) {
        case 0: return false
        case 1: return true
        default: throw failure(function)
        }
    }

    /// A call writing a number through a pointer and returning 0 on exception.
    func number(_ function: String, _ body: (OpaquePointer, UnsafeMutablePointer<Double>) -> Int32) throws -> Double {
        var value = 0.0
        let status = call { body($0, &value) }
        guard status != 0 else { throw failure(function) }
        return value
    }

    /// A count or type id: GEOS returns -1 on exception.
    func count(_ function: String, _ body: (OpaquePointer) -> Int32) throws -> Int {
        let value = call(body)
        guard value >= 0 else { throw failure(function) }
        return Int(value)
    }

    /// A call returning a string the caller must free with `GEOSFree_r`; NULL is failure.
    func string(_ function: String, _ body: (OpaquePointer) -> UnsafeMutablePointer<CChar>?) throws -> String {
        guard let text = call(body) else { throw failure(function) }
        defer { GEOSFree_r(handle, text) }
        return String(cString: text)
    }
}

@available(*, unavailable)
extension GEOSContext: Sendable {}
