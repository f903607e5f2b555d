-- AX schema, version 1. Times are epoch milliseconds (BIGINT) on the database clock, so that
-- MySQL 8 and MariaDB agree to the millisecond whatever the driver does with TIMESTAMP parameters.

CREATE TABLE ax_task (
  task_id        VARCHAR(128) NOT NULL,
  version        INT          NOT NULL,
  task_group     VARCHAR(64)  NOT NULL,
  trigger_type   VARCHAR(16)  NOT NULL,
  state          VARCHAR(16)  NOT NULL,          -- ACTIVE, PAUSED, CANCELLED
  spec_json      MEDIUMTEXT   NOT NULL,
  trace_id       VARCHAR(128) NOT NULL,
  created_at_ms  BIGINT       NOT NULL,
  updated_at_ms  BIGINT       NOT NULL,
  PRIMARY KEY (task_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE ax_instance (
  instance_id       VARCHAR(160) NOT NULL,       -- taskId@fireTimeMillis
  task_id           VARCHAR(128) NOT NULL,
  task_version      INT          NOT NULL,
  status            VARCHAR(16)  NOT NULL,
  attempt           INT          NOT NULL DEFAULT 0,
  due_at_ms         BIGINT       NOT NULL,
  flow_run_id       VARCHAR(160) NULL,
  trace_id          VARCHAR(128) NOT NULL,
  owner             VARCHAR(128) NULL,          -- the dispatcher running it
  lease_until_ms    BIGINT       NULL,
  batch_token       VARCHAR(64)  NULL,          -- which batch UPDATE last moved this row
  epoch             BIGINT       NOT NULL DEFAULT 0,
  dispatched_at_ms  BIGINT       NULL,
  claimed_at_ms     BIGINT       NULL,
  finished_at_ms    BIGINT       NULL,
  last_error        VARCHAR(2048) NULL,
  created_at_ms     BIGINT       NOT NULL,
  updated_at_ms     BIGINT       NOT NULL,
  PRIMARY KEY (instance_id),
  KEY ax_instance_status_due (status, due_at_ms),
  KEY ax_instance_task (task_id, due_at_ms)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per status transition: who, when, from, to, why. Written in the same transaction as the
-- UPDATE it records.
CREATE TABLE ax_instance_log (
  id           BIGINT       NOT NULL AUTO_INCREMENT,
  instance_id  VARCHAR(160) NOT NULL,
  task_id      VARCHAR(128) NOT NULL,
  attempt      INT          NOT NULL,
  from_status  VARCHAR(16)  NULL,                -- NULL for the creation of the instance
  to_status    VARCHAR(16)  NOT NULL,
  actor        VARCHAR(128) NOT NULL,
  reason       VARCHAR(512) NULL,
  at_ms        BIGINT       NOT NULL,
  PRIMARY KEY (id),
  KEY ax_instance_log_instance (instance_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The ticker leader lease with its fencing epoch (used from the leader-election issue on).
CREATE TABLE ax_leader_lease (
  lease_name       VARCHAR(64)  NOT NULL,
  holder           VARCHAR(128) NULL,
  epoch            BIGINT       NOT NULL DEFAULT 0,
  lease_until_ms   BIGINT       NOT NULL DEFAULT 0,
  heartbeat_at_ms  BIGINT       NOT NULL DEFAULT 0,
  PRIMARY KEY (lease_name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Instances that exhausted their retries, with everything needed to inspect and replay them.
CREATE TABLE ax_dead_letter (
  id              BIGINT       NOT NULL AUTO_INCREMENT,
  instance_id     VARCHAR(160) NOT NULL,
  task_id         VARCHAR(128) NOT NULL,
  task_group      VARCHAR(64)  NOT NULL,
  task_snapshot   MEDIUMTEXT   NOT NULL,
  attempts_json   MEDIUMTEXT   NOT NULL,
  last_error      VARCHAR(2048) NULL,
  last_stack      MEDIUMTEXT   NULL,
  state           VARCHAR(16)  NOT NULL,         -- OPEN, REPLAYED, DISCARDED
  state_reason    VARCHAR(512) NULL,
  created_at_ms   BIGINT       NOT NULL,
  updated_at_ms   BIGINT       NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY ax_dead_letter_instance (instance_id),
  KEY ax_dead_letter_task (task_id, created_at_ms)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Emergency switches (pause intake, pause dispatch, disable retries, ...), versioned.
CREATE TABLE ax_switch (
  switch_name    VARCHAR(64)  NOT NULL,
  switch_value   VARCHAR(256) NOT NULL,
  version        BIGINT       NOT NULL,
  updated_by     VARCHAR(128) NOT NULL,
  updated_at_ms  BIGINT       NOT NULL,
  PRIMARY KEY (switch_name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT INTO ax_leader_lease (lease_name, holder, epoch, lease_until_ms, heartbeat_at_ms)
VALUES ('ticker', NULL, 0, 0, 0);
