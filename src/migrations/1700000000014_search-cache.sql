-- Up Migration

-- Answers of the search and LinkedIn data providers (src/domain/search/cache.ts), per organization,
-- keyed by the provider and the normalised request: a repeat within SEARCH_CACHE_TTL_SECONDS is
-- answered from here and costs no credits. Not an event and not a read model: a copy of what an
-- outside service said, which a projection rebuild has no business forgetting or replaying.
CREATE TABLE search_cache (
  organization_id text NOT NULL,
  key             text NOT NULL,
  provider        text NOT NULL,
  value           jsonb NOT NULL,
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (organization_id, key)
);

CREATE INDEX search_cache_by_expiry ON search_cache (expires_at);

-- Down Migration
DROP TABLE search_cache;
