import Foundation
import PackagePlugin

/// Embeds the map editor's page, style and scripts (the files of the target's `MapPage/Assets`,
/// which Package.swift excludes from its sources and resources) in the target as the string
/// constants of `EmbeddedAssets.files`, keyed by file name, so that `annolink` stays one file
/// with no installed assets (docs/editor.md, "How it is served"). `AssetEmbedder` writes the
/// Swift file; every asset is an input of that command, so changing one rebuilds the target.
@main
struct EmbedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let directory = target.directoryURL.appending(path: "MapPage/Assets")
        let inputs = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        let command = Command.buildCommand(
            displayName: "Embedding \(inputs.count) map editor assets in \(target.name)",
            executable: try context.tool(named: "AssetEmbedder").url,
            arguments: [output.path, "EmbeddedAssets"] + inputs.map(\.path),
            inputFiles: inputs,
            outputFiles: [output])
        return [command]
    }
}
