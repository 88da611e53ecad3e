import AnnoLinkStore

/// A result that can say it is only what an edit would do: the outcome of a dry run.
public protocol DryRunReport: Encodable & Sendable {
    /// The journal entry that records the edit; nil for a dry run.
    var journalEntry: Int64? { get set }
    /// Whether nothing was written.
    var dryRun: Bool { get set }
}

extension EditResult: DryRunReport {}
extension BulkEditResult: DryRunReport {}

/// Runs a request as a dry run (`--dry-run`): its result says exactly what the request would
/// change, and nothing is written.
public struct DryRun<Request: EditRequest>: EditRequest where Request.Result: DryRunReport {
    public static var writes: Bool { false }
    public var request: Request

    public init(_ request: Request) { self.request = request }

    public func run(in service: EditService) throws -> Request.Result {
        try service.dryRun { try request.run(in: service) }
    }
}

extension EditService {
    /// Runs `body` — one edit, or any edit the service makes — and rolls back everything it
    /// wrote, journal entry included: the one way every command makes a dry run, so that what
    /// it reports is what the same edit then does. The file's bytes are left as they were
    /// (`FeatureStore.withoutCommitting`). The result is marked as a dry run, without a journal
    /// entry.
    ///
    /// - Throws: whatever the edit throws, as the edit itself would.
    public func dryRun<Result: DryRunReport>(_ body: () throws -> Result) throws -> Result {
        var result = try store.withoutCommitting(body)
        result.journalEntry = nil
        result.dryRun = true
        return result
    }
}
