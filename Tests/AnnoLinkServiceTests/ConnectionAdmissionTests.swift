@testable import AnnoLinkService
import Testing

/// The share of the connection pool one address may hold (`ConnectionAdmission`,
/// docs/serve.md): it shrinks as the pool fills, and an address holding none is always taken
/// while a slot is free.
@Suite struct ConnectionAdmissionTests {
    /// Opens connections from `address` until one is refused; returns how many were taken.
    func fill(_ admission: ConnectionAdmission, from address: UInt8, tries: Int) -> Int {
        var taken = 0
        for _ in 0..<tries where admission.admits([127, 0, 0, address]) {
            admission.began([127, 0, 0, address])
            taken += 1
        }
        return taken
    }

    @Test func fourAddressesAtTheDefaultsLeaveSlotsFreeAndTwentyLeaveTheReserve() {
        let admission = ConnectionAdmission(connectionLimit: 256, perAddressLimit: 64)
        #expect(admission.share(holding: 0, whileOpen: 0) == 64)
        #expect(admission.reserve == 32)
        // Each address in turn takes what it may: 64 × (256 − the others') ÷ 256.
        let taken = (2...5).map { fill(admission, from: UInt8($0), tries: 64) }
        #expect(taken == [64, 48, 36, 27])
        #expect(admission.openConnections == 175)
        // None of them gets more, and a new client does.
        for address in 2...5 { #expect(!admission.admits([127, 0, 0, UInt8(address)])) }
        #expect(admission.admits([127, 0, 0, 1]))
        // Sixteen more addresses fill the pool down to its reserve, then take one slot each.
        let more = (6...21).map { fill(admission, from: UInt8($0), tries: 64) }
        #expect(more == [20, 15, 11, 3] + Array(repeating: 1, count: 12))
        #expect(admission.openConnections == 236)
        #expect(admission.admits([127, 0, 0, 1]), "a new client still gets a slot of the reserve")
        // Once connections close below the reserve, an address holding one may take more.
        #expect(!admission.admits([127, 0, 0, 21]))
        for _ in 0..<30 { admission.closed([127, 0, 0, 2]) }
        #expect(admission.admits([127, 0, 0, 21]))
    }

    @Test func oneAddressAloneMayHoldItsLimitAndAProxyAllButTheReserve() {
        let two = ConnectionAdmission(connectionLimit: 256, perAddressLimit: 2)
        #expect(fill(two, from: 2, tries: 3) == 2)
        let proxy = ConnectionAdmission(connectionLimit: 256, perAddressLimit: 256)
        #expect(fill(proxy, from: 9, tries: 300) == 224)
        #expect(proxy.admits([127, 0, 0, 1]))
    }
}
