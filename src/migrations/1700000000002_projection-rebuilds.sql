-- Up Migration

-- A blue/green rebuild under way, one per projection. The new version is built into shadow tables
-- (`tables`: logical name -> shadow name) under its own checkpoint row `<projection>@rebuild`; an
-- interrupted rebuild finds this row and resumes where its checkpoint stands. Deleted by the swap.
CREATE TABLE projection_rebuilds (
  projection text PRIMARY KEY,
  version    integer NOT NULL,
  suffix     text NOT NULL,
  tables     jsonb NOT NULL,
  reason     text NOT NULL,
  actor      text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX projection_audit_by_projection ON projection_audit (projection, id DESC);

-- Down Migration
DROP INDEX projection_audit_by_projection;
DROP TABLE projection_rebuilds;
