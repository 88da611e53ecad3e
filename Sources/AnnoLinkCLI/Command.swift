import Foundation

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

/// One declared argument: an option with a value (`@Option`), a flag (`@Flag`) or a
/// positional argument (`@Argument`), with what `--help` says of it.
struct ArgumentDeclaration: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `--name VALUE`.
        case option
        /// `--name`.
        case flag
        /// A word in its place.
        case positional
        /// Every remaining word (`FIELD=VALUE...`).
        case remainingPositionals
    }

    var kind: Kind
    /// `--name` for options and flags, the placeholder (`FILE.gpkg`) for positionals.
    var name: String
    /// The placeholder of an option's value (`X,Y`).
    var valueName: String?
    /// What the option does; lines after the first are indented under it.
    var help: String
    /// Whether the usage line shows it without brackets (options only; positionals always are,
    /// except remaining ones).
    var isRequired = false
    /// The heading it is listed under in `--help` (`options` unless said).
    var section = "options"
    /// Whether it appears in the usage line.
    var inUsage = true

    /// An option with a value, e.g. `.option("--to", value: "X,Y", help: "the new location")`.
    static func option(_ name: String, value: String, required: Bool = false, section: String = "options", usage: Bool = true, help: String) -> Self {
        Self(kind: .option, name: name, valueName: value, help: help, isRequired: required, section: section, inUsage: usage)
    }

    /// A flag, e.g. `.flag("--json", help: "what changed")`.
    static func flag(_ name: String, usage: Bool = true, help: String) -> Self {
        Self(kind: .flag, name: name, help: help, inUsage: usage)
    }

    /// A positional argument, e.g. `.positional("FILE.gpkg")`.
    static func positional(_ name: String) -> Self {
        Self(kind: .positional, name: name, help: "", isRequired: true)
    }

    /// The remaining positional arguments, e.g. `.remainingPositionals("FIELD=VALUE")`.
    static func remainingPositionals(_ name: String, required: Bool = false) -> Self {
        Self(kind: .remainingPositionals, name: name, help: "", isRequired: required)
    }

    /// `--name VALUE`, `--name` or the placeholder, as usage and help show it.
    var label: String {
        switch kind {
        case .option: "\(name) \(valueName ?? "VALUE")"
        case .flag, .positional: name
        case .remainingPositionals: "\(name)..."
        }
    }
}

/// Builds `--help` from a configuration and the declarations.
enum HelpText {
    /// The width usage lines wrap at.
    static let width = 100
    /// Labels up to this wide share their line with the help.
    static let labelColumn = 26

    static func generate(_ configuration: CommandConfiguration, _ arguments: [ArgumentDeclaration]) -> String {
        var text = "usage: " + (configuration.usage ?? [usage(configuration.commandName, arguments)]).joined(separator: "\n       ") + "\n\n"
        text += configuration.discussion + "\n"
        var sections: [String] = []
        for argument in arguments where (argument.kind == .option || argument.kind == .flag) && !sections.contains(argument.section) {
            sections.append(argument.section)
        }
        let listed = arguments.filter { $0.kind == .option || $0.kind == .flag }
        let column = min(labelColumn, listed.map(\.label.count).max() ?? 0) + 3
        for section in sections {
            text += "\n\(section):\n"
            for argument in listed where argument.section == section {
                let lines = argument.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let indent = String(repeating: " ", count: column + 2)
                let label = "  " + argument.label
                if argument.label.count > labelColumn {
                    text += label + "\n" + lines.map { ($0.isEmpty ? "" : indent + $0) + "\n" }.joined()
                } else {
                    text += label.padding(toLength: column + 2, withPad: " ", startingAt: 0) + lines[0] + "\n"
                    text += lines.dropFirst().map { ($0.isEmpty ? "" : indent + $0) + "\n" }.joined()
                }
            }
        }
        if let note = configuration.note { text += "\n" + note + "\n" }
        text += "\nexit status: " + configuration.exitStatus + "\n"
        if let example = configuration.example {
            text += "\nexample:\n" + example.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") + "\n"
        }
        return String(text.dropLast())
    }

    /// `annolink NAME` and the arguments in the order declared, wrapped at `width` with
    /// continuation lines under the first argument. Required options that share a section
    /// other than `options` are one choice, shown where the first of them is declared:
    /// `(--a A | --b B)`.
    static func usage(_ name: String, _ arguments: [ArgumentDeclaration]) -> String {
        var words: [String] = []
        var choices: Set<String> = []
        for argument in arguments where argument.inUsage {
            switch argument.kind {
            case .positional:
                words.append(argument.label)
            case .remainingPositionals:
                words.append(argument.isRequired ? argument.label : "[\(argument.label)]")
            case .option, .flag:
                if argument.section != "options" {
                    guard choices.insert(argument.section).inserted else { continue }
                    words.append("(" + arguments.filter { $0.section == argument.section && $0.inUsage }.map(\.label).joined(separator: " | ") + ")")
                } else {
                    words.append(argument.isRequired ? argument.label : "[\(argument.label)]")
                }
            }
        }
        let head = "annolink \(name)"
        var lines: [String] = []
        var current = head
        for word in words {
            if "usage: ".count + current.count + 1 + word.count > width, current.contains(where: { $0 != " " }), current != head {
                lines.append(current)
                current = String(repeating: " ", count: head.count)
            }
            current += " " + word
        }
        lines.append(current)
        return lines.joined(separator: "\n       ")
    }
}
