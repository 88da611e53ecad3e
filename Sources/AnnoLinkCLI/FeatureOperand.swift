/// `FILE.gpkg TABLE FID`: the one feature a command works on, parsed the same way by every
/// command that takes it (swift-argument-parser's `@OptionGroup`).
struct FeatureOperand {
    /// Its arguments, in the order `--help` lists them.
    static let arguments = [SetCommand.file, SetCommand.table, SetCommand.fid]

    var path: String
    var table: String
    private var fidText: String
    /// The fid, once `validate()` has read it.
    private(set) var fid: Int64 = 0

    /// Takes the three positionals. A command parses its options first, so that an option's
    /// value is never taken for one of them.
    init(parsing arguments: inout Arguments) throws {
        path = try arguments.positional(SetCommand.file)
        table = try arguments.positional(SetCommand.table)
        fidText = try arguments.positional(SetCommand.fid)
    }

    /// Reads the fid (a usage error when it is not a whole number).
    mutating func validate() throws {
        fid = try EditOutput.fid(fidText)
    }
}
