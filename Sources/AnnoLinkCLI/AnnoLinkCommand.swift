import Foundation

/// The `annolink` command line: picks the subcommand, runs it, and turns every error into one
/// `error:` line on standard error and an exit status (docs/cli.md, "Exit statuses").
public enum AnnoLinkCommand {
    static var commands: [any ParsableCommand.Type] {
        [
            ImportCommand.self, CopyCommand.self, SampleCommand.self, InfoCommand.self, AnnotateCommand.self, IdentifyCommand.self, ShowCommand.self, SetCommand.self,
            MoveCommand.self, MoveVertexCommand.self, PlaceCommand.self, AddCommand.self, DeleteCommand.self, TranslateCommand.self,
            CheckCommand.self, FollowCommand.self, UndoCommand.self, RedoCommand.self, LogCommand.self, SketchCommand.self, RenderCommand.self, StyleCommand.self,
            ServeCommand.self,
        ]
    }

    static var usage: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }
        return """
            annolink — keep map annotation tied to the features it describes

            usage: annolink <command> [arguments] [--help]

            commands:
            \(list.joined(separator: "\n"))

            Every command takes --help. Errors are one line on standard error starting 'error:';
            exit statuses: 0 success, 1 check found problems, 64 bad usage, 65 bad data,
            66 missing input file or database, 69 a library the command needs is not
            installed (libmicrohttpd, Cairo), 73 cannot create output, 74 I/O error,
            75 file busy or database unreachable, 70 bug.
            """
    }

    /// Runs `annolink` with `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Int32 {
        guard let first = arguments.first else {
            Output.diagnostic(usage)
            return ExitStatus.usage.rawValue
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
                Output.line(command.help)
            } else {
                Output.line(usage)
            }
            return ExitStatus.success.rawValue
        }
        if first == "--version" {
            Output.line("annolink \(version)")
            return ExitStatus.success.rawValue
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            Output.diagnostic("error: unknown command '\(terminalSafe(first))'; run 'annolink --help' for the list")
            return ExitStatus.usage.rawValue
        }
        do {
            return try command.main(Array(arguments.dropFirst())).rawValue
        } catch is HelpRequest {
            Output.line(command.help)
            return ExitStatus.success.rawValue
        } catch {
            let (message, status) = describe(error)
            Output.diagnostic("error: \(terminalSafe(message))")
            for line in details(error) { Output.diagnostic("  \(terminalSafe(line))") }
            if status == .usage { Output.diagnostic("(run 'annolink \(command.name) --help' for usage)") }
            return status.rawValue
        }
    }

    static let version = "0.1.0"
}
