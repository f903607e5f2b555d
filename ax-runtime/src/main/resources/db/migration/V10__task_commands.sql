-- Lifecycle commands (CANCEL, ...) applied to tasks: the command's id (the producer's commandId, or
-- the record's position when it sent none), recorded in the transaction that applied it, so a
-- command delivered again finds its id here and changes nothing. Ids are per task: two tasks'
-- commands may share one. Rows are kept with the task's history; they also answer "who changed
-- this task, when, and why".
CREATE TABLE ax_task_command (
  command_id     VARCHAR(255) NOT NULL,
  task_id        VARCHAR(128) NOT NULL,
  command_type   VARCHAR(16)  NOT NULL,
  reason         VARCHAR(512) NULL,
  trace_id       VARCHAR(128) NOT NULL,
  applied_by     VARCHAR(128) NOT NULL,
  applied_at_ms  BIGINT       NOT NULL,
  PRIMARY KEY (task_id, command_id),
  KEY ax_task_command_task (task_id, applied_at_ms)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
