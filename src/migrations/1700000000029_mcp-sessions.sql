-- Up Migration

-- Sessions of the MCP endpoint (POST /mcp, app/mcp/http-route.ts). A session is opened by an MCP
-- client's initialize and belongs to the API key that opened it; any process of the service serves
-- it (every request still carries the key), so it is kept here and not in one process's memory. An
-- ended session (DELETE /mcp) or one unused for a day is answered 404, and the client starts anew.
-- Not a read model: nothing in the event log says what a session is.
CREATE TABLE mcp_sessions (
  session_id       text PRIMARY KEY,
  key_id           text NOT NULL,
  organization_id  text NOT NULL,
  protocol_version text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_used_at     timestamptz NOT NULL DEFAULT now(),
  ended_at         timestamptz
);

CREATE INDEX mcp_sessions_by_last_use ON mcp_sessions (last_used_at);

-- Down Migration
DROP TABLE mcp_sessions;
