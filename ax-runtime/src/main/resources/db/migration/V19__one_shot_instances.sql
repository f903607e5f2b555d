-- Each instance knows whether its task is one-shot (trigger ONCE), so that the end of a one-shot
-- task (dev.ax.common.store.OneShotEnd), appended to every move to a terminal status, reaches the
-- ax_task rows of ONCE tasks only. Before V19 it joined the task of every moved instance and so
-- took (or waited for) the task-row lock of every periodic task whose run ended, after the
-- instance rows: the reverse of a lifecycle command's order, a deadlock with a PAUSE or an UPDATE.
--
-- Set when the instance is created, from its task's trigger; an UPDATE that changes the trigger
-- sets it again on the task's live instances; a replay sets it from the task as it is then.
--
-- The ADD COLUMN with a constant default changes no row (MySQL 8.0.12+ and MariaDB 10.3+ add it
-- in place). Only live instances need the flag (a terminal one gets it again if replayed): the
-- UPDATE reads the ONCE tasks by ax_task_trigger_state (V6) and their live instances by
-- ax_instance_task_status (V18).
ALTER TABLE ax_instance ADD COLUMN one_shot TINYINT NOT NULL DEFAULT 0;

UPDATE ax_instance i
JOIN ax_task t ON t.task_id = i.task_id
SET i.one_shot = 1
WHERE t.trigger_type = 'ONCE'
  AND i.status IN ('SCHEDULED', 'DISPATCHED', 'RUNNING', 'FAILED', 'TIMEOUT', 'RETRYING',
                   'PAUSED');
