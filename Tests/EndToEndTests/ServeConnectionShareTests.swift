import AnnoLinkTestSupport
import Foundation
import Testing

/// Slow clients from several addresses fill no more than their share of the connections, so a
/// normal client always gets one (issue 25, item 8; docs/serve.md, "How it is built"), against
/// a real `annolink serve`, on loopback only.
@Suite struct ServeConnectionShareTests {
    func sample() throws -> String {
        let path = try Harness.temporaryDirectory().appendingPathComponent("town.gpkg").path
        let made = try Harness.annolink("sample", path, "--parcels", "20")
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    @Test func slowClientsFromFourAddressesLeaveASlotForANormalClient() throws {
        let path = try sample()
        let limit = 32, perAddress = 16
        let server = try ServeProcess(file: path, arguments: ["--max-connections", "\(limit)", "--max-connections-per-address", "\(perAddress)",
                                                              "--idle-timeout", "300", "--quiet"])
        defer { _ = server.stop() }
        // 4 addresses × 16 slow connections: twice the pool. Each sends half a header and stops.
        var slow: [(address: Int, socket: Int32)] = []
        defer { for connection in slow { close(connection.socket) } }
        for address in 2...5 {
            for _ in 0..<perAddress {
                let socket = try HTTPClient.connect(port: server.port, from: "127.0.0.\(address)")
                SlowClient.send(socket, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                slow.append((address, socket))
            }
        }
        // A normal client on 127.0.0.1 is answered (curl gives up after 60 s).
        let normal = try server.request("/health")
        #expect(normal.status == 200)

        // The server closed the slow connections beyond each address's share: fewer than the
        // pool are held, and no address holds more than its limit.
        var held: [(address: Int, socket: Int32)] = slow
        let deadline = Date().addingTimeInterval(30)
        repeat {
            held = slow.filter { !SlowClient.isClosed($0.socket) }
            if held.count < limit { break }
            usleep(50_000)
        } while Date() < deadline
        print("slow connections held by address: \((2...5).map { a in held.filter { $0.address == a }.count }), of \(slow.count) opened")
        #expect(held.count < limit, "slow connections held: \(held.count)")
        for address in 2...5 { #expect(held.filter { $0.address == address }.count <= perAddress) }
        #expect(held.count > 0, "slow clients were taken too, within their share")
    }
}

/// Raw bytes on a connection of `HTTPClient.connect(port:from:)`, and whether the server closed it.
private enum SlowClient {
    static func send(_ socket: Int32, _ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Whether the server closed the connection (end of stream or reset), without waiting.
    static func isClosed(_ socket: Int32) -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }
}
