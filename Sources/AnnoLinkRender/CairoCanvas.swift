internal import CCairo
import Foundation

/// Owns one Cairo surface and its drawing context (`cairo_*_surface_create` … `cairo_destroy`,
/// `cairo_surface_destroy`): the picture being drawn, in pixels from its top-left corner
/// whatever the format (vector surfaces are scaled from points to pixels at the view's dpi).
///
/// A canvas with a path writes it in `finish()`, through a temporary file beside it that is
/// renamed at the end, so that a failed drawing never leaves half a file under the name asked
/// for. A canvas without a path is a PNG-style image kept in memory, for reading its pixels.
///
/// Not `Sendable`: Cairo contexts belong to one thread.
public final class CairoCanvas {
    /// The `cairo_surface_t`.
    let surface: OpaquePointer
    /// The `cairo_t` drawing on `surface`.
    let context: OpaquePointer
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    /// Where `finish()` puts the picture; nil for an in-memory image.
    public let path: String?
    /// The file Cairo writes (vector formats) before it is renamed to `path`.
    private let temporaryPath: String?
    private var finished = false

    /// A canvas of `width` × `height` pixels at `dpi` (which sets the page size in points of an
    /// SVG or PDF), written to `path` by `finish()`, or held in memory when `path` is nil (then
    /// `format` must be `.png`).
    ///
    /// - Throws: `RenderError.cairo` when Cairo cannot make the surface (e.g. it cannot create
    ///   the file, or the size is beyond its 32,767-pixel limit), `RenderError.libraryMissing`
    ///   when Cairo cannot be loaded. Wraps
    ///   `cairo_image_surface_create`, `cairo_svg_surface_create`, `cairo_pdf_surface_create`
    ///   and `cairo_create`.
    public init(format: ImageFormat, width: Int, height: Int, dpi: Double = 96, path: String? = nil) throws {
        precondition(path != nil || format == .png, "only a PNG canvas can be kept in memory")
        try Self.loadCairo()
        self.format = format
        self.width = width
        self.height = height
        self.path = path
        let pointsPerPixel = 72 / dpi
        var temporary: String?
        if let path, format != .png {
            let url = URL(fileURLWithPath: path)
            temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).annolink-\(getpid())").path
        }
        self.temporaryPath = temporary
        let made: OpaquePointer?
        switch format {
        case .png: made = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .svg: made = cairo_svg_surface_create(temporary, Double(width) * pointsPerPixel, Double(height) * pointsPerPixel)
        case .pdf: made = cairo_pdf_surface_create(temporary, Double(width) * pointsPerPixel, Double(height) * pointsPerPixel)
        }
        guard let surface = made else { throw RenderError.cairo(function: "surface create", status: "no memory") }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            if let temporary { unlink(temporary) }
            throw RenderError.cairo(function: "cairo_\(format.rawValue)_surface_create", status: Self.text(status))
        }
        self.surface = surface
        guard let context = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            throw RenderError.cairo(function: "cairo_create", status: "no memory")
        }
        self.context = context
        if format != .png { cairo_scale(context, pointsPerPixel, pointsPerPixel) }
        // Text drawn exactly as measured: unhinted outlines, unrounded advances.
        if let options = cairo_font_options_create() {
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            cairo_set_font_options(context, options)
            cairo_font_options_destroy(options)
        }
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
        if !finished, let temporaryPath { unlink(temporaryPath) }
    }

    /// Cairo's text for a status.
    /// Loads Cairo, which is loaded on first use (Sources/CCairo): call before the first Cairo
    /// call, so that a missing library is a typed error rather than the end of the process.
    ///
    /// - Throws: `RenderError.libraryMissing` with the reason, naming the package to install.
    static func loadCairo() throws {
        guard annolink_cairo_load() == 0 else {
            throw RenderError.libraryMissing(annolink_cairo_load_error().map { String(cString: $0) } ?? "cannot load Cairo")
        }
    }

    static func text(_ status: cairo_status_t) -> String {
        cairo_status_to_string(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
    }

    /// Throws when the context is in an error state (Cairo records the first error and ignores
    /// what follows). Wraps `cairo_status`.
    func check(_ function: String) throws {
        let status = cairo_status(context)
        guard status == CAIRO_STATUS_SUCCESS else { throw RenderError.cairo(function: function, status: Self.text(status)) }
    }

    /// Fills the whole picture with an opaque colour.
    public func clear(red: Double, green: Double, blue: Double) {
        cairo_save(context)
        cairo_identity_matrix(context)
        cairo_set_source_rgb(context, red, green, blue)
        cairo_paint(context)
        cairo_restore(context)
    }

    /// Writes the picture to `path` and closes the surface; drawing afterwards is an error.
    /// `written`, when given, is told the bytes of a PNG written so far as they go out (a
    /// picture of tens of millions of pixels takes seconds to encode).
    ///
    /// - Throws: `RenderError.cairo` when Cairo could not draw or write the file (e.g. the disk
    ///   is full); the partial file is removed. Wraps `cairo_surface_write_to_png_stream`,
    ///   `cairo_surface_finish`.
    public func finish(written: ((_ bytes: Int) -> Void)? = nil) throws {
        guard !finished else { return }
        try check("drawing")
        switch format {
        case .png:
            if let path {
                let temporary = URL(fileURLWithPath: path).deletingLastPathComponent()
                    .appendingPathComponent(".\(URL(fileURLWithPath: path).lastPathComponent).annolink-\(getpid())").path
                guard let file = fopen(temporary, "wb") else {
                    throw RenderError.cairo(function: "fopen(\(path))", status: String(cString: strerror(errno)))
                }
                let sink = PNGFileSink(file: file, written: written)
                let status = cairo_surface_write_to_png_stream(surface, { closure, data, length in
                    guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                    let sink = Unmanaged<PNGFileSink>.fromOpaque(closure).takeUnretainedValue()
                    guard fwrite(data, 1, Int(length), sink.file) == Int(length) else { return CAIRO_STATUS_WRITE_ERROR }
                    sink.bytes += Int(length)
                    sink.written?(sink.bytes)
                    return CAIRO_STATUS_SUCCESS
                }, Unmanaged.passUnretained(sink).toOpaque())
                let closed = fclose(file)
                guard status == CAIRO_STATUS_SUCCESS, closed == 0 else {
                    unlink(temporary)
                    let reason = status == CAIRO_STATUS_SUCCESS ? String(cString: strerror(errno)) : Self.text(status)
                    throw RenderError.cairo(function: "cairo_surface_write_to_png_stream(\(path))", status: reason)
                }
                try move(temporary, to: path)
            }
        case .svg, .pdf:
            cairo_surface_finish(surface)
            let status = cairo_surface_status(surface)
            guard status == CAIRO_STATUS_SUCCESS else {
                throw RenderError.cairo(function: "cairo_surface_finish(\(path ?? ""))", status: Self.text(status))
            }
            if let temporaryPath, let path { try move(temporaryPath, to: path) }
        }
        finished = true
    }

    private func move(_ from: String, to: String) throws {
        guard rename(from, to) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(from)
            throw RenderError.cairo(function: "rename to \(to)", status: reason)
        }
    }

    /// The picture of an in-memory canvas as the bytes of a PNG file (what `finish()` would
    /// write to a path), for sending over the network.
    ///
    /// - Throws: `RenderError.cairo` when Cairo could not draw or encode the picture. Wraps
    ///   `cairo_surface_write_to_png_stream`.
    public func pngBytes() throws -> [UInt8] {
        precondition(format == .png && path == nil, "only an in-memory image canvas is encoded to bytes")
        try check("drawing")
        cairo_surface_flush(surface)
        let sink = PNGSink()
        let status = cairo_surface_write_to_png_stream(surface, { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<PNGSink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else { throw RenderError.cairo(function: "cairo_surface_write_to_png_stream", status: Self.text(status)) }
        return sink.bytes
    }

    /// The opacity (0–255) of every pixel of an in-memory PNG canvas, row by row from the top.
    /// Wraps `cairo_image_surface_get_data`.
    public func alphaValues() -> [UInt8] {
        precondition(format == .png, "only an image canvas has pixels")
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return [] }
        var alpha = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width { alpha[y * width + x] = UInt8(row[x] >> 24) }
        }
        return alpha
    }
}

@available(*, unavailable)
extension CairoCanvas: Sendable {}

/// Where `cairo_surface_write_to_png_stream`'s callback puts the bytes (its user-data pointer).
private final class PNGSink {
    var bytes: [UInt8] = []
}

/// The file `finish()` writes a PNG to through `cairo_surface_write_to_png_stream` (its
/// callback's user-data pointer), and how many bytes went out. Borrows the `FILE`: the caller
/// closes it.
private final class PNGFileSink {
    let file: UnsafeMutablePointer<FILE>
    let written: ((Int) -> Void)?
    var bytes = 0
    init(file: UnsafeMutablePointer<FILE>, written: ((Int) -> Void)?) {
        self.file = file
        self.written = written
    }
}
