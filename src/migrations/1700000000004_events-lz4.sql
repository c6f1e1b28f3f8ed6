-- Up Migration

-- Event payloads are mostly large text (an article's HTML) and are compressed when stored. Where the
-- server is built with lz4 (Debian's and most distributions' packages are), use it: it compresses
-- several times faster than the default pglz at a similar ratio for HTML and JSON. A server built
-- without it (the embedded default) refuses the method, and one older than PostgreSQL 14 has no
-- per-column compression: pglz stays then. Rows already stored keep theirs.
DO $$
BEGIN
  IF current_setting('server_version_num')::int >= 140000 THEN
    EXECUTE 'ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4';
  END IF;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available on this server: event data stays compressed with pglz';
END
$$;

-- Down Migration
DO $$
BEGIN
  IF current_setting('server_version_num')::int >= 140000 THEN
    EXECUTE 'ALTER TABLE events ALTER COLUMN data SET COMPRESSION default';
  END IF;
END
$$;
