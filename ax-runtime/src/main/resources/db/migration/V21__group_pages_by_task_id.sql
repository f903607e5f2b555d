-- A group PAUSE or RESUME (ingest's GroupLifecycleStore) walks the group's tasks in one state a page
-- at a time: task_group = ? AND state = ? AND task_id > ? ORDER BY task_id LIMIT ?. With V7's
-- ax_task_group_active (task_group, state, trigger_type) the range of (task_group, state) is ordered
-- by trigger type first, so every page sorted all of the group's tasks in that state (filesort):
-- at the seeds' volume, ten million pending one-shot tasks in one group, per page of 500.
--
-- The index keeps its name and its first two columns; task_id replaces trigger_type, so a page is
-- the next entries of the range in their own order. The live count (task_group IN (...) AND state
-- IN ('ACTIVE', 'PAUSED'), TaskStore.liveCountSql) reads the same range as before, from the index
-- alone; no statement reads trigger_type through this index. One index replaced by one: a task's
-- insert and state change write as many index entries as before.
--
-- On a large ax_task this rebuilds one secondary index in place (InnoDB online DDL: reads and
-- writes go on; MySQL 8 and MariaDB both allow DROP and ADD of one name in one ALTER).
ALTER TABLE ax_task
  DROP INDEX ax_task_group_active,
  ADD INDEX ax_task_group_active (task_group, state, task_id);
