import AnnoLinkGeometry

/// The words after the subcommand, consumed as a command asks for its options and positionals.
///
/// Options take the forms `--name value` and `--name=value`; `--` ends the options. After a
/// command has taken what it knows, `finish()` refuses anything left, so a misspelt option is
/// an error rather than silently ignored.
struct Arguments {
    private var words: [String]
    private var positionalOnly: [String] = []

    init(_ words: [String]) {
        if let end = words.firstIndex(of: "--") {
            self.words = Array(words[..<end])
            positionalOnly = Array(words[(end + 1)...])
        } else {
            self.words = words
        }
    }

    /// Whether `-h` or `--help` was given.
    var wantsHelp: Bool { words.contains("--help") || words.contains("-h") }

    /// Removes and returns whether the flag `name` (e.g. `--json`) was given.
    mutating func flag(_ name: String) -> Bool {
        guard let index = words.firstIndex(of: name) else { return false }
        words.remove(at: index)
        return true
    }

    /// Removes and returns the value of option `name`, or nil when absent.
    mutating func option(_ name: String) throws -> String? {
        if let index = words.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let value = String(words[index].dropFirst(name.count + 1))
            words.remove(at: index)
            return value
        }
        guard let index = words.firstIndex(of: name) else { return nil }
        guard index + 1 < words.count else { throw CommandError.usage("\(name) needs a value") }
        let value = words[index + 1]
        words.removeSubrange(index...(index + 1))
        return value
    }

    /// Removes and returns every value of a repeatable option.
    mutating func options(_ name: String) throws -> [String] {
        var values: [String] = []
        while let value = try option(name) { values.append(value) }
        return values
    }

    /// Removes and returns option `name` parsed by `parse`, with a usage error naming the
    /// option when it does not parse.
    mutating func option<T>(_ name: String, as what: String, _ parse: (String) -> T?) throws -> T? {
        guard let text = try option(name) else { return nil }
        guard let value = parse(text) else { throw CommandError.usage("\(name) expects \(what), not '\(text)'") }
        return value
    }

    /// Removes and returns the next positional argument, or throws a usage error naming it.
    mutating func positional(_ name: String) throws -> String {
        guard let value = optionalPositional() else { throw CommandError.usage("missing \(name)") }
        guard !value.isEmpty else { throw CommandError.usage("\(name) must not be empty") }
        return value
    }

    /// Removes and returns the next positional argument when there is one. A word starting
    /// with `-` is one when it is a number or numbers separated by commas (`-77.4,39.0`), which
    /// no option is.
    mutating func optionalPositional() -> String? {
        guard let index = nextPositionalIndex else { return positionalOnly.isEmpty ? nil : positionalOnly.removeFirst() }
        return words.remove(at: index)
    }

    /// The next positional argument, left in place.
    func peekPositional() -> String? {
        nextPositionalIndex.map { words[$0] } ?? positionalOnly.first
    }

    private var nextPositionalIndex: Int? {
        words.firstIndex { word in
            !word.hasPrefix("-") || word == "-" || word.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { decimalNumber($0) != nil }
        }
    }

    /// Removes and returns all remaining positional arguments.
    mutating func remainingPositionals() -> [String] {
        var values: [String] = []
        while let value = optionalPositional() { values.append(value) }
        return values
    }

    /// Throws a usage error when anything was not consumed.
    func finish() throws {
        if let unknown = words.first(where: { $0.hasPrefix("-") }) {
            throw CommandError.usage("unknown option \(unknown)")
        }
        if let extra = (words + positionalOnly).first {
            throw CommandError.usage("unexpected argument '\(extra)'")
        }
    }
}

extension Arguments {
    /// Removes and returns whether the declared flag was given.
    mutating func flag(_ declaration: ArgumentDeclaration) -> Bool {
        flag(declaration.name)
    }

    /// Removes and returns the value of the declared option, or nil when absent.
    mutating func option(_ declaration: ArgumentDeclaration) throws -> String? {
        try option(declaration.name)
    }

    /// Removes and returns the value of the declared option, with a usage error
    /// (`missing --to X,Y`) when absent.
    mutating func required(_ declaration: ArgumentDeclaration) throws -> String {
        guard let value = try option(declaration.name) else { throw CommandError.usage("missing \(declaration.label)") }
        return value
    }

    /// Removes and returns the declared option parsed by `parse`, with a usage error naming
    /// the option when it does not parse.
    mutating func option<T>(_ declaration: ArgumentDeclaration, as what: String, _ parse: (String) -> T?) throws -> T? {
        try option(declaration.name, as: what, parse)
    }

    /// Removes and returns the declared positional argument, or throws a usage error naming it.
    mutating func positional(_ declaration: ArgumentDeclaration) throws -> String {
        try positional(declaration.name)
    }
}
