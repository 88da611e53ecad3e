import AnnoLinkTestSupport
import Foundation
import Testing

/// What annolink leaves of a file it was only asked to read, or refused to change (issue 16,
/// D4, D6, D7, D8 and D11's leftover files): nothing but what it was asked to do.
@Suite("files left as found, end to end")
struct FileSafetyTests {
    func sample(_ name: String, parcels: Int = 10) throws -> String {
        let path = try Harness.temporaryDirectory().appendingPathComponent(name).path
        #expect(try Harness.annolink("sample", path, "--parcels", String(parcels)).status == 0)
        return path
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("D4: a damaged geometry header is one invalid-geometry problem; the check goes on")
    func damagedHeader() throws {
        let path = try sample("d4.gpkg")
        try Harness.gdalSQL(path, "UPDATE address_points SET geom = CAST(X'5858' || substr(geom, 3) AS BLOB) WHERE fid = 2")
        try Harness.gdalSQL(path, "UPDATE parcel_lines_anno SET TextString = 'WRONG' WHERE fid = 1")
        let result = try Harness.annolink("check", path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("invalid-geometry address_points fid 2: its geometry cannot be read"), "\(result.stdout)")
        // The rest of the file was checked too.
        #expect(result.stdout.contains("stale-text"), "\(result.stdout)")
    }

    @Test("D6: refused commands and dry runs leave a rollback-journal file's bytes and journal mode as found")
    func gdalFileUntouched() throws {
        let directory = try Harness.temporaryDirectory()
        let path = directory.appendingPathComponent("gdal.gpkg").path
        let made = try Harness.run("/usr/bin/ogr2ogr", ["-f", "GPKG", path, Fixtures.helsinki])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try Harness.sqlite(path, "PRAGMA journal_mode") == "delete")
        let before = try bytes(path)
        for arguments in [
            ["set", path, "nosuch", "1", "a=1"], ["set", path, "address_points", "999999", "street=X"],
            ["set", path, "address_points", "1", "house_number=many"], ["move", path, "address_points", "999999", "--to", "1,2"],
            ["translate", path, "address_points", "--fids", "1,2", "--by", "1,1", "--dry-run"], ["info", path], ["check", path],
            ["show", path, "address_points", "1"], ["log", path],
        ] {
            _ = try Harness.annolink(arguments)
            #expect(try bytes(path) == before, "\(arguments[0]) changed the file")
            #expect(try Harness.sqlite(path, "PRAGMA journal_mode") == "delete", "\(arguments[0]) changed the journal mode")
        }
        // An edit keeps the file's journal mode too.
        #expect(try Harness.annolink("set", path, "address_points", "1", "street=X").status == 0)
        #expect(try Harness.sqlite(path, "PRAGMA journal_mode") == "delete")
        let empty = directory.appendingPathComponent("empty.gpkg").path
        FileManager.default.createFile(atPath: empty, contents: Data())
        #expect(try Harness.annolink("set", empty, "t", "1", "a=1").status == 65)
        #expect(try bytes(empty).isEmpty)
    }

    @Test("D11: read-only commands leave no -wal or -shm beside a WAL file")
    func noLeftovers() throws {
        let path = try sample("w.gpkg")
        for arguments in [["info", path], ["check", path], ["show", path, "address_points", "1"], ["log", path]] {
            #expect(try Harness.annolink(arguments).status == 0, "\(arguments)")
            for suffix in ["-wal", "-shm"] {
                #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(arguments[0]) left \(suffix)")
            }
        }
    }

    @Test("D7: a WAL file on a read-only medium can be read by info, check, show and log")
    func readOnlyMedium() throws {
        let path = try sample("ro.gpkg")
        let mount = try Harness.temporaryDirectory().appendingPathComponent("mnt").path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try Harness.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mount])
        guard mounted.status == 0 else {
            // Mounting needs root (CI runs as root); elsewhere there is no read-only medium to test on.
            print("not tested here: cannot mount a tmpfs (\(mounted.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))")
            return
        }
        defer { _ = try? Harness.run("/usr/bin/umount", [mount]) }
        let inside = mount + "/ro.gpkg"
        try FileManager.default.copyItem(atPath: path, toPath: inside)
        #expect(try Harness.run("/usr/bin/mount", ["-o", "remount,ro", mount]).status == 0)
        for arguments in [["info", inside], ["check", inside], ["show", inside, "address_points", "1"], ["log", inside]] {
            let result = try Harness.annolink(arguments)
            #expect(result.status == 0, "\(arguments[0]): \(result.stderr)")
        }
        let refused = try Harness.annolink("set", inside, "address_points", "1", "AD_ADDRESS=1")
        #expect(refused.status == 74, "\(refused.stderr)")
    }

    @Test("D8: translate refuses a row whose geometry column holds text, and changes nothing")
    func textGeometry() throws {
        let path = try sample("d8.gpkg")
        try Harness.gdalSQL(path, "UPDATE parcel_lines SET geom = 'hello' WHERE fid = 4")
        let before = try Harness.dump(path, excluding: [])
        let result = try Harness.annolink("translate", path, "parcel_lines", "--fids", "4,5", "--by", "1,1")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("not a GeoPackage geometry blob"), "\(result.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)
        #expect(try Harness.sqlite(path, "SELECT typeof(geom) FROM parcel_lines WHERE fid = 4") == "text")
    }

    @Test("D3: sample and import stopped part-way leave no file under the output's name", arguments: [SIGINT, SIGTERM, SIGHUP, SIGKILL])
    func interruptedOutput(signal: Int32) throws {
        let directory = try Harness.temporaryDirectory()
        let path = directory.appendingPathComponent("big.gpkg").path
        var stoppedPartWay = false
        for delay in [0.2, 0.05, 0.0] {
            let process = Process()
            // The test runner ignores SIGINT, SIGTERM and SIGHUP, and a child inherits that:
            // env(1) gives the signals their default action again, as at a terminal.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["--default-signal=INT,TERM,HUP", Harness.binary, "sample", path, "--parcels", "200000"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Once the temporary file exists the data is being written: stop it then, after
            // `delay` more.
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning, Date() < deadline,
                  !(try FileManager.default.contentsOfDirectory(atPath: directory.path).contains { $0.hasPrefix(".big.gpkg.annolink-") }) {
                Thread.sleep(forTimeInterval: 0.02)
            }
            Thread.sleep(forTimeInterval: delay)
            if process.isRunning {
                kill(process.processIdentifier, signal)
                stoppedPartWay = true
            }
            process.waitUntilExit()
            if stoppedPartWay {
                #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
                break
            }
            try FileManager.default.removeItem(atPath: path)
        }
        #expect(stoppedPartWay, "sample finished before it could be stopped")
        #expect(!FileManager.default.fileExists(atPath: path))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        if signal == SIGKILL {
            // Nothing can run after SIGKILL: the hidden temporary file stays, named as such.
            #expect(left.allSatisfy { $0.hasPrefix(".big.gpkg.annolink-") }, "\(left)")
        } else {
            #expect(left.isEmpty, "\(left)")
        }
        // A complete run afterwards is not hindered by what was left.
        #expect(try Harness.annolink("sample", path, "--parcels", "10").status == 0)
    }

    @Test("D11: an empty output name is a usage error")
    func emptyName() throws {
        let result = try Harness.annolink("sample", "")
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderrLines.first == "error: DEST.gpkg must not be empty")
    }
}

/// Issue 16, D11: small refusals that used to pass silently.
@Suite("small refusals, end to end")
struct SmallRefusalTests {
    @Test("a field given twice, a translation by 0,0 and hexadecimal coordinates are refused and change nothing", arguments: [
        (["set", "F", "address_points", "1", "AD_ADDRESS=5", "ad_address=6"], Int32(65), "given more than once"),
        (["translate", "F", "parcel_lines", "--fids", "1,2", "--by", "0,0"], Int32(65), "moves nothing"),
        (["move", "F", "address_points", "1", "--to", "0x10,0x20"], Int32(64), "--to expects X,Y"),
    ])
    func refused(arguments: [String], status: Int32, message: String) throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("d11.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "10").status == 0)
        let before = try Harness.dump(path, excluding: [])
        let result = try Harness.annolink(arguments.map { $0 == "F" ? path : $0 })
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderrLines.first?.contains(message) == true, "\(result.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)
    }
}

/// Issue 16, D5: finite coordinates no CRS can hold.
@Suite("coordinates out of range, end to end")
struct CoordinateRangeTests {
    @Test("huge coordinates are refused by add, move, move-vertex and translate; the file is unchanged", arguments: [
        ["add", "F", "address_points", "--geometry", "POINT (1e300 7020000)", "AD_ADDRESS=1", "ST_STR_NAM=X"],
        ["move", "F", "address_points", "1", "--to", "11880000,1e300"],
        ["move-vertex", "F", "parcel_lines", "1", "--to", "-1e300,7020000"],
        ["move", "F", "address_points", "1", "--to", "500,95", "--crs", "EPSG:4326"],
    ])
    func refused(arguments: [String]) throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("d5.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "10").status == 0)
        let before = try Harness.dump(path, excluding: [])
        let result = try Harness.annolink(arguments.map { $0 == "F" ? path : $0 })
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)
    }

    /// Far from the table's extent is refused unless asked for (issue 27: a location given in
    /// degrees without --crs); with --force an ordinary point on Earth is written.
    @Test("an ordinary point far from the data but on Earth is accepted with --force, refused without")
    func accepted() throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("d5ok.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "10").status == 0)
        let add = ["add", path, "address_points", "--geometry", "POINT (12500000 7500000)", "AD_ADDRESS=1", "ST_STR_NAM=X"]
        let refused = try Harness.annolink(add)
        #expect(refused.status == 65 && refused.stderrLines.count == 1, "\(refused.stderr)")
        let result = try Harness.annolink(add + ["--force"])
        #expect(result.status == 0, "\(result.stderr)")
    }
}

/// Issue 16: a real full disk, a small tmpfs (where mounting is permitted: CI runs as root).
@Suite("a real full disk, end to end")
struct FullDiskTests {
    /// Mounts a tmpfs of `megabytes` in a fresh folder; nil, with the reason printed, where
    /// mounting is not permitted.
    static func mountTmpfs(megabytes: Int) throws -> String? {
        let mount = try Harness.temporaryDirectory().appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try Harness.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", mount])
        guard mounted.status == 0 else {
            print("not tested here: cannot mount a tmpfs (\(mounted.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))")
            return nil
        }
        return mount
    }

    @Test("sample into a disk that fills up: one error line, exit 74, nothing left behind")
    func sampleFillsDisk() throws {
        guard let disk = try Self.mountTmpfs(megabytes: 2) else { return }
        defer { _ = try? Harness.run("/usr/bin/umount", [disk]) }
        let result = try Harness.annolink("sample", disk + "/big.gpkg", "--parcels", "20000")
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderrLines.count == 1 && result.stderrLines[0].hasPrefix("error: "), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
    }

    @Test("edits on a full disk: one error line, exit 74, the file as before once there is room again", arguments: [
        ["translate", "F", "parcel_lines", "--where", "1", "--by", "1,1"],
        ["set", "F", "address_points", "1", "AD_ADDRESS=5"],
        ["annotate", "F", "--regenerate"],
    ])
    func editOnFullDisk(arguments: [String]) throws {
        guard let disk = try Self.mountTmpfs(megabytes: 8) else { return }
        defer { _ = try? Harness.run("/usr/bin/umount", [disk]) }
        let path = disk + "/small.gpkg"
        #expect(try Harness.annolink("sample", path, "--parcels", "200").status == 0)
        // Changes every label, so that regenerate has something to write.
        try Harness.gdalSQL(path, "UPDATE address_points SET AD_ADDRESS = AD_ADDRESS + 1")
        let before = try Harness.dump(path, excluding: [])
        // Fill what is left of the disk.
        let filler = disk + "/filler"
        _ = try Harness.run("/usr/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=64k"])
        let result = try Harness.annolink(arguments.map { $0 == "F" ? path : $0 })
        try FileManager.default.removeItem(atPath: filler)
        #expect(result.status == 74, "\(arguments[0]): \(result.stderr)")
        #expect(result.stderrLines.count == 1 && result.stderrLines[0].hasPrefix("error: "), "\(result.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before, "\(arguments[0]) changed the file")
        #expect(try Harness.sqlite(path, "PRAGMA integrity_check") == "ok")
    }
}
