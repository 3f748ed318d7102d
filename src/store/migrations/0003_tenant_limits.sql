-- Tenant limits (issue 15): storage quotas per organisation and per bucket, request rates per
-- organisation and per credential, and the storage usage the quotas are held against.

-- Set by platform admins: the organisation's storage quota and its request rate over every
-- instance. Set by the organisation's owners and admins: the rate each of its credentials gets.
-- NULL: no limit. A burst NULL is one second's worth of the rate.
ALTER TABLE organisations
  ADD COLUMN max_bytes bigint CHECK (max_bytes >= 0),
  ADD COLUMN max_objects bigint CHECK (max_objects >= 0),
  ADD COLUMN requests_per_second double precision CHECK (requests_per_second > 0),
  ADD COLUMN request_burst integer CHECK (request_burst > 0),
  ADD COLUMN credential_requests_per_second double precision CHECK (credential_requests_per_second > 0),
  ADD COLUMN credential_request_burst integer CHECK (credential_request_burst > 0);

-- Set by the organisation's owners and admins, within the organisation's quota. NULL: no limit.
ALTER TABLE buckets
  ADD COLUMN max_bytes bigint CHECK (max_bytes >= 0),
  ADD COLUMN max_objects bigint CHECK (max_objects >= 0);

-- What the object store holds, for every bucket under a quota (its own or its organisation's) and
-- every organisation with one: the scope 'bucket:<name>' or 'organisation:<id>'. A row exists
-- exactly while a quota applies; it starts from a count of the bucket through the store, and every
-- write the gateway forwards moves it. Uploads in flight hold a reservation (reserved_*), so two
-- concurrent uploads cannot both pass the check; stored_* changes once the store has answered.
CREATE TABLE storage_usage (
  scope text PRIMARY KEY,
  organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  bucket text REFERENCES buckets (name) ON DELETE CASCADE,
  stored_bytes bigint NOT NULL DEFAULT 0,
  stored_objects bigint NOT NULL DEFAULT 0,
  reserved_bytes bigint NOT NULL DEFAULT 0,
  reserved_objects bigint NOT NULL DEFAULT 0,
  counted_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((scope LIKE 'bucket:%') = (bucket IS NOT NULL))
);
CREATE INDEX storage_usage_organisation_idx ON storage_usage (organisation_id);

-- Every process serving the storage endpoint, with a heartbeat: a rate limit is shared among the
-- live ones, and the reservations of one that stopped beating are released by the others.
CREATE TABLE gateway_instances (
  id uuid PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- One row per upload in flight under a quota: what it holds in reserved_* of each scope.
CREATE TABLE storage_reservations (
  id uuid PRIMARY KEY,
  instance_id uuid NOT NULL,
  scopes text[] NOT NULL,
  bytes bigint NOT NULL,
  objects bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX storage_reservations_instance_idx ON storage_reservations (instance_id);

-- Storage requests refused for a request rate limit, beside the requests served.
ALTER TABLE usage_counters ADD COLUMN throttled bigint NOT NULL DEFAULT 0;
