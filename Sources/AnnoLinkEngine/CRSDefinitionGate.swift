/// The check every CRS definition passes before PROJ sees it (docs/engine.md, "What CRS text is
/// accepted"): a definition is data, never a path, and small enough for PROJ's recursive parsers.
///
/// PROJ reads more than CRSs from text: `+init=` opens a file (any path, a FIFO blocks its
/// reader), grid and parameter-file keys open grids, and its WKT and PROJJSON parsers recurse
/// once per nesting level, so 70,000 nested `base_crs` overflow a thread's stack. A client of
/// `annolink serve` and a file's `gpkg_spatial_ref_sys` row are both untrusted, so the rules
/// hold for every definition; PROJ strings are refused altogether where `acceptingPROJStrings`
/// is false (the service).
public enum CRSDefinitionGate {
    /// The longest definition accepted, in UTF-8 bytes. PROJ's PROJJSON of EPSG:3067 is 4,640
    /// bytes, its WKT 2 1,603.
    public static let maximumLength = 65_536
    /// The deepest nesting of `[`, `(` and `{` accepted. PROJ's own WKT 2 and PROJJSON of a
    /// bound or compound CRS nest about 10 deep.
    public static let maximumDepth = 32

    /// What PROJ may be given instead of a bare name: `key=` forms and WKT / PROJJSON keywords
    /// that make it open a file (an init file, a grid, a parameter file, a deformation model).
    /// Matched in the definition lowercased with all whitespace removed, as PROJ itself joins
    /// `+init = x` into `+init=x`.
    static let fileReferences = [
        "init=", "nadgrids=", "geoidgrids=", "grids=", "file=", "model=",
        "parameterfile[", "parameterfile(", "parameter_file", "proj4_grids", "geoidmodel[", "geoidmodel(",
        "geoid_model", "dataset_",
    ]

    /// Checks `definition` and throws why it is refused.
    ///
    /// Accepted: an EPSG number; an authority code (`EPSG:2924`, `ESRI:102747`, `OGC:CRS84`,
    /// `urn:ogc:def:crs:EPSG::2924`, `http://www.opengis.net/def/crs/EPSG/0/2924`); WKT 1, Esri
    /// WKT and WKT 2; PROJJSON; and, when `acceptingPROJStrings`, PROJ strings and names — none
    /// with a file reference (`+nadgrids=@null`, PROJ's "no grid", is allowed), none longer
    /// than `maximumLength` or nested deeper than `maximumDepth`.
    /// - Throws: `EngineError.refusedCRS` naming the reason. Linear in the definition's length.
    public static func check(_ definition: String, acceptingPROJStrings: Bool) throws(EngineError) {
        func refuse(_ reason: String) -> EngineError { .refusedCRS(definition, reason: reason) }
        let bytes = Array(definition.utf8)
        guard bytes.count <= maximumLength else {
            throw refuse("it is \(bytes.count) bytes long; at most \(maximumLength) are accepted")
        }
        guard !bytes.contains(0) else { throw refuse("it contains a NUL character") }
        let depth = max(nestingDepth(bytes, backslashEscapes: false), nestingDepth(bytes, backslashEscapes: true))
        guard depth <= maximumDepth else {
            throw refuse("it nests \(depth) levels deep; at most \(maximumDepth) are accepted")
        }
        if let reference = fileReference(in: bytes) {
            throw refuse("it refers to a file or grid (\(reference)); only EPSG or ESRI codes, WKT and PROJJSON without file references are accepted")
        }
        let text = definition.trimmingWhitespace()
        guard !text.isEmpty else { throw refuse("it is empty") }
        switch Form(text) {
        case .code, .wkt, .projJSON:
            return
        case .projString where acceptingPROJStrings, .other where acceptingPROJStrings:
            return
        case .projString:
            throw refuse("PROJ strings are not accepted here; give an EPSG or ESRI code (EPSG:2924), WKT or PROJJSON")
        case .other:
            throw refuse("it is not an authority code (EPSG:2924), WKT or PROJJSON")
        }
    }

    /// The kinds of definition text told apart by their first characters.
    enum Form {
        case code, wkt, projJSON, projString, other

        init(_ text: String) {
            let scalars = Array(text.unicodeScalars)
            let first = scalars[0]
            if first == "{" {
                self = .projJSON
            } else if first == "+" || text.lowercased().hasPrefix("proj=") {
                self = .projString
            } else if Self.isCode(text) {
                self = .code
            } else if first.properties.isAlphabetic, let open = scalars.firstIndex(where: { $0 == "[" || $0 == "(" }),
                      scalars[..<open].allSatisfy({ $0.isASCIIWordCharacter || $0 == " " }) {
                // A WKT keyword (`PROJCS`, `PROJCRS`, `GEOGCS`…) and its opening bracket.
                self = .wkt
            } else {
                self = .other
            }
        }

        /// Whether `text` is an EPSG number, `AUTHORITY:CODE`, an OGC URN or an opengis.net URL.
        static func isCode(_ text: String) -> Bool {
            if text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) { return true }
            let lowercased = text.lowercased()
            for prefix in ["http://www.opengis.net/def/crs/", "https://www.opengis.net/def/crs/"] where lowercased.hasPrefix(prefix) {
                return text.dropFirst(prefix.count).unicodeScalars.allSatisfy { $0.isASCIIWordCharacter || "/.-".unicodeScalars.contains($0) }
            }
            guard let first = text.unicodeScalars.first, first.properties.isAlphabetic, text.contains(":") else { return false }
            return text.unicodeScalars.allSatisfy { $0.isASCIIWordCharacter || ":.-,".unicodeScalars.contains($0) }
        }
    }

    /// The deepest nesting of brackets, braces and parentheses outside quoted strings. WKT
    /// doubles a quote inside a string, JSON escapes it with a backslash; the caller takes the
    /// larger of both readings, so that a string cannot hide brackets from either parser.
    static func nestingDepth(_ bytes: [UInt8], backslashEscapes: Bool) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for c in bytes {
            if inString {
                if escaped { escaped = false } else if backslashEscapes && c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch c {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            default: break
            }
        }
        return deepest
    }

    /// The first file reference in the definition, as written in `fileReferences`; nil when
    /// there is none. `nadgrids=@null` (or `null`) alone names no file and is allowed: GDAL's
    /// WKT 1 of Web Mercator carries it.
    static func fileReference(in bytes: [UInt8]) -> String? {
        let squeezed = bytes.compactMap { c -> UInt8? in
            if c == 0x20 || (0x09...0x0D).contains(c) { return nil }
            return (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) ? c + 32 : c
        }
        for reference in fileReferences {
            let pattern = Array(reference.utf8)
            guard squeezed.count >= pattern.count else { continue }
            for start in 0...(squeezed.count - pattern.count) where squeezed[start] == pattern[0] {
                guard squeezed[start..<(start + pattern.count)].elementsEqual(pattern) else { continue }
                // `grids=` also matches inside an allowed `nadgrids=@null`.
                if reference == "nadgrids=" || reference == "grids=", isNullGrid(squeezed[(start + pattern.count)...]) { continue }
                return reference
            }
        }
        return nil
    }

    /// Whether `value` (what follows `nadgrids=`) is PROJ's null grid and nothing more.
    private static func isNullGrid(_ value: ArraySlice<UInt8>) -> Bool {
        for name in ["@null", "null"] where value.starts(with: name.utf8) {
            guard let next = value.dropFirst(name.utf8.count).first else { return true }
            return "+\"])}".utf8.contains(next)
        }
        return false
    }
}

extension Unicode.Scalar {
    /// An ASCII letter, digit or underscore.
    var isASCIIWordCharacter: Bool {
        isASCII && (properties.isAlphabetic || ("0"..."9").contains(self) || self == "_")
    }
}
