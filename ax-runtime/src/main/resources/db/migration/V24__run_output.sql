-- Run output (issue 41, part 3): a bounded excerpt of what an attempt said (an HTTP call's status,
-- chosen headers and the start of its body; a script's stdout and stderr; an in-process executor's
-- message), its secret-looking values masked. One row per attempt that said something, written in
-- the transaction that records the attempt's outcome; attempts without output (noop, sleep) write
-- none. Retention deletes an instance's rows with the instance, by the primary key's prefix.
-- `ax task runs`, GET /api/v1/tasks/{id}/runs and the console read it by (instance_id, attempt).
CREATE TABLE ax_run_output (
  instance_id     VARCHAR(160) NOT NULL,
  attempt         INT          NOT NULL,
  task_id         VARCHAR(128) NOT NULL,
  status          VARCHAR(16)  NOT NULL,
  started_at_ms   BIGINT       NOT NULL,
  finished_at_ms  BIGINT       NOT NULL,
  output          TEXT         NOT NULL,
  PRIMARY KEY (instance_id, attempt)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
