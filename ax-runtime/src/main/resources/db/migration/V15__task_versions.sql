-- The specs an UPDATE superseded, one row per (task, version): an instance fired with version N
-- runs version N's spec even after the task moved on (ax_task holds the current version only).
CREATE TABLE ax_task_version (
  task_id           VARCHAR(128) NOT NULL,
  version           INT          NOT NULL,
  spec_json         MEDIUMTEXT   NOT NULL,
  superseded_at_ms  BIGINT       NOT NULL,
  PRIMARY KEY (task_id, version)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
