-- What operators did through the CLI: every action that changes state (switches, dead-letter
-- replays and discards, task lifecycle commands), who, when, on what and why. Written by the CLI
-- when it acts; read by `ax audit`.
CREATE TABLE ax_operator_log (
  id         BIGINT       NOT NULL AUTO_INCREMENT,
  actor      VARCHAR(128) NOT NULL,
  action     VARCHAR(64)  NOT NULL,
  target     VARCHAR(255) NOT NULL,
  reason     VARCHAR(512) NULL,
  at_ms      BIGINT       NOT NULL,
  PRIMARY KEY (id),
  KEY ax_operator_log_at (at_ms)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
