import Foundation

/// Which connections the server takes, so that slow or hostile clients from a few addresses
/// cannot fill the pool: libmicrohttpd's own limits (`MHD_OPTION_CONNECTION_LIMIT`,
/// `MHD_OPTION_PER_IP_CONNECTION_LIMIT`) bound each address and the total, but four addresses
/// at the per-address limit fill a pool four times that size, and every other client then
/// waits in the listen queue (docs/serve.md, "Limits").
///
/// The rule has two parts:
///
/// - **A share that shrinks as others fill the pool.** An address may hold `perAddressLimit ×
///   (connectionLimit − others) ÷ connectionLimit` connections, `others` being the connections
///   of the other addresses, and at least one: alone it may hold `perAddressLimit`; the more
///   the others hold, the less it may.
/// - **A reserve.** The last eighth of the pool (`reserve`, at least one slot) is kept for
///   addresses that hold no connection: there one connection per address.
///
/// So an address holding none is taken while any slot is free (past that libmicrohttpd's own
/// limit keeps clients in the listen queue), and a normal client gets a slot unless as many
/// addresses as there are reserved slots each hold one. At the defaults (256, 64) four
/// addresses that open all they may hold 64, 48, 36 and 27 and leave 81 slots free; twenty
/// leave the 20 of the reserve they do not hold; one address alone (a proxy, with
/// `perAddressLimit` raised to `connectionLimit`) may hold all but the reserve.
///
/// libmicrohttpd asks `admits(_:)` of every connection it accepts (its accept policy
/// callback), and reports each connection begun and closed (`MHD_OPTION_NOTIFY_CONNECTION`);
/// the polling threads share the counts under a lock.
final class ConnectionAdmission: @unchecked Sendable {
    /// The most connections open at once.
    let connectionLimit: Int
    /// The most connections from one address while the pool is empty.
    let perAddressLimit: Int

    /// The slots at the end of the pool kept for addresses that hold no connection.
    let reserve: Int

    private let lock = NSLock()
    private var open = 0
    private var byAddress: [[UInt8]: Int] = [:]

    init(connectionLimit: Int, perAddressLimit: Int) {
        self.connectionLimit = max(1, connectionLimit)
        self.perAddressLimit = max(1, min(perAddressLimit, connectionLimit))
        reserve = max(1, self.connectionLimit / 8)
    }

    /// The most connections an address holding `own` may hold while `open` are open.
    func share(holding own: Int, whileOpen open: Int) -> Int {
        let others = max(0, open - own)
        return max(1, perAddressLimit * max(0, connectionLimit - others) / connectionLimit)
    }

    /// Whether a new connection from `address` (the IP address's bytes) is taken now.
    func admits(_ address: [UInt8]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let own = byAddress[address, default: 0]
        return own < share(holding: own, whileOpen: open) && (own == 0 || open < connectionLimit - reserve)
    }

    /// A connection from `address` has begun.
    func began(_ address: [UInt8]) {
        lock.lock()
        open += 1
        byAddress[address, default: 0] += 1
        lock.unlock()
    }

    /// A connection from `address` has closed.
    func closed(_ address: [UInt8]) {
        lock.lock()
        open -= 1
        let left = byAddress[address, default: 1] - 1
        byAddress[address] = left > 0 ? left : nil
        lock.unlock()
    }

    /// The connections open now.
    var openConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return open
    }

    /// The bytes of the IP address of a `sockaddr_in` or `sockaddr_in6` (the port left out),
    /// or nil for another family.
    static func addressBytes(_ address: UnsafePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }
}
