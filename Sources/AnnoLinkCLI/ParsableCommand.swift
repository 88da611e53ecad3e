/// A subcommand of `annolink` in the shape of swift-argument-parser's `ParsableCommand`: a
/// struct of declared arguments, filled by `init(parsing:)`, checked by `validate()` and run
/// by `run()`. Its `--help` is generated from `configuration` and `arguments`, so that an
/// option is described once, where it is declared.
protocol ParsableCommand {
    /// The command's name, summary and the hand-written parts of its help.
    static var configuration: CommandConfiguration { get }
    /// Every option, flag and positional argument, in the order `--help` lists them.
    static var arguments: [ArgumentDeclaration] { get }
    /// Takes the command's arguments from `arguments`; what is left is refused afterwards.
    init(parsing arguments: inout Arguments) throws
    /// Checks and converts what `init(parsing:)` took (after nothing unknown was left):
    /// usage errors for values that do not parse, before any file is opened.
    mutating func validate() throws
    /// Runs the command and returns the exit status.
    func run() throws -> ExitStatus
}

extension ParsableCommand {
    static var name: String { configuration.commandName }
    static var summary: String { configuration.abstract }
    static var help: String { HelpText.generate(configuration, arguments) }

    mutating func validate() throws {}

    /// Parses `words` (what follows the command's name) into the command, as the process
    /// would: `--help` anywhere throws `HelpRequest`, an unknown option or a stray argument is
    /// a usage error, then `validate()` runs.
    static func parse(_ words: [String]) throws -> Self {
        var arguments = Arguments(words)
        if arguments.wantsHelp { throw HelpRequest() }
        var command = try Self(parsing: &arguments)
        try arguments.finish()
        try command.validate()
        return command
    }

    /// Parses `words` and runs the command.
    static func main(_ words: [String]) throws -> ExitStatus {
        try parse(words).run()
    }
}

/// Thrown by `parse` when the words ask for `--help`: not an error, the help is printed and
/// the exit status is 0.
struct HelpRequest: Error {}

/// The hand-written parts of a command's help (swift-argument-parser's
/// `CommandConfiguration`); the usage line and the options list are generated.
struct CommandConfiguration {
    /// The word that selects the command, e.g. `import`.
    var commandName: String
    /// One line for the command list.
    var abstract: String
    /// Usage lines written by hand, for a command with two forms; nil: generated.
    var usage: [String]? = nil
    /// What the command does, paragraphs as they are printed.
    var discussion: String
    /// The exit statuses, as printed after `exit status:`.
    var exitStatus: String
    /// A paragraph after the options (notes on them), when there is one.
    var note: String? = nil
    /// An example command line (or lines).
    var example: String? = nil
}
