import CPROJ

/// Owns one PROJ context (`proj_context_create` … `proj_context_destroy`) and collects what PROJ
/// logs on it, through `proj_log_func`, for `PROJError`: nothing reaches stderr. Its network
/// access is off (`proj_context_set_enable_network`).
///
/// Every `PJ` made on the context (`PROJObject`) keeps it alive, so the context is destroyed
/// after its objects, as PROJ requires.
final class PROJContext {
    /// The `PJ_CONTEXT *`.
    let raw: OpaquePointer
    /// Log messages since the current call began.
    private let messages = MessageLog()
    let handleCounter: HandleCounter?

    /// Makes a context logging into this object.
    /// - Throws: `PROJError` when PROJ cannot make a context.
    init(handleCounter: HandleCounter?) throws {
        // PROJ is loaded on first use (Sources/CPROJ): a missing library is a typed error here,
        // before any PROJ function is called.
        guard annolink_proj_load() == 0 else {
            let reason = annolink_proj_load_error().map { String(cString: $0) } ?? "cannot load PROJ"
            throw PROJError(function: "dlopen", code: 0, codeDescription: nil, messages: [reason])
        }
        guard let raw = proj_context_create() else {
            throw PROJError(function: "proj_context_create", code: 0, codeDescription: nil, messages: [])
        }
        self.raw = raw
        self.handleCounter = handleCounter
        // Nothing a definition names is fetched (docs/engine.md, "What CRS text is accepted"):
        // PROJ_NETWORK=ON in the environment must not make a request reach the network.
        _ = proj_context_set_enable_network(raw, 0)
        // Non-capturing: the log arrives as app data. It lives as long as `self`, which destroys
        // the context in `deinit`, so PROJ never calls back into freed memory.
        proj_log_func(raw, Unmanaged.passUnretained(messages).toOpaque()) { appData, _, message in
            guard let appData, let message else { return }
            Unmanaged<MessageLog>.fromOpaque(appData).takeUnretainedValue().append(String(cString: message))
        }
        handleCounter?.proj += 1
    }

    deinit {
        proj_context_destroy(raw)
        handleCounter?.proj -= 1
    }

    /// Runs one PROJ call with an empty message log.
    func call<Result>(_ body: (OpaquePointer) -> Result) -> Result {
        messages.clear()
        return body(raw)
    }

    /// The error for a failed call of `function`: PROJ's error number and text for `code`
    /// (the context's last error when nil), and what PROJ logged during the call.
    func failure(_ function: String, code: Int32? = nil) -> PROJError {
        let number = code ?? proj_context_errno(raw)
        let text = number == 0 ? nil : proj_context_errno_string(raw, number).map { String(cString: $0) }
        return PROJError(function: function, code: Int(number), codeDescription: text, messages: messages.take())
    }

    /// A call returning a new `PJ`, wrapped in its owner; NULL is failure.
    func object(_ function: String, _ body: (OpaquePointer) -> OpaquePointer?) throws -> PROJObject {
        guard let result = call(body) else { throw failure(function) }
        return PROJObject(owning: result, context: self)
    }
}

@available(*, unavailable)
extension PROJContext: Sendable {}

/// Owns one PROJ object (`PJ *`: a CRS, a coordinate system, a transformation), destroyed with
/// `proj_destroy` before its context.
final class PROJObject {
    let context: PROJContext
    let raw: OpaquePointer

    init(owning raw: OpaquePointer, context: PROJContext) {
        self.raw = raw
        self.context = context
        context.handleCounter?.proj += 1
    }

    deinit {
        proj_destroy(raw)
        context.handleCounter?.proj -= 1
    }
}

@available(*, unavailable)
extension PROJObject: Sendable {}
