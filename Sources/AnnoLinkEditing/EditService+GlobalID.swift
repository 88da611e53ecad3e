import AnnoLinkStore
import Foundation

/// Esri's GlobalID, a GUID written `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}` (upper-case
/// hexadecimal in braces, as the Loudoun data and ArcGIS write it), which ArcGIS gives every
/// new feature and an Esri relationship (annotation's `FeatureGlobalID`) keys on.
enum GlobalID {
    /// A new random GUID in Esri's form.
    static func make() -> String {
        "{\(UUID().uuidString.uppercased())}"
    }

    /// Whether `text` is a GUID in braces (hexadecimal digits of either case).
    static func isGUID(_ text: String) -> Bool {
        text.range(of: #"^\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\}$"#, options: .regularExpression) != nil
    }
}

extension EditService {
    /// The `FIELD=VALUE` texts of a new feature of `table` with its GlobalID: when the table
    /// has a GlobalID column (`FeatureTable.globalIDColumn`) and the values give none, or give
    /// `NULL`, a new GUID (`GlobalID.make`), as ArcGIS gives one; a GUID given is kept as it is
    /// (`parse` checks its form). Every front end's add comes through here, so an add to a table
    /// imported from ArcGIS, whose GlobalID is NOT NULL without a default, works without one.
    func withGlobalID(_ values: [(field: String, text: String)], for table: FeatureTable) -> [(field: String, text: String)] {
        guard let column = table.globalIDColumn else { return values }
        let isGlobalID = { (field: String) in field.lowercased() == column.name.lowercased() }
        if values.contains(where: { isGlobalID($0.field) && $0.text != "NULL" }) { return values }
        return values.filter { !isGlobalID($0.field) } + [(column.name, GlobalID.make())]
    }

    /// The columns of `table` a new feature must be given a value for: NOT NULL without a
    /// default, the GlobalID left out (`withGlobalID` fills it). What a front end that collects
    /// fields before an add (the sketch editors) asks for.
    public static func fieldsAnAddNeeds(_ table: FeatureTable) -> [Column] {
        let globalID = table.globalIDColumn?.name.lowercased()
        return table.attributeColumns.filter { $0.isNotNull && $0.defaultSQL == nil && $0.name.lowercased() != globalID }
    }

    /// Refuses NULL, or a text that is not a GUID in braces, for `table`'s GlobalID column.
    ///
    /// - Throws: `EditError.invalidValue` saying the form.
    func checkGlobalID(_ value: SQLValue, text: String, column: Column, of table: FeatureTable) throws {
        guard column.name.lowercased() == table.globalIDColumn?.name.lowercased() else { return }
        // Held even where the file lets other programs leave it out (docs/follow.md): the change
        // capture gives those rows one, and annolink's own edits never take one away.
        if value.isNull {
            throw EditError.invalidValue(table: table.name, field: column.name, value: text,
                                         reason: "the column is NOT NULL for ArcGIS: a GlobalID keys the feature's relationships (a new feature gets one of its own)")
        }
        guard case .text(let given) = value else { return }
        guard GlobalID.isGUID(given) else {
            throw EditError.invalidValue(table: table.name, field: column.name, value: text,
                                         reason: "a GlobalID is a GUID in braces, {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX} (hexadecimal digits)")
        }
    }
}
