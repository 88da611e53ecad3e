/// What a text is measured with: a font file, or the fixed-ratio model when no font could be
/// found.
public enum FontSource: Hashable, Sendable {
    /// A font file, measured with FreeType.
    case font(FontLocation)
    /// No font: every character is `TextMetrics.modelAdvance` em wide, with
    /// `TextMetrics.modelAscent` and `TextMetrics.modelDescent`.
    case fixedRatioModel
}

/// Measures text set in one font: the font asked for, or a fallback when it is missing.
///
/// Made by `FontLibrary.textMetrics(family:bold:italic:)`, which looks the family up and, when
/// the search path does not hold it, falls back to DejaVu Sans (`fallbackFamily`) or, without
/// that, to a fixed-ratio model: 0.55 em per character (about a digit's width in Arial,
/// 0.556 em, and in Tahoma, 0.546 em: digits are the commonest characters of labels), ascent
/// 0.905 em and descent 0.212 em (Arial's). A fallback says so in `isFallback` and
/// `fallbackWarning`; nothing is printed.
///
/// Keeps its face, so its glyph cache, alive: make one per font and measure every text in that
/// font with it. Not `Sendable` (the face is not).
public struct TextMetrics {
    /// The family used when the one asked for is missing.
    public static let fallbackFamily = "DejaVu Sans"
    /// The fixed-ratio model's advance per character, in em.
    public static let modelAdvance = 0.55
    /// The fixed-ratio model's ascent, in em.
    public static let modelAscent = 0.905
    /// The fixed-ratio model's descent, in em.
    public static let modelDescent = 0.212

    /// The family asked for, e.g. `Tahoma`.
    public let requestedFamily: String
    /// What the text is measured with.
    public let source: FontSource
    /// Whether the family asked for was missing and `source` is a fallback.
    public let isFallback: Bool
    /// The face measured with; nil for the fixed-ratio model.
    public let face: FontFace?

    /// Metrics of a face opened directly (not a fallback).
    public init(face: FontFace) {
        let location = FontLocation(family: face.familyName, style: face.styleName, path: face.path,
                                    faceIndex: face.faceIndex)
        self.init(requestedFamily: face.familyName, face: face, location: location, isFallback: false)
    }

    /// The fixed-ratio model standing in for the missing family `family` (a fallback).
    public init(fixedRatioModelFor family: String) {
        self.requestedFamily = family
        self.source = .fixedRatioModel
        self.isFallback = true
        self.face = nil
    }

    init(requestedFamily: String, face: FontFace, location: FontLocation, isFallback: Bool) {
        self.requestedFamily = requestedFamily
        self.source = .font(location)
        self.isFallback = isFallback
        self.face = face
    }

    /// A sentence for the user when this is a fallback, e.g. `font "Tahoma" not found; text
    /// is measured with DejaVu Sans (/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf)`; nil when
    /// the family asked for is used.
    public var fallbackWarning: String? {
        guard isFallback else { return nil }
        switch source {
        case let .font(location):
            return "font \"\(requestedFamily)\" not found; text is measured with \(location.family) (\(location.path))"
        case .fixedRatioModel:
            return "font \"\(requestedFamily)\" not found, nor \(Self.fallbackFamily); text is measured with a "
                + "fixed-ratio model (\(Self.modelAdvance) em per character)"
        }
    }

    /// The extent of `text` set on one line at `pointSize` points, in points.
    ///
    /// With a font see `FontFace.extent(of:pointSize:kerning:)`. With the fixed-ratio model
    /// every Unicode scalar advances `modelAdvance` em, the ink fills the advance box, and there
    /// is no kerning.
    ///
    /// - Throws: `FontError.freeType` when a glyph or pair met for the first time cannot be read.
    public func extent(of text: String, pointSize: Double, kerning: Bool = true) throws -> TextExtent {
        if let face {
            return try face.extent(of: text, pointSize: pointSize, kerning: kerning)
        }
        let width = Double(text.unicodeScalars.count) * Self.modelAdvance * pointSize
        return TextExtent(advanceWidth: width, inkStart: 0, inkEnd: width,
                          ascent: Self.modelAscent * pointSize, descent: Self.modelDescent * pointSize)
    }
}

@available(*, unavailable)
extension TextMetrics: Sendable {}
