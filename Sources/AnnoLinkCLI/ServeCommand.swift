import AnnoLinkService
import Foundation

/// `annolink serve`: a GeoPackage or a PostGIS data set as an HTTP editing backend
/// (docs/serve.md, docs/postgis.md).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "serve a GeoPackage or PostGIS data set over HTTP (GeoServices FeatureServer, OGC API Features, a map editor)",
        discussion: """
            Serves FILE.gpkg over HTTP until stopped with SIGTERM or SIGINT (Ctrl-C): Esri's
            GeoServices FeatureServer at /arcgis/rest/services/NAME/FeatureServer and OGC API -
            Features at /ogc, where NAME is the file's name without .gpkg; GET /health answers
            {"status": "ok"} while the file can be read; GET /journal says where the edit
            journal stands, and POST /journal/undo and /journal/redo do what 'annolink undo'
            and 'annolink redo' do. Every edit regenerates its linked annotation in the same
            transaction and is journaled, with the user of its token ('annolink log',
            'annolink undo').

            A map editor for a browser is at / (docs/editor.md): Esri's feature-linked
            annotation workflow, identify, viewpoint, export image, and the reticle and vertex
            tools. Their sketches are sessions on the server at /sketch/sessions, each the
            geometry editor 'annolink sketch' runs (docs/serve.md, "Sketch sessions").

            Prints the URL on standard output once it accepts connections, and one line per
            request on standard error: time, method, path, status, milliseconds, user ('-' for
            anonymous, '?' for an unknown token). On SIGTERM or SIGINT it stops accepting
            connections, lets the requests in flight finish (up to 10 seconds) and exits 0;
            an edit still running after 8 seconds rolls back and is answered 503.

            Unless --read-only, the file is switched to WAL journaling, so that reads never
            wait for the writer. Edits are made one at a time. An applyEdits sent with an
            'Idempotency-Key' header (or an 'idempotencyKey' parameter) is made once: the same
            key again gets the first answer (kept 24 hours, in the file).

            FILE may be a PostGIS database instead (postgresql://… or PG:…, as 'annolink copy'
            made it; NAME is then the database's name): reads use a pool of connections, each
            edit a connection and a PostgreSQL transaction of its own with its rows locked, so
            any number of servers may serve one database; GET /journal?key=KEY&wait=SECONDS
            waits for another server's edit (LISTEN). Not served from PostGIS yet: the map
            page's /coordinates and /render.png, sketch sessions, single OGC items and OGC
            edits (they answer 501). See docs/postgis.md.
            """,
        exitStatus: "0 stopped by SIGTERM or SIGINT, 64 bad usage, 65 not a GeoPackage or bad token file, 66 no such file or database, 69 libmicrohttpd is not installed, 74 login refused, 75 the address is in use or the database server unreachable.",
        note: """
            Security: with --tokens, requests without a valid token may only read, and a 'read'
            token may only read; without --tokens anyone who can connect may edit, so keep the
            default loopback address, or give --tokens (behind a TLS proxy) when listening on
            other addresses. A web page of another origin may never edit without a token (its
            browser says so in Origin or Sec-Fetch-Site), and a request whose Host header does
            not name the server is answered 400, so that neither a cross-site form nor DNS
            rebinding reaches the data (docs/serve.md, "Who may edit").
            """,
        example: """
            annolink serve loudoun.gpkg --listen 127.0.0.1:8080 --tokens tokens.txt
            curl 'http://127.0.0.1:8080/ogc/collections?f=json'
            """)

    static let listen = ArgumentDeclaration.option("--listen", value: "HOST:PORT", help: """
        the address and port to listen on (default 127.0.0.1:8080; [::1]:8080 for IPv6,
        0.0.0.0:8080 for every interface, port 0 for any free port)
        """)
    static let publicURL = ArgumentDeclaration.option("--public-url", value: "URL", help: """
        the URL clients reach the server by when a proxy or another name stands in front
        of it (http[s]://HOST[:PORT], no path): requests naming that host are answered,
        pages of that origin may edit, and links in answers use it
        """)
    static let basePath = ArgumentDeclaration.option("--base-path", value: "PATH", help: """
        serve everything under PATH (/gis/annolink) instead of /: the OGC API at PATH/ogc,
        the map editor at PATH/, and so on, and every link names PATH; other paths are
        answered 404. For a reverse proxy that forwards the path as the client sent it
        """)
    static let trustForwardedPrefix = ArgumentDeclaration.flag("--trust-forwarded-prefix", help: """
        put a request's X-Forwarded-Prefix (the path a reverse proxy took off before
        forwarding) in front of every link; only for a server that only its proxy reaches,
        which sets or removes that header: otherwise any client could choose its links
        """)
    static let cors = ArgumentDeclaration.option("--cors", value: "ORIGIN,…", help: """
        let web pages of these other origins (https://app.example.org, comma-separated)
        use the service from a browser (CORS): they may read, and edit as the server's own
        page may (with a token under --tokens); '*' lets every origin's pages read, and
        edit only with a token. Off by default: pages elsewhere may not read at all
        """)
    static let readOnly = ArgumentDeclaration.flag("--read-only", help: "refuse every edit; the file is opened read-only")
    static let allowEmpty = ArgumentDeclaration.flag("--allow-empty", help: """
        let edits leave a field that a label expression reads empty or NULL
        (refused otherwise, in every interface, as 'set' refuses it)
        """)
    static let tokens = ArgumentDeclaration.option("--tokens", value: "FILE", help: """
        the access tokens, one per line: TOKEN USER read|edit ('#' starts a comment); a
        client sends one as 'Authorization: Bearer TOKEN' or as the 'token' parameter.
        Without a valid token a client may only read.
        """)
    static let maxRecords = ArgumentDeclaration.option("--max-records", value: "N", help: """
        the most features one response holds (default 2000); clients page beyond it
        """)
    static let maxBody = ArgumentDeclaration.option("--max-body", value: "BYTES", help: """
        the largest request body accepted (default 10485760, 10 MiB); a larger one is
        answered 413 and read no further
        """)
    static let queryTimeout = ArgumentDeclaration.option("--query-timeout", value: "SECONDS", help: """
        how long the SQL of one request may run before it is stopped (default 5)
        """)
    static let threads = ArgumentDeclaration.option("--threads", value: "N", help: """
        the server's worker threads, and the most reads at once (default 8)
        """)
    static let sketchSessions = ArgumentDeclaration.option("--sketch-sessions", value: "N", help: """
        the most map-editor sketch sessions open at once (default \(SketchRoutes.defaultLimit)); one more is
        answered 503
        """)
    static let sketchIdle = ArgumentDeclaration.option("--sketch-idle", value: "SECONDS", help: """
        how long a sketch session may go without a request before it is ended (default
        \(Int(SketchRoutes.defaultIdleSeconds)), 30 minutes)
        """)
    static let maxConnections = ArgumentDeclaration.option("--max-connections", value: "N", help: """
        the most connections open at once (default 256); further clients wait in the
        listen queue
        """)
    static let maxConnectionsPerAddress = ArgumentDeclaration.option("--max-connections-per-address", value: "N", help: """
        the most connections open at once from one IP address (default 64), so that one
        client, slow or hostile, cannot take them all; more are closed at once. The share
        shrinks as other addresses fill the connections, and the last eighth is kept for
        addresses holding none (docs/serve.md). Behind a proxy every client has the proxy's
        address: raise it to --max-connections there
        """)
    static let idleTimeout = ArgumentDeclaration.option("--idle-timeout", value: "SECONDS", help: """
        close a connection that sends nothing for this long (default 30): an idle
        keep-alive connection, or a client that stopped part-way through its request
        """)
    static let maxEdits = ArgumentDeclaration.option("--max-edits-per-request", value: "N", help: """
        the most edits one request may make (default 10000): adds, updates and deletes of
        one applyEdits together; a request of more is refused before any edit is made
        """)
    static let editTimeout = ArgumentDeclaration.option("--edit-timeout", value: "SECONDS", help: """
        how long one edit request may take, waiting for other edits included (default 30);
        past it its edits roll back and it is answered with an error
        """)
    static let quiet = ArgumentDeclaration.flag("--quiet", help: "no access log on standard error")
    static let arguments = [SetCommand.file, listen, publicURL, basePath, trustForwardedPrefix, cors, readOnly, allowEmpty, tokens, maxRecords, maxBody,
                            queryTimeout, maxEdits, editTimeout, threads,
                            maxConnections, maxConnectionsPerAddress, idleTimeout, sketchSessions, sketchIdle, quiet]

    var path: String
    var listenText: String?
    var publicURLText: String?
    var publicURLValue: SameOrigin.PublicURL?
    var corsText: String?
    var basePathText: String?
    var basePathValue = PathPrefix.root
    var trustsForwardedPrefix: Bool
    var corsValue: SameOrigin.CORS?
    var isReadOnly: Bool
    var allowsEmptyLabelValues: Bool
    var tokensPath: String?
    var maxRecordCount: Int
    var maxBodyBytes: Int
    var queryTimeLimit: Double
    var maxEditsPerRequest: Int
    var editTimeLimit: Double
    var threadCount: Int
    var sketchSessionLimit: Int
    var sketchIdleSeconds: Double
    var connectionLimit: Int
    var connectionsPerAddressLimit: Int
    var idleTimeoutSeconds: Int
    var isQuiet: Bool
    var address = ListenAddress.loopback(port: 8080)

    init(parsing arguments: inout Arguments) throws {
        listenText = try arguments.option(Self.listen)
        publicURLText = try arguments.option(Self.publicURL)
        corsText = try arguments.option(Self.cors)
        basePathText = try arguments.option(Self.basePath)
        trustsForwardedPrefix = arguments.flag(Self.trustForwardedPrefix)
        isReadOnly = arguments.flag(Self.readOnly)
        allowsEmptyLabelValues = arguments.flag(Self.allowEmpty)
        tokensPath = try arguments.option(Self.tokens)
        let positive = "a positive whole number"
        maxRecordCount = try arguments.option(Self.maxRecords, as: positive) { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 2000
        maxBodyBytes = try arguments.option(Self.maxBody, as: positive) { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 10 * 1024 * 1024
        queryTimeLimit = try arguments.option(Self.queryTimeout, as: "a positive number of seconds") {
            Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        } ?? 5
        maxEditsPerRequest = try arguments.option(Self.maxEdits, as: positive) { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 10_000
        editTimeLimit = try arguments.option(Self.editTimeout, as: "a positive number of seconds") {
            Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        } ?? 30
        threadCount = try arguments.option(Self.threads, as: "a whole number from 1 to 256") { Int($0).flatMap { (1...256).contains($0) ? $0 : nil } } ?? 8
        sketchSessionLimit = try arguments.option(Self.sketchSessions, as: "a whole number from 1 to 1024") {
            Int($0).flatMap { (1...1024).contains($0) ? $0 : nil }
        } ?? SketchRoutes.defaultLimit
        sketchIdleSeconds = try arguments.option(Self.sketchIdle, as: "a number of seconds from 1 to 604800 (a week)") {
            Double($0).flatMap { $0 >= 1 && $0 <= 604_800 ? $0 : nil }
        } ?? SketchRoutes.defaultIdleSeconds
        connectionLimit = try arguments.option(Self.maxConnections, as: "a whole number from 1 to 65536") {
            Int($0).flatMap { (1...65536).contains($0) ? $0 : nil }
        } ?? 256
        connectionsPerAddressLimit = try arguments.option(Self.maxConnectionsPerAddress, as: "a whole number from 1 to 65536") {
            Int($0).flatMap { (1...65536).contains($0) ? $0 : nil }
        } ?? 64
        idleTimeoutSeconds = try arguments.option(Self.idleTimeout, as: "a whole number of seconds from 1 to 86400") {
            Int($0).flatMap { (1...86400).contains($0) ? $0 : nil }
        } ?? 30
        isQuiet = arguments.flag(Self.quiet)
        path = try arguments.positional(SetCommand.file)
    }

    mutating func validate() throws {
        if let listenText {
            do {
                address = try ListenAddress(parsing: listenText)
            } catch let error as ServerError {
                throw CommandError.usage(error.description)
            }
        }
        if let publicURLText {
            do {
                publicURLValue = try SameOrigin.PublicURL(parsing: publicURLText)
            } catch let error as ServerError {
                throw CommandError.usage(error.description)
            }
        }
        if let basePathText {
            do {
                basePathValue = try PathPrefix(parsing: basePathText, option: "--base-path")
            } catch let error as ServerError {
                throw CommandError.usage(error.description)
            }
        }
        if let corsText {
            do {
                corsValue = try SameOrigin.CORS(parsing: corsText)
            } catch let error as ServerError {
                throw CommandError.usage(error.description)
            }
        }
    }

    func run() throws -> ExitStatus {
        var tokenTable: TokenTable?
        if let tokensPath {
            guard FileManager.default.fileExists(atPath: tokensPath) else { throw CommandError("no such token file: \(tokensPath)", status: .noInput) }
            let text = try String(contentsOfFile: tokensPath, encoding: .utf8)
            tokenTable = try TokenTable(parsing: text, path: tokensPath)
        }
        let dataset = try Dataset(path: path, readOnly: isReadOnly, maxRecords: maxRecordCount, queryTimeLimit: queryTimeLimit,
                                  readerLimit: threadCount, maxEditsPerRequest: maxEditsPerRequest, editTimeLimit: editTimeLimit,
                                  allowsEmptyLabelValues: allowsEmptyLabelValues)
        let configuration = ServerConfiguration(listen: address, threads: threadCount, maxBodyBytes: maxBodyBytes,
                                                connectionLimit: connectionLimit,
                                                connectionsPerAddressLimit: min(connectionsPerAddressLimit, connectionLimit),
                                                idleTimeoutSeconds: idleTimeoutSeconds, tokens: tokenTable, accessLog: !isQuiet,
                                                sketchSessionLimit: sketchSessionLimit, sketchIdleSeconds: sketchIdleSeconds,
                                                publicURL: publicURLValue, cors: corsValue, basePath: basePathValue,
                                                trustsForwardedPrefix: trustsForwardedPrefix)
        let server = HTTPServer(dataset: dataset, routes: [HealthRoutes()] + ServiceRoutes.routes(for: configuration),
                                configuration: configuration)

        // Blocked before libmicrohttpd starts its threads, which inherit the mask, so that only
        // `sigwait` below takes them; the default action is restored first, because a signal
        // ignored when the process started (a test runner's child) would never be delivered.
        let stopSignals = [SIGINT, SIGTERM]
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in stopSignals {
            Foundation.signal(signal, SIG_DFL)
            sigaddset(&mask, signal)
        }
        Foundation.signal(SIGPIPE, SIG_IGN)
        pthread_sigmask(SIG_BLOCK, &mask, nil)

        let port = try server.start()
        var bound = address
        bound.port = port
        let base = basePathValue.path
        Output.line("annolink serve: \(dataset.name) at http://\(bound)\(base)/ "
            + "(FeatureServer \(base)/arcgis/rest/services/\(dataset.name)/FeatureServer, OGC API \(base)/ogc)")
        if !bound.isLoopback && tokenTable == nil && !isReadOnly {
            Output.diagnostic("warning: listening on \(bound) without --tokens: anyone who can connect may edit \(path)")
        }

        var received: Int32 = 0
        while sigwait(&mask, &received) != 0 {}
        Output.diagnostic("annolink serve: stopping on \(received == SIGTERM ? "SIGTERM" : "SIGINT"); finishing \(server.requestsInFlight) requests")
        server.stop(grace: 10)
        return .success
    }
}
