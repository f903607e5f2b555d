-- The reaper looks for FIXED_DELAY chains left without a next firing on every pass. Reading the
-- active FIXED_DELAY tasks by this index keeps that pass proportional to those tasks, not to every
-- task and instance ever stored.
CREATE INDEX ax_task_trigger_state ON ax_task (trigger_type, state);

-- Every status change rewrote an entry in each index that starts with the status: four of them.
-- The reaper's and the retry stage's periodic scans read a status's rows through the one left.
DROP INDEX ax_instance_status_lease ON ax_instance;
DROP INDEX ax_instance_status_dispatched ON ax_instance;
DROP INDEX ax_instance_status_next_attempt ON ax_instance;
