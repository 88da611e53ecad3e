import AnnoLinkAnnotation
internal import CCairo
internal import CFreeType

/// The key under which a Cairo font face holds the `FontFace` it draws with. Only its address
/// matters; Cairo never writes it.
nonisolated(unsafe) private let fontFaceKey = UnsafeMutablePointer<cairo_user_data_key_t>.allocate(capacity: 1)

/// Owns one Cairo font face made from a measured `FontFace`
/// (`cairo_ft_font_face_create_for_ft_face` … `cairo_font_face_destroy`), so that the text is
/// drawn with the very FreeType face, glyphs and outlines the footprints were measured with.
///
/// Cairo keeps font faces in caches after their last `destroy`, so the Cairo face itself holds
/// the `FontFace` (retained in its user data, released by Cairo when it drops the face): the
/// `FT_Face` lives as long as Cairo can use it. Glyphs are loaded unhinted (`FT_LOAD_NO_HINTING`),
/// as they are measured.
final class CairoFontFace {
    /// The `cairo_font_face_t`.
    let handle: OpaquePointer
    /// The face measured and drawn.
    let face: FontFace

    /// - Throws: `RenderError.cairo` when Cairo cannot make the face. Wraps
    ///   `cairo_ft_font_face_create_for_ft_face` and `cairo_font_face_set_user_data`.
    init(_ face: FontFace) throws {
        try CairoCanvas.loadCairo()
        self.face = face
        guard let handle = cairo_ft_font_face_create_for_ft_face(FT_Face(face.freeTypeFace), Int32(FT_LOAD_NO_HINTING)) else {
            throw RenderError.cairo(function: "cairo_ft_font_face_create_for_ft_face", status: "no memory")
        }
        var status = cairo_font_face_status(handle)
        if status == CAIRO_STATUS_SUCCESS {
            let retained = Unmanaged.passRetained(face).toOpaque()
            status = cairo_font_face_set_user_data(handle, fontFaceKey, retained) { pointer in
                guard let pointer else { return }
                Unmanaged<FontFace>.fromOpaque(pointer).release()
            }
            if status != CAIRO_STATUS_SUCCESS { Unmanaged<FontFace>.fromOpaque(retained).release() }
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_font_face_destroy(handle)
            throw RenderError.cairo(function: "cairo_ft_font_face_create_for_ft_face", status: CairoCanvas.text(status))
        }
        self.handle = handle
    }

    deinit {
        cairo_font_face_destroy(handle)
    }
}

@available(*, unavailable)
extension CairoFontFace: Sendable {}
