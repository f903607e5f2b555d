-- Retries (retry/dead-letter issue). A failed attempt with retries left moves FAILED/TIMEOUT ->
-- RETRYING in the dispatcher's outcome transaction, stamped with the time of its next attempt; the
-- retry stage rebuilds its wheel from these rows after a restart.
ALTER TABLE ax_instance ADD COLUMN next_attempt_at_ms BIGINT NULL;
-- The attempt number at which the current retry budget began: 0, or the attempts already made when
-- an operator replayed the instance's dead letter (a replay gets a fresh budget).
ALTER TABLE ax_instance ADD COLUMN retry_base INT NOT NULL DEFAULT 0;
CREATE INDEX ax_instance_status_next_attempt ON ax_instance (status, next_attempt_at_ms);
