import Foundation

/// Which connections the server takes, so that slow or hostile clients from a few addresses
/// cannot fill the pool: libmicrohttpd's own limits (`MHD_OPTION_CONNECTION_LIMIT`,
/// `MHD_OPTION_PER_IP_CONNECTION_LIMIT`) bound each address and the total, but four addresses
/// at the per-address limit fill a pool four times that size, and every other client then
/// waits in the listen queue (docs/serve.md, "Limits").
///
/// The rule: the share of one address shrinks as the pool fills. An address may hold
/// `perAddressLimit × free ÷ connectionLimit` connections, `free` being the slots not taken,
/// and at least one — so an address holding no connection is taken while any slot is free.
/// Addresses that each take all they may leave about `connectionLimit × (connectionLimit ÷
/// (connectionLimit + perAddressLimit))^k` slots free after `k` of them: at the defaults (256,
/// 64) four addresses hold 51, 41, 33 and 26 and leave 105 free; ten leave 28, twenty 4.
///
/// libmicrohttpd asks `admits(_:)` of every connection it accepts (its accept policy
/// callback), and reports each connection begun and closed (`MHD_OPTION_NOTIFY_CONNECTION`);
/// the polling threads share the counts under a lock.
final class ConnectionAdmission: @unchecked Sendable {
    /// The most connections open at once.
    let connectionLimit: Int
    /// The most connections from one address while the pool is empty.
    let perAddressLimit: Int

    private let lock = NSLock()
    private var open = 0
    private var byAddress: [[UInt8]: Int] = [:]

    init(connectionLimit: Int, perAddressLimit: Int) {
        self.connectionLimit = max(1, connectionLimit)
        self.perAddressLimit = max(1, min(perAddressLimit, connectionLimit))
    }

    /// The most connections one address may hold while `open` are open.
    func share(whileOpen open: Int) -> Int {
        let free = max(0, connectionLimit - open)
        return max(1, perAddressLimit * free / connectionLimit)
    }

    /// Whether a new connection from `address` (the IP address's bytes) is taken now.
    func admits(_ address: [UInt8]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return open < connectionLimit && byAddress[address, default: 0] < share(whileOpen: open)
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
