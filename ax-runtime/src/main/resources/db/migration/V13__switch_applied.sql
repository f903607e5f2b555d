-- Which stage has applied which version of each emergency switch: one row per switch and stage
-- (stage name @ node id), written by the stage when a change takes effect there, read by
-- `ax switch`. Rows of stages long gone are removed by retention once superseded.
CREATE TABLE ax_switch_applied (
  switch_name    VARCHAR(128) NOT NULL,
  stage          VARCHAR(191) NOT NULL,
  version        BIGINT       NOT NULL,
  applied_at_ms  BIGINT       NOT NULL,
  PRIMARY KEY (switch_name, stage)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
