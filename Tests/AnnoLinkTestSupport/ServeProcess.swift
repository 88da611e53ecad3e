import Foundation

/// A real `annolink serve` process for a test: started on a free loopback port (`--listen
/// 127.0.0.1:0`; the port is read from the URL the server prints when it is ready), checked
/// with `GET /health`, and stopped with SIGTERM.
///
/// The process is started through `/usr/bin/env --default-signal=INT,TERM,HUP`: the test runner
/// ignores those signals and its children would inherit that, so SIGTERM would never arrive.
public final class ServeProcess: @unchecked Sendable {
    /// The base URL, without a trailing slash: `http://127.0.0.1:43121`.
    public let url: String
    /// The port the server listens on.
    public let port: UInt16
    /// The process (its `processIdentifier` for signals).
    public let process: Process
    private let folder: ScratchDirectory

    /// The `annolink` binary built for this test run: beside the test bundle, in the same build
    /// folder. The test target must depend on the `annolink` target so that it is built.
    public static let builtBinary: String = {
        #if os(macOS)
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
        #else
        let bundle = Bundle.main.executableURL
        #endif
        guard let folder = bundle?.resolvingSymlinksInPath().deletingLastPathComponent() else {
            preconditionFailure("cannot find the test bundle, so not the annolink built beside it")
        }
        return folder.appendingPathComponent("annolink").path
    }()

    /// Starts `annolink serve FILE --listen 127.0.0.1:0 ARGUMENTS…` and waits until it answers
    /// `GET /health` (at most `timeout` seconds).
    ///
    /// - Throws: `ServeProcessError.didNotStart` with what the server wrote when it exits or
    ///   does not answer in time.
    public init(file: String, arguments: [String] = [], binary: String = ServeProcess.builtBinary, timeout: Double = 60) throws {
        folder = try ScratchDirectory(prefix: "serve")
        let outPath = folder.path("stdout"), errPath = folder.path("stderr")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=INT,TERM,HUP", binary, "serve", file, "--listen", "127.0.0.1:0"] + arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process

        let deadline = Date().addingTimeInterval(timeout)
        var found: (String, UInt16, String)?
        while found == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            // `http://127.0.0.1:PORT/` or, under --base-path, `http://127.0.0.1:PORT/gis/`.
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+/[^ ]*"#, options: .regularExpression),
               let origin = text[range].range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
               let port = UInt16(text[origin].split(separator: ":").last ?? "") {
                found = (String(text[origin]), port, String(text[origin.upperBound..<range.upperBound]))
            } else {
                usleep(20_000)
            }
        }
        guard let (url, port, root) = found else {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            throw ServeProcessError.didNotStart(stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
        }
        self.url = url
        self.port = port
        guard (try? HTTPClient.request(url + root + "health").status) == 200 else {
            process.terminate()
            process.waitUntilExit()
            throw ServeProcessError.didNotStart(stderr: stderr)
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// What the server wrote to standard error so far (the access log and diagnostics).
    public var stderr: String { (try? String(contentsOfFile: folder.path("stderr"), encoding: .utf8)) ?? "" }

    /// What the server wrote to standard output so far.
    public var stdout: String { (try? String(contentsOfFile: folder.path("stdout"), encoding: .utf8)) ?? "" }

    /// Sends `signal` (SIGTERM unless told) and waits for the process to exit, at most
    /// `timeout` seconds (then it is killed and nil returned). Returns the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Double = 30) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
    }

    /// Sends one request to `path` (see `HTTPClient.request`).
    public func request(_ path: String, method: String = "GET", headers: [String: String] = [:], form: [(String, String)]? = nil,
                        body: Data? = nil, chunked: Bool = false) throws -> HTTPReply {
        try HTTPClient.request(url + path, method: method, headers: headers, form: form, body: body, chunked: chunked)
    }
}

/// Why a test server did not start.
public enum ServeProcessError: Error, CustomStringConvertible {
    /// The process exited, or did not answer, before it printed its URL.
    case didNotStart(stderr: String)

    public var description: String {
        switch self {
        case .didNotStart(let stderr): "annolink serve did not start: \(stderr)"
        }
    }
}
