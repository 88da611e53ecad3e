import Foundation

/// GDAL's GeoPackage validator, `validate_gpkg.py` from Debian's python3-gdal, run by Debian's
/// Python (the only one with the `osgeo` module).
public enum GeoPackageValidator {
    /// Where python3-gdal installs the validator.
    public static let script = "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py"
    /// Debian's Python.
    public static let python = "/usr/bin/python3"

    /// Runs the validator on `path` and returns its exit status and everything it printed
    /// (standard output, then standard error).
    ///
    /// Throws `ToolFailure.missing` when python3-gdal is not installed.
    public static func validate(_ path: String) throws -> (status: Int32, output: String) {
        guard FileManager.default.fileExists(atPath: script), FileManager.default.isExecutableFile(atPath: python) else {
            throw ToolFailure.missing(tool: "validate_gpkg.py", package: "python3-gdal")
        }
        let result = try ExternalTool.run(python, [script, path])
        return (result.status, result.stdout + result.stderr)
    }

    /// Runs the validator on `path`: an empty string means it passed (exit status 0), anything
    /// else is the status and everything it printed. Throws as `validate(_:)` does.
    public static func problems(_ path: String) throws -> String {
        let result = try validate(path)
        return result.status == 0 ? "" : "status \(result.status): \(result.output)"
    }
}
