import Foundation
import Testing

/// The client libraries only some commands need are loaded on first use (Sources/CLibPQ): a
/// command that never talks to PostgreSQL does not pay the dynamic loader for libpq and what
/// it brings (GSSAPI, LDAP, OpenSSL). The loader says what it initialised under `LD_DEBUG=libs`.
@Suite
struct StartupLibraryTests {
    /// The shared objects the loader initialised while `annolink arguments` ran.
    func librariesLoaded(_ arguments: [String]) throws -> [String] {
        let result = try Harness.run("/usr/bin/env", ["LD_DEBUG=libs", Harness.binary] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr.suffix(500))")
        return result.stderr.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "calling init: ") else { return nil }
            return String(line[range.upperBound...])
        }
    }

    @Test func versionAndAnAttributeEditDoNotLoadLibpq() throws {
        let folder = try Harness.temporaryDirectory()
        let file = folder.appendingPathComponent("sample.gpkg").path
        #expect(try Harness.annolink("sample", "--parcels", "10", file).status == 0)
        for arguments in [["--version"], ["set", file, "address_points", "1", "AD_ADDRESS=123"]] {
            let loaded = try librariesLoaded(arguments)
            #expect(!loaded.isEmpty, "LD_DEBUG=libs listed no library for \(arguments)")
            #expect(!loaded.contains { $0.contains("libpq.so") }, "\(arguments) loaded libpq: \(loaded)")
        }
    }
}
