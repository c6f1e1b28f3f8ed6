-- Up Migration

-- site_content keeps its HTML out of line but uncompressed (projections/site-content.ts says why). A
-- table created before that change is altered here rather than rebuilt: rows written from now on are
-- stored so, the others as they were until their article changes. Not there yet: nothing to do, the
-- projection creates it so.
DO $$
BEGIN
  IF to_regclass('site_content') IS NOT NULL THEN
    ALTER TABLE site_content ALTER COLUMN upstream_html SET STORAGE EXTERNAL;
  END IF;
END
$$;

-- Down Migration
DO $$
BEGIN
  IF to_regclass('site_content') IS NOT NULL THEN
    ALTER TABLE site_content ALTER COLUMN upstream_html SET STORAGE EXTENDED;
  END IF;
END
$$;
