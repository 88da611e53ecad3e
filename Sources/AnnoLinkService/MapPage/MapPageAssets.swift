import Foundation

/// The map editor's page, style and script: the files of `MapPage/Assets`, embedded in the binary
/// at build time (`EmbeddedAssets`, written by the `EmbedAssets` plugin) so that `annolink serve`
/// needs no installed files of its own (Leaflet and Tahoma come from Debian, `MapPageRoutes`).
/// Plain JavaScript for the browser, no build step; docs/editor.md says what it does.
enum MapPageAssets {
    /// The page for the dataset `name` (the file's stem, which names the FeatureServer), served
    /// under `prefix` (`--base-path`, a trusted `X-Forwarded-Prefix`): `editor.html` with its
    /// placeholders filled.
    ///
    /// Every URL of the page, its style and scripts is relative, and `<base href>` names the
    /// prefix, so that the page works under any path a proxy puts it (docs/serve.md, "Behind a
    /// reverse proxy"), with or without a trailing slash in the address bar.
    static func html(dataset name: String, prefix: PathPrefix = .root) -> String {
        let service = "arcgis/rest/services/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name) + "/FeatureServer"
        return filled(page, with: [
            "dataset": escaped(name),
            "base": escaped(prefix.path + "/"),
            "service": escaped(service),
            "modules": MapPageModule.all.map { "<script src=\"\($0.path.dropFirst())\"></script>" }.joined(separator: "\n"),
        ])
    }

    /// `template` with each `{{name}}` replaced by `values[name]`, in one pass, so that a value
    /// (a dataset's name) that reads like a placeholder stays as it is.
    static func filled(_ template: String, with values: [String: String]) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            let name = String(rest[open.upperBound..<close.lowerBound])
            guard let value = values[name] else { preconditionFailure("editor.html names {{\(name)}}, which MapPageAssets.html does not fill") }
            result += rest[..<open.lowerBound] + value
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    /// `text` with HTML's special characters as entities.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// The page's template: `{{dataset}}`, `{{base}}`, `{{service}}` and `{{modules}}` are filled
    /// by `html(dataset:prefix:)`.
    static let page = asset("editor.html")
    /// The core's style, before the modules' (`/editor.css`).
    static let style = asset("editor.css")
    /// The core's script (`/editor.js`).
    static let script = asset("editor.js")

    /// The text of the embedded file `name` of `MapPage/Assets`.
    static func asset(_ name: String) -> String {
        guard let text = EmbeddedAssets.files[name] else { preconditionFailure("MapPage/Assets/\(name) is not embedded") }
        return text
    }
}
