// swift-tools-version:6.1
// The package shows the architecture (docs/design.md draws it): C system libraries at the
// bottom; pure geometry values; beside each other the GEOS/PROJ engine, the GeoPackage store
// (SQLite only) and the PostGIS layer (libpq; docs/postgis.md); annotation on both; then the
// edit service, checks, importers and the sketch editor; the command line on top. Each target
// depends only on targets above it in this list.
import PackageDescription

// FreeType's headers include each other as <freetype/...> under this folder, which pkg-config
// would give but only together with linking the library, and FreeType is loaded on first use.
// Every target whose sources (or @testable tests) see CFreeType's or CCairo's header gets it.
let freeTypeIncludes = ["-I/usr/include/freetype2"]
let freeTypeHeaders: [SwiftSetting] = [.unsafeFlags(freeTypeIncludes.flatMap { ["-Xcc", $0] })]

let package = Package(
    name: "annolink",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "annolink", targets: ["annolink"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // GEOS, PROJ, libpq, libmicrohttpd, Cairo, FreeType and fontconfig are loaded on first
        // use (dlopen), not at start-up, so that no command pays for a library it does not call
        // (docs/design.md, "Start-up"). Each target defines the functions annolink calls as
        // trampolines (Sources/CLazyLibrary); their headers are the -dev packages' under /usr/include.
        .target(name: "CLazyLibrary", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        .target(name: "CGEOS", dependencies: ["CLazyLibrary"]),
        .target(name: "CPROJ", dependencies: ["CLazyLibrary"]),
        .target(name: "CLibPQ", dependencies: ["CLazyLibrary"]),
        .target(name: "CMicroHTTPD", dependencies: ["CLazyLibrary"]),
        .target(name: "CFreeType", dependencies: ["CLazyLibrary"], cSettings: [.unsafeFlags(freeTypeIncludes)]),
        // Cairo's FreeType backend takes the FT_Face the text metrics measure.
        .target(name: "CCairo", dependencies: ["CLazyLibrary", "CFreeType"], cSettings: [.unsafeFlags(freeTypeIncludes)]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // squareRoot() lowers to sqrt, which the Linux linker only finds with libm named explicitly.
        .target(name: "AnnoLinkGeometry", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "AnnoLinkEngine", dependencies: ["AnnoLinkGeometry", "CGEOS", "CPROJ"]),
        // The store knows SQLite and geometry values only: GEOS validation is the edit service's,
        // PROJ's CRS definitions the importers'.
        .target(name: "AnnoLinkStore", dependencies: ["AnnoLinkGeometry", "CSQLite"]),
        // The PostgreSQL/PostGIS store's foundation: one owner of the libpq connection, binary
        // parameters, results and COPY, EWKB, and the layout of a data set in PostGIS.
        .target(name: "AnnoLinkPostGIS", dependencies: ["AnnoLinkGeometry", "AnnoLinkStore", "CLibPQ"]),
        .target(name: "AnnoLinkAnnotation", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "CFreeType"],
                swiftSettings: freeTypeHeaders),
        .target(name: "AnnoLinkEditing", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "AnnoLinkAnnotation"]),
        .target(name: "AnnoLinkChecks", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "AnnoLinkAnnotation"]),
        .target(name: "AnnoLinkImport", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "AnnoLinkAnnotation"]),
        // Pictures of the map: Cairo drawing with the FreeType faces the text metrics measure.
        .target(name: "AnnoLinkRender", dependencies: ["AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "AnnoLinkAnnotation", "CCairo", "CFreeType"],
                swiftSettings: freeTypeHeaders),
        // The headless geometry editor: pure Swift on geometry values, no I/O and no C.
        .target(name: "AnnoLinkSketch", dependencies: ["AnnoLinkGeometry"]),
        // The HTTP service: FeatureServer and OGC API Features routes over the edit service, and the
        // map editor's page (its exported image drawn by AnnoLinkRender). The page, style and
        // scripts are files in MapPage/Assets, not sources nor resources: EmbedAssets compiles
        // them into the target, so that the binary needs no installed files (docs/editor.md).
        .target(name: "AnnoLinkService", dependencies: [
            "AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "AnnoLinkAnnotation", "AnnoLinkEditing", "AnnoLinkRender", "AnnoLinkSketch",
            "AnnoLinkPostGIS", "CMicroHTTPD", "CZlib",
        ], exclude: ["MapPage/Assets"], plugins: ["EmbedAssets"]),
        // The build tool that writes the assets as Swift string constants, and its plugin.
        .executableTarget(name: "AssetEmbedder"),
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["AssetEmbedder"]),
        .target(name: "AnnoLinkCLI", dependencies: [
            "AnnoLinkGeometry", "AnnoLinkEngine", "AnnoLinkStore", "AnnoLinkAnnotation",
            "AnnoLinkEditing", "AnnoLinkChecks", "AnnoLinkImport", "AnnoLinkSketch", "AnnoLinkService", "AnnoLinkRender", "AnnoLinkPostGIS",
        ]),
        // Linked by the toolchain's lld, which packs the binary's 80,000 relative relocations
        // into DT_RELR (glibc 2.36+) for the loader to apply at every start in a fraction of
        // the time, and with libstdc++ static (Linker/libstdc++.so says how and why; docs/design.md,
        // "Start-up").
        .executableTarget(name: "annolink", dependencies: ["AnnoLinkCLI"], linkerSettings: [
            .unsafeFlags([
                "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-L\(Context.packageDirectory)/Linker",
            ], .when(platforms: [.linux])),
        ]),
        // Benchmarks run in release builds (`swift run -c release EngineBenchmarks`), never in tests.
        .executableTarget(name: "EngineBenchmarks", dependencies: ["AnnoLinkEngine", "AnnoLinkGeometry", "CGEOS"],
                          path: "Benchmarks/EngineBenchmarks"),
        .executableTarget(name: "RTreeBenchmarks", dependencies: ["AnnoLinkStore"], path: "Benchmarks/RTreeBenchmarks"),
        .executableTarget(name: "JournalBenchmarks", dependencies: ["AnnoLinkStore", "AnnoLinkGeometry"],
                          path: "Benchmarks/JournalBenchmarks"),
        .executableTarget(name: "PlacementBenchmarks", dependencies: ["AnnoLinkAnnotation", "AnnoLinkGeometry"],
                          path: "Benchmarks/PlacementBenchmarks"),

        // What the test targets share: fixture paths, scratch folders, outside tools, dumps.
        .target(name: "AnnoLinkTestSupport", dependencies: ["AnnoLinkGeometry"], path: "Tests/AnnoLinkTestSupport"),
        .testTarget(name: "AnnoLinkTestSupportTests", dependencies: ["AnnoLinkTestSupport", "AnnoLinkGeometry"]),
        .testTarget(name: "AnnoLinkGeometryTests", dependencies: ["AnnoLinkGeometry", "AnnoLinkTestSupport"]),
        .testTarget(name: "AnnoLinkEngineTests", dependencies: ["AnnoLinkEngine", "AnnoLinkTestSupport"]),
        .testTarget(name: "AnnoLinkStoreTests", dependencies: ["AnnoLinkStore", "AnnoLinkGeometry", "AnnoLinkTestSupport"]),
        .testTarget(name: "AnnoLinkPostGISTests", dependencies: ["AnnoLinkPostGIS", "AnnoLinkStore", "AnnoLinkGeometry", "AnnoLinkTestSupport"]),
        .testTarget(name: "AnnoLinkAnnotationTests", dependencies: ["AnnoLinkAnnotation", "AnnoLinkStore", "AnnoLinkTestSupport"],
                    swiftSettings: freeTypeHeaders),
        .testTarget(name: "AnnoLinkEditingTests", dependencies: [
            "AnnoLinkEditing", "AnnoLinkStore", "AnnoLinkGeometry", "AnnoLinkAnnotation", "AnnoLinkEngine", "AnnoLinkImport", "AnnoLinkTestSupport",
        ]),
        .testTarget(name: "AnnoLinkChecksTests", dependencies: [
            "AnnoLinkChecks", "AnnoLinkStore", "AnnoLinkGeometry", "AnnoLinkImport", "AnnoLinkTestSupport",
        ]),
        .testTarget(name: "AnnoLinkImportTests", dependencies: ["AnnoLinkImport", "AnnoLinkStore", "AnnoLinkTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "AnnoLinkRenderTests", dependencies: [
            "AnnoLinkRender", "AnnoLinkAnnotation", "AnnoLinkImport", "AnnoLinkStore", "AnnoLinkGeometry", "AnnoLinkTestSupport",
        ]),
        .testTarget(name: "AnnoLinkSketchTests", dependencies: ["AnnoLinkSketch", "AnnoLinkGeometry", "AnnoLinkTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "AnnoLinkServiceTests", dependencies: [
            "AnnoLinkService", "AnnoLinkEditing", "AnnoLinkStore", "AnnoLinkGeometry", "AnnoLinkImport", "AnnoLinkChecks", "AnnoLinkTestSupport",
        ]),
        .testTarget(name: "AnnoLinkCLITests", dependencies: ["AnnoLinkCLI", "AnnoLinkPostGIS", "AnnoLinkTestSupport"]),
        .testTarget(name: "AssetEmbedderTests", dependencies: ["AssetEmbedder"]),
        // The end-to-end tests run the `annolink` binary, so they depend on it: `swift test`
        // builds it first, and the harness runs the one beside the test bundle.
        .testTarget(name: "EndToEndTests", dependencies: [
            "annolink", "AnnoLinkGeometry", "AnnoLinkTestSupport", "AnnoLinkStore", "AnnoLinkPostGIS",
        ], exclude: ["Browser"]),
    ],
    swiftLanguageModes: [.v6]
)
