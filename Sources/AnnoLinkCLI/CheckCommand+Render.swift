import AnnoLinkChecks
import AnnoLinkRender
import AnnoLinkStore
import Foundation

extension CheckCommand {
    /// `check --render DIR`: one picture per problem and an `index.html` (ProblemPictures), with
    /// a line saying so unless the output is JSON.
    func drawPictures(_ problems: [Problem], of store: any FeatureStore, into directory: String) throws {
        let pictures = try ProblemPictures(store: store, directory: URL(fileURLWithPath: directory))
        for problem in problems {
            try pictures.write(ProblemSubject(
                code: problem.code.rawValue, message: problem.message, annotationTable: problem.annotationTable,
                annotationFid: problem.annotationFid, classID: problem.classID, originTable: problem.originTable, originFid: problem.originFid,
                overlappedTable: problem.overlapped?.annotationTable, overlappedFid: problem.overlapped?.annotationFid))
        }
        try pictures.writeIndex(title: "annolink check \(store is GeoPackage ? URL(fileURLWithPath: path).lastPathComponent : store.location)")
        if !json {
            Output.diagnostic("wrote \(problems.count) picture\(problems.count == 1 ? "" : "s") and index.html to \(directory)")
        }
    }
}
