import Foundation

/// The browser tests' Python scripts: real files in Tests/EndToEndTests/Browser, beside the
/// module they share (`annolink_browser.py`: Debian's headless Chromium through chromedriver
/// and Selenium, waiting for the page to be idle, for a drawn view and for the sketch's answers).
/// Each script drives `annolink serve`'s map editor and prints what it saw as one JSON object;
/// its first lines say what it does, its arguments and how to run it by hand
/// (docs/testing.md, "The browser tests' scripts"). Tests run them with the venv's `python`
/// (scripts/test-venv), which puts the script's folder, and so the shared module, on its path.
enum Browser {
    /// Tests/EndToEndTests/Browser, found from this file's place in the package.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser")

    /// The path of the script `name` in `folder`, to give the venv's `python` as its first argument.
    static func script(_ name: String) -> String {
        folder.appendingPathComponent(name).path
    }
}
