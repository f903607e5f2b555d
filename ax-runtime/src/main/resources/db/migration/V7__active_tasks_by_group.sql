-- Ingest counts each group's active tasks before it accepts more (AX_MAX_ACTIVE_TASKS_PER_GROUP):
-- one GROUP BY over the batch's groups. This index keeps that count to the groups' own rows; the
-- per-task check of a ONCE task's instances uses ax_instance_task.
CREATE INDEX ax_task_group_active ON ax_task (task_group, state, trigger_type);
