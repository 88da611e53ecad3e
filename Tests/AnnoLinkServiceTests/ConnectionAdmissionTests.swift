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

    @Test func fourAddressesAtTheDefaultsLeaveAFreeSlotForANewOne() {
        let admission = ConnectionAdmission(connectionLimit: 256, perAddressLimit: 64)
        #expect(admission.share(whileOpen: 0) == 64)
        // Each address in turn takes what it may while the pool fills: 64 × free ÷ 256.
        let taken = (2...5).map { fill(admission, from: UInt8($0), tries: 64) }
        #expect(taken == [51, 41, 33, 26])
        #expect(admission.openConnections == 151)
        // None of them gets more, and a new client does.
        for address in 2...5 { #expect(!admission.admits([127, 0, 0, UInt8(address)])) }
        #expect(admission.admits([127, 0, 0, 1]))
        // As connections close, the shares grow again.
        for _ in 0..<30 { admission.closed([127, 0, 0, 2]) }
        #expect(admission.admits([127, 0, 0, 5]))
    }

    @Test func anAddressWithNoConnectionIsTakenWhileASlotIsFreeAndNoneWhenThePoolIsFull() {
        let admission = ConnectionAdmission(connectionLimit: 4, perAddressLimit: 4)
        #expect(fill(admission, from: 2, tries: 4) == 2)
        #expect(fill(admission, from: 3, tries: 4) == 1)
        #expect(fill(admission, from: 4, tries: 4) == 1)
        #expect(admission.openConnections == 4)
        #expect(!admission.admits([127, 0, 0, 5]), "the pool is full")
        admission.closed([127, 0, 0, 2])
        #expect(admission.admits([127, 0, 0, 5]))
        #expect(!admission.admits([127, 0, 0, 2]), "an address at its share waits")
    }
}
