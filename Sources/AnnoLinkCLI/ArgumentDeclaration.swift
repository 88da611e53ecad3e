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
