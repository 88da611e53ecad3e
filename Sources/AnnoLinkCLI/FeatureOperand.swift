import AnnoLinkEditing
import AnnoLinkGeometry

/// `FILE.gpkg TABLE FID` or `FILE.gpkg TABLE --at X,Y`: the one feature a command works on,
/// parsed the same way by every command that takes it (swift-argument-parser's `@OptionGroup`).
///
/// With `--at` the feature is the one nearest the location within 10 points at the reference
/// scale (`PickFeature`), found when the command runs; a location with nothing near or with
/// two features equally near is refused with the candidates listed.
struct FeatureOperand {
    static let fidOrLocation = ArgumentDeclaration.positional("(FID | --at X,Y)")
    static let at = ArgumentDeclaration.option("--at", value: "X,Y", usage: false, help: """
        pick the feature by location instead of FID: the one of TABLE nearest X,Y
        within 10 points at the reference scale (see 'annolink identify'); refused
        with the candidates listed when none is near or two are equally near
        """)
    static let crs = ArgumentDeclaration.option("--crs", value: "CRS", help: """
        the CRS of --at: EPSG:n, an authority code, WKT or a PROJ string
        (default: the table's own CRS); projected with PROJ
        """)
    /// Its arguments, in the order `--help` lists them, for a command with a CRS option of its
    /// own that also applies to `--at` (`move`, `move-vertex`).
    static let arguments = [SetCommand.file, SetCommand.table, fidOrLocation, at]
    /// Its arguments with `--crs` for `--at`, for the commands that take no other location.
    static let argumentsWithCRS = arguments + [crs]

    var path: String
    var table: String
    private var fidText: String?
    private var atText: String?
    /// The CRS of the location.
    var crs: String?
    /// The fid given, once `validate()` has read it; nil when the feature is picked by location.
    private(set) var fid: Int64?
    /// The location given with `--at`, once `validate()` has read it.
    private(set) var location: Point?

    /// Takes `--at`, `--crs` and the positionals. A command parses its options first, so that
    /// an option's value is never taken for one of them.
    init(parsing arguments: inout Arguments) throws {
        let crs = try arguments.option(Self.crs)
        try self.init(parsing: &arguments, crs: crs)
    }

    /// Takes `--at` and the positionals; `crs` is the command's own CRS option, which then
    /// applies to `--at` as well.
    init(parsing arguments: inout Arguments, crs: String?) throws {
        self.crs = crs
        atText = try arguments.option(Self.at)
        path = try arguments.positional(SetCommand.file)
        table = try arguments.positional(SetCommand.table)
        if atText == nil {
            fidText = try arguments.positional(SetCommand.fid)
        } else if let word = arguments.peekPositional(), !word.contains("="), Int64(word) != nil {
            throw CommandError.usage("give FID or --at X,Y, not both")
        }
    }

    /// Reads the fid or the location (a usage error when it does not parse).
    mutating func validate() throws {
        if let atText {
            location = try EditOutput.coordinate(atText, option: Self.at.name)
        } else if let fidText {
            fid = try EditOutput.fid(fidText)
        }
    }

    /// The fid: the one given, or the feature `PickFeature` finds at the location.
    ///
    /// - Throws: `EditError.nothingAtLocation`, `.ambiguousLocation`, and what `PickFeature`
    ///   throws.
    func resolve(with service: EditService) throws -> Int64 {
        if let fid { return fid }
        guard let location else { preconditionFailure("validate() reads FID or --at") }
        return try service.run(PickFeature(table: table, location: location, crs: crs)).fid
    }
}
