// Times RTreeBulkLoader against filling the same rtree through the rtree module, on boxes like
// those of peer-measurements.md §B: 2-point lines of 20–500 ft in random directions over a
// 100,000 × 100,000 ft square, ids 1…N.
//
// Run with `swift run -c release RTreeBenchmarks [count] [runs] [--bulk-only]` (defaults: one
// run of 1,000,000 entries); --bulk-only skips the slow module runs, for profiling the loader.
// Every step runs on a fresh file (created untimed) in WAL mode, as the store opens files. The
// figures are in docs/spatial-index.md.
import AnnoLinkStore
import Foundation

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Order: String, CaseIterable {
    /// Ids 1…N in generation order: spatially random, as in a file whose fids are not spatial.
    case random
    /// Renumbered in the order of 2000-ft cells, row by row: fid order is spatial order.
    case coherent
    /// As `random`, but the array is shuffled, so ids are not ascending (the loader sorts them).
    case shuffledIDs = "shuffled ids"
}

/// Segment boxes in the given order.
func makeEntries(count: Int, order: Order) -> [RTreeEntry] {
    var random = SplitMix64(state: 42)
    var entries = (0..<count).map { i -> RTreeEntry in
        let x = Double.random(in: 0..<100_000, using: &random)
        let y = Double.random(in: 0..<100_000, using: &random)
        let length = Double.random(in: 20..<500, using: &random)
        let angle = Double.random(in: 0..<(2 * Double.pi), using: &random)
        let x2 = x + length * cos(angle)
        let y2 = y + length * sin(angle)
        return RTreeEntry(id: Int64(i + 1), minX: min(x, x2), maxX: max(x, x2), minY: min(y, y2), maxY: max(y, y2))
    }
    switch order {
    case .random:
        break
    case .shuffledIDs:
        entries.shuffle(using: &random)
    case .coherent:
        func cell(_ e: RTreeEntry) -> Int { Int(e.minY / 2_000) * 1_000 + Int(e.minX / 2_000) }
        entries.sort { cell($0) < cell($1) }
        for i in entries.indices { entries[i].id = Int64(i + 1) }
    }
    return entries
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func time(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return seconds(clock.now - start)
}

func freshDatabase(_ directory: URL, _ name: String) throws -> Connection {
    let path = directory.appendingPathComponent(name).path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let connection = try Connection(path: path, mode: .create)
    try connection.execute("CREATE VIRTUAL TABLE rt USING rtree(id, minx, maxx, miny, maxy)")
    return connection
}

/// Runs 2,000 window queries of 2,000 × 2,000 ft and returns (seconds, total hits).
func queryWindows(_ connection: Connection) throws -> (Double, Int) {
    var random = SplitMix64(state: 7)
    var hits = 0
    let elapsed = try time {
        for _ in 0..<2_000 {
            let x = Double.random(in: 0..<98_000, using: &random)
            let y = Double.random(in: 0..<98_000, using: &random)
            hits += Int(try connection.scalarInt(
                "SELECT count(*) FROM rt WHERE minx <= ?1 AND maxx >= ?2 AND miny <= ?3 AND maxy >= ?4",
                [.real(x + 2_000), .real(x), .real(y + 2_000), .real(y)]) ?? 0)
        }
    }
    return (elapsed, hits)
}

let arguments = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("--") }
let bulkOnly = CommandLine.arguments.contains("--bulk-only")
let count = arguments.first.flatMap { Int($0) } ?? 1_000_000
let runs = arguments.dropFirst().first.flatMap { Int($0) } ?? 1
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rtree-bench-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let version = try freshDatabase(directory, "version.sqlite").scalarText("SELECT sqlite_version()") ?? "?"
print("SQLite \(version), \(count) entries, \(runs) run(s)")
print("| order | run | pack s | bulk load s | reload over full s | module INSERT…SELECT s | × | rtreecheck | 2000 windows bulk / module s | hits equal |")
print("|---|---|---|---|---|---|---|---|---|---|")
for order in Order.allCases {
    let entries = makeEntries(count: count, order: order)
    for run in 1...runs {
        let pack = try time { _ = try RTreePacking(entries: entries, nodeSize: 1228) }

        let bulk = try freshDatabase(directory, "bulk.sqlite")
        let load = try time { try RTreeBulkLoader.load(into: "rt", on: bulk, entries: entries) }
        let reload = try time { try RTreeBulkLoader.load(into: "rt", on: bulk, entries: entries) }
        let check = try bulk.scalarText("SELECT rtreecheck('rt')") ?? "?"
        if bulkOnly {
            print(String(format: "| %@ | %d | %.3f | %.3f | %.3f | – | – | %@ | – | – |", order.rawValue, run, pack, load, reload, check))
            continue
        }

        let module = try freshDatabase(directory, "module.sqlite")
        try module.execute("CREATE TABLE src(id INTEGER PRIMARY KEY, minx REAL, maxx REAL, miny REAL, maxy REAL)")
        try module.write {
            let insert = try module.prepare("INSERT INTO src VALUES (?1, ?2, ?3, ?4, ?5)")
            for e in entries {
                insert.reset()
                try insert.bind([.integer(e.id), .real(e.minX), .real(e.maxX), .real(e.minY), .real(e.maxY)])
                _ = try insert.step()
            }
        }
        let viaModule = try time {
            try module.write { try module.execute("INSERT INTO rt SELECT id, minx, maxx, miny, maxy FROM src") }
        }
        let (bulkQuery, bulkHits) = try queryWindows(bulk)
        let (moduleQuery, moduleHits) = try queryWindows(module)
        print(String(format: "| %@ | %d | %.3f | %.3f | %.3f | %.2f | %.0f | %@ | %.3f / %.3f | %@ |",
                     order.rawValue, run, pack, load, reload, viaModule, viaModule / load, check,
                     bulkQuery, moduleQuery, bulkHits == moduleHits ? "yes (\(bulkHits))" : "NO \(bulkHits) vs \(moduleHits)"))
    }
}
