// AnnoLinkImport: reading Esri mobile geodatabases.

