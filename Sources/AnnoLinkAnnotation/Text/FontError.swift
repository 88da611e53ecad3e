internal import CFreeType

/// A font could not be opened or read: FreeType or fontconfig failed, or the font file is of a
/// kind annolink cannot measure.
public enum FontError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A FreeType call returned an error: the function, FreeType's error code (`FT_Error`), its
    /// text, and the font file involved when there is one.
    case freeType(function: String, code: Int32, message: String, path: String?)
    /// A fontconfig call failed (returned NULL or false); fontconfig gives no further reason.
    case fontconfig(function: String)
    /// The font file has no outlines (a bitmap font such as a Windows `.fon`), so it has no
    /// design units to measure in.
    case notScalable(path: String)
    /// libfreetype or libfontconfig, loaded on first use, cannot be loaded: the loader's reason
    /// and the package to install.
    case libraryMissing(String)

    /// The error for FreeType's `code` returned by `function`, with FreeType's text for it.
    static func freeType(_ function: String, _ code: FT_Error, path: String? = nil) -> FontError {
        .freeType(function: function, code: code, message: freeTypeMessage(code), path: path)
    }

    public var description: String {
        switch self {
        case let .freeType(function, code, message, path):
            let file = path.map { " (\($0))" } ?? ""
            return "FreeType \(function) failed\(file): \(message) (error 0x\(String(code, radix: 16)))"
        case let .fontconfig(function):
            return "fontconfig \(function) failed"
        case let .notScalable(path):
            return "\(path) is a bitmap font without outlines; text cannot be measured with it"
        case let .libraryMissing(reason):
            return reason
        }
    }
}

/// FreeType's text for an error code.
///
/// `FT_Error_String` only knows the texts when FreeType was built with
/// `FT_CONFIG_OPTION_ERROR_STRINGS`, which Debian's build is not (it returns NULL there), so the
/// codes a font lookup can meet are named here, following `fterrdef.h`; any other code is given
/// by its number.
func freeTypeMessage(_ code: FT_Error) -> String {
    if let text = FT_Error_String(code) {
        return String(cString: text)
    }
    switch code {
    case 0x01: return "cannot open resource"
    case 0x02: return "unknown file format"
    case 0x03: return "broken file"
    case 0x04: return "invalid FreeType version"
    case 0x06: return "invalid argument"
    case 0x07: return "unimplemented feature"
    case 0x08: return "broken table"
    case 0x09: return "broken offset within table"
    case 0x10: return "invalid glyph index"
    case 0x11: return "invalid character code"
    case 0x12: return "unsupported glyph image format"
    case 0x14: return "invalid outline"
    case 0x15: return "invalid composite glyph"
    case 0x23: return "invalid face handle"
    case 0x40: return "out of memory"
    case 0x51: return "cannot open stream"
    case 0x52: return "invalid stream seek"
    case 0x54: return "invalid stream read"
    case 0x55: return "invalid stream operation"
    case 0x8E: return "SFNT font table missing"
    case 0x8F: return "horizontal header (hhea) table missing"
    case 0x90: return "locations (loca) table missing"
    default: return "FreeType error \(code)"
    }
}
