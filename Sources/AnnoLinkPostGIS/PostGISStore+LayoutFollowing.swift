import AnnoLinkStore

extension PostGISStore {
    /// Makes the layout caches current for a long-lived store (`annolink serve`): when the data
    /// set's registry — tables, columns, CRS definitions, annotation classes, in the annolink
    /// schema — changed since the last call (another server's or command's `annolink annotate`,
    /// `copy --overwrite` into the database), the cached table layouts and CRS rows are
    /// forgotten, and `true` returned so that the caller forgets what it compiled from them
    /// (`AnnotationEngine.forgetClasses`). The first call only notes the registry.
    ///
    /// PostgreSQL has no schema cookie: the registry's rows are hashed, one round trip of a few
    /// small scans per call. A column dropped with `ALTER TABLE` outside annolink is not in the
    /// registry, and its reads fail with PostgreSQL's error rather than a wrong value.
    ///
    /// - Throws: `PostgreSQLError`.
    @discardableResult
    public func followLayout() throws -> Bool {
        let fingerprint = try connection.query("""
            SELECT md5(concat_ws('|',
              (SELECT string_agg(t::text, ';' ORDER BY t::text) FROM annolink.contents t),
              (SELECT string_agg(t::text, ';' ORDER BY t::text) FROM annolink.geometry_columns t),
              (SELECT string_agg(t::text, ';' ORDER BY t::text) FROM annolink.columns t),
              (SELECT string_agg(t::text, ';' ORDER BY t::text) FROM annolink.spatial_ref_sys t),
              (SELECT string_agg(t::text, ';' ORDER BY t::text) FROM annolink.annotation_tables t),
              (SELECT string_agg(t::text, ';' ORDER BY t::text) FROM annolink.annotation_classes t)))
            """).scalar?.textValue
        defer { layoutFingerprint = fingerprint }
        guard let known = layoutFingerprint, known != fingerprint else { return false }
        tableCache.removeAll()
        systems.removeAll()
        return true
    }
}
