import Foundation

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
