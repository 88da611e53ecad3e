// AnnoLinkStore: SQLite connection and the GeoPackage.
import CSQLite

