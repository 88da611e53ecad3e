/// The exit statuses of `annolink` (docs/cli.md, "Exit statuses"; values from BSD's sysexits.h).
public enum ExitStatus: Int32, Sendable {
    case success = 0
    /// `check` found problems.
    case findings = 1
    /// The command was used wrongly: unknown option, missing argument, unparsable value.
    case usage = 64
    /// The input data is wrong: unknown table, field or fid, a value of the wrong type, a
    /// corrupt geometry, a file that is not a GeoPackage.
    case dataError = 65
    /// An input file does not exist.
    case noInput = 66
    /// A library the command loads on first use is not installed (libmicrohttpd for `serve`,
    /// Cairo for `render`); the message names the Debian package.
    case unavailable = 69
    /// A bug in annolink: please report it.
    case software = 70
    /// The output file cannot be created (it exists already, or the folder is not writable).
    case cannotCreate = 73
    /// Reading or writing the file failed (disk full, I/O error).
    case ioError = 74
    /// Another process held the file locked for longer than the busy timeout; try again.
    case temporaryFailure = 75
}

/// An error the command line reports as one `error:` line with its exit status.
public struct CommandError: Error, CustomStringConvertible {
    public var message: String
    public var status: ExitStatus

    public init(_ message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }

    /// A usage error (exit status 64).
    public static func usage(_ message: String) -> CommandError { CommandError(message, status: .usage) }

    public var description: String { message }
}
