import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink sketch`: the geometry editor with the programmatic reticle workflow, driven from
/// a terminal or a script.
struct SketchCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "sketch",
            abstract: "draw and reshape features with a reticle, interactively or from a script",
            discussion: """
                Opens a headless map view on FILE.gpkg with a geometry editor and Esri's programmatic
                reticle tool: pan the map so that the reticle (the centre of the view) sits over a
                spot, then press the one button, whose label says what it does: "Insert point" adds
                a vertex at the reticle, "Pick up point" (over a vertex or mid-vertex) picks it up,
                "Drop point" puts it down at the reticle. Undo, redo, delete, freehand strokes and
                shapes work as in Esri's samples. A status line follows every command.

                Commands are read one a line: from the terminal with a prompt, or from --script FILE
                or standard input, echoed after 'sketch> '. In a script the first command that cannot
                be done stops the session with its error and exit status; at the terminal the error
                is shown and the session goes on. Nothing is written until 'save', which adds the
                feature or updates its geometry through the edit service (one transaction and journal
                entry; linked annotation regenerated; 'annolink undo' reverts it).

                The map is in the CRS of the data set's first feature table; screen points are points
                (1/96 inch at the nominal 96 dpi) from the upper-left corner of the view; one point
                is SCALE × 0.0254 / 96 metres on the ground. docs/sketch.md has the details.

                FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
                connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
                (docs/postgis.md); the view starts at the extent annolink.contents records.

                commands:
                \(SketchSession.helpLines.joined(separator: "\n"))
                """,
            exitStatus: """
                0 done, 64 bad usage (also an unknown command in a script), 65 a command
                that cannot be done in a script, a feature or table that does not exist, a geometry
                GEOS refuses, 66 no such file or database, 75 the server cannot be reached.
                """,
            example: """
                printf 'edit Loudoun_Address_Points_1 831\\nbutton\\npan 20,-10\\nbutton\\nsave\\n' |
                  annolink sketch loudoun.gpkg
                """)
    }

    static let script = ArgumentDeclaration.option("--script", value: "FILE", help: "read the commands from FILE (default: the terminal, or standard input)")
    static let size = ArgumentDeclaration.option("--size", value: "W,H", help: "the view's size in points (default 800,600)")
    static let arguments = [SetCommand.file, script, size]

    var script: String?
    var sizeText: String?
    var path: String
    var size = Point(x: 800, y: 600)

    init(parsing arguments: inout Arguments) throws {
        script = try arguments.option(Self.script)
        sizeText = try arguments.option(Self.size)
        path = try arguments.positional(SetCommand.file)
    }

    mutating func validate() throws {
        if let sizeText { size = try EditOutput.coordinate(sizeText, option: Self.size.name) }
        guard size.x > 0, size.y > 0 else { throw CommandError.usage("--size expects two positive numbers of points, not \(size.x),\(size.y)") }
    }

    func run() throws -> ExitStatus {
        // Opened first: a missing file or an unreachable database is said before the script is read.
        let session = try SketchSession(path: path, width: size.x, height: size.y)
        var lines: AnyIterator<String>
        let interactive: Bool
        if let script {
            guard let text = FileManager.default.contents(atPath: script) else {
                throw CommandError("cannot read the script \(script)", status: .noInput)
            }
            var all = String(decoding: text, as: UTF8.self).components(separatedBy: "\n").makeIterator()
            lines = AnyIterator { all.next() }
            interactive = false
        } else {
            interactive = isatty(0) == 1
            lines = AnyIterator { readLine(strippingNewline: true) }
        }

        if interactive {
            Output.line("annolink sketch \(session.store.location): map in \(session.crsName). Type 'help' for the commands, 'quit' to leave.")
            Output.line(session.statusLine)
        }
        var number = 0
        while !session.finished {
            if interactive { prompt() }
            guard let line = lines.next() else { break }
            number += 1
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if (try? SketchSession.words(trimmed).isEmpty) ?? false { continue }
            if !interactive { Output.line("sketch> \(trimmed)") }
            do {
                for text in try session.execute(trimmed) { Output.line(text) }
            } catch {
                let (message, status) = AnnoLinkCommand.describe(error)
                if !interactive {
                    Output.diagnostic("error: line \(number): \(message)")
                    return status
                }
                Output.diagnostic("error: \(message)")
            }
            if !session.finished { Output.line(session.statusLine) }
        }
        if !session.finished, session.editor.isStarted {
            session.discard()
            Output.line("the input ended: discarded the unsaved sketch")
        }
        return .success
    }

    /// Writes the prompt without a newline.
    private func prompt() {
        FileHandle.standardOutput.write(Data("sketch> ".utf8))
    }
}
