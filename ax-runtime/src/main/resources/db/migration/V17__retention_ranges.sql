-- Retention (month-three issue) deletes in small batches, each an index range that starts where the
-- last one ended: never a scan from the start of a table. Instances are read by the existing
-- (status, due_at_ms) index (its entries carry the primary key, the tie-break), audit rows by
-- ax_instance_log_instance, dead letters by their instance, the operator log by ax_operator_log_at:
-- no new index on the tables every firing writes. These are the ranges that had no index.
-- Tasks that reached a terminal state (DELETED, ENDED), by when they reached it.
CREATE INDEX ax_task_state_updated ON ax_task (state, updated_at_ms);
-- Superseded spec versions, by when they were superseded.
CREATE INDEX ax_task_version_superseded ON ax_task_version (superseded_at_ms);
-- Applied commands, by when they were applied.
CREATE INDEX ax_task_command_applied ON ax_task_command (applied_at_ms);
