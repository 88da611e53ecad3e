/// A subcommand of `annolink`: its name, one-line summary, help text and how it runs.
protocol Command {
    /// The word that selects the command, e.g. `import`.
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The full `--help` text: usage, description, options, exit statuses, an example.
    static var help: String { get }
    /// Runs the command with the words after its name; returns the exit status.
    static func run(_ arguments: inout Arguments) throws -> ExitStatus
}
