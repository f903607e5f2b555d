-- The transactional outbox (issue 17): every event an outcome owes (completion, flow success,
-- retry, dead letter) is written here in the outcome's own transaction, sent to Kafka after the
-- commit, and deleted once the broker has it. A row older than the relay's threshold was not
-- confirmed (its dispatcher died, or the broker was away): a relay sends it again. So an outcome
-- and its events cannot be separated by a crash; a consumer may see an event twice, never zero
-- times.
CREATE TABLE ax_outbox (
  id BIGINT NOT NULL AUTO_INCREMENT,
  topic VARCHAR(249) NOT NULL,
  record_key VARCHAR(1024) NULL,
  payload MEDIUMBLOB NOT NULL,
  -- Kafka headers as a JSON object of strings (the trace id, the trigger type).
  headers TEXT NULL,
  -- Who may delete the row: the batch that wrote it, or the relay that claimed it since.
  batch_token CHAR(36) NOT NULL,
  -- When the row was written or last claimed by a relay.
  stamped_at_ms BIGINT NOT NULL,
  PRIMARY KEY (id),
  KEY ax_outbox_token (batch_token),
  KEY ax_outbox_stamped (stamped_at_ms)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
