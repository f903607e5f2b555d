-- Executor pools (issue 41 part 2). V25, not the V24 first planned: main took V24 for run output,
-- and a stage skips Flyway once the schema is at SCHEMA_VERSION, so a lower number added later
-- would never run on a database already migrated.
-- An executor pool is a named set of HTTP endpoints a task names instead of a URL.
-- Pools are AX-wide (see docs/ARCHITECTURE.md, "Executor pools"): at most 1000 pools, 64 endpoints
-- each, enforced by PoolStore. An endpoint is ACTIVE or DRAINING (no new runs); it is online while
-- its last heartbeat is younger than its pool's offline_after_ms.
CREATE TABLE ax_executor_pool (
  name              VARCHAR(64)  NOT NULL,
  strategy          VARCHAR(16)  NOT NULL,
  offline_after_ms  BIGINT       NOT NULL,
  created_at_ms     BIGINT       NOT NULL,
  updated_at_ms     BIGINT       NOT NULL,
  PRIMARY KEY (name)
);

CREATE TABLE ax_pool_endpoint (
  pool               VARCHAR(64)   NOT NULL,
  base_url           VARCHAR(512)  NOT NULL,
  state              VARCHAR(16)   NOT NULL,
  registered_at_ms   BIGINT        NOT NULL,
  last_heartbeat_ms  BIGINT        NOT NULL,
  PRIMARY KEY (pool, base_url)
);
