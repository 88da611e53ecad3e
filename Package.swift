// swift-tools-version:6.0
// The package shows the architecture: C system libraries at the bottom, then pure geometry
// values, the GEOS/PROJ engine, the GeoPackage store, importers, and the command line on top.
// Each target depends only on targets above it in this list.
import PackageDescription

let package = Package(
    name: "annolink",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "annolink", targets: ["annolink"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // GEOS and PROJ are loaded on first use (dlopen), not at start-up: see the headers in
        // Sources/CGEOS/include and Sources/CPROJ/include.
        .target(name: "CGEOS", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CPROJ", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev", "libfontconfig-dev"])]),

        // squareRoot() lowers to sqrt, which the Linux linker only finds with libm named explicitly.
        .target(name: "AnnoLinkGeometry", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "AnnoLinkEngine", dependencies: ["AnnoLinkGeometry", "CGEOS", "CPROJ"]),
        .target(name: "AnnoLinkStore", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "CSQLite"]),
        .target(name: "AnnoLinkAnnotation", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "CFreeType"]),
        .target(name: "AnnoLinkEditing", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "AnnoLinkAnnotation"]),
        .target(name: "AnnoLinkChecks", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "AnnoLinkAnnotation"]),
        .target(name: "AnnoLinkImport", dependencies: ["AnnoLinkGeometry", "AnnoLinkStore", "AnnoLinkAnnotation"]),
        // The headless geometry editor: pure Swift on geometry values, no I/O and no C.
        .target(name: "AnnoLinkSketch", dependencies: ["AnnoLinkGeometry"]),
        .target(name: "AnnoLinkCLI", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "AnnoLinkAnnotation", "AnnoLinkEditing", "AnnoLinkChecks", "AnnoLinkImport", "AnnoLinkSketch"]),
        .executableTarget(name: "annolink", dependencies: ["AnnoLinkCLI"]),
        // Benchmarks run in release builds (`swift run -c release EngineBenchmarks`), never in tests.
        .executableTarget(name: "EngineBenchmarks", dependencies: ["AnnoLinkEngine", "AnnoLinkGeometry", "CGEOS"],
                          path: "Benchmarks/EngineBenchmarks"),
        .executableTarget(name: "RTreeBenchmarks", dependencies: ["AnnoLinkStore"], path: "Benchmarks/RTreeBenchmarks"),
        .executableTarget(name: "JournalBenchmarks", dependencies: ["AnnoLinkStore", "AnnoLinkGeometry"],
                          path: "Benchmarks/JournalBenchmarks"),

        .testTarget(name: "AnnoLinkGeometryTests", dependencies: ["AnnoLinkGeometry"]),
        .testTarget(name: "AnnoLinkEngineTests", dependencies: ["AnnoLinkEngine"]),
        .testTarget(name: "AnnoLinkStoreTests", dependencies: ["AnnoLinkStore", "AnnoLinkGeometry"]),
        .testTarget(name: "AnnoLinkAnnotationTests", dependencies: ["AnnoLinkAnnotation", "AnnoLinkStore"]),
        .testTarget(name: "AnnoLinkEditingTests", dependencies: ["AnnoLinkEditing", "AnnoLinkStore", "AnnoLinkGeometry", "AnnoLinkAnnotation", "AnnoLinkEngine", "AnnoLinkImport"]),
        .testTarget(name: "AnnoLinkChecksTests", dependencies: ["AnnoLinkChecks", "AnnoLinkStore", "AnnoLinkGeometry", "AnnoLinkImport"]),
        .testTarget(name: "AnnoLinkImportTests", dependencies: ["AnnoLinkImport", "AnnoLinkStore"], exclude: ["Fixtures"]),
        .testTarget(name: "AnnoLinkSketchTests", dependencies: ["AnnoLinkSketch", "AnnoLinkGeometry"], exclude: ["Fixtures"]),
        .testTarget(name: "EndToEndTests", dependencies: ["AnnoLinkGeometry"]),
    ],
    swiftLanguageModes: [.v6]
)
