-- Dependency triggers (dependency issue). The graph: one row per (downstream task, upstream task).
CREATE TABLE ax_task_dependency (
  task_id           VARCHAR(128) NOT NULL,
  upstream_task_id  VARCHAR(128) NOT NULL,
  PRIMARY KEY (task_id, upstream_task_id),
  KEY ax_task_dependency_upstream (upstream_task_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Every instance carries its flow run (NULL: the instance starts its own, whose id is its own id).
CREATE INDEX ax_instance_flow_run ON ax_instance (flow_run_id);
