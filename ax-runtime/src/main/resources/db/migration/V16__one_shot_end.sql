-- A ONCE task whose every instance is terminal (SUCCESS, DEAD, CANCELLED, SKIPPED) is ENDED
-- (dev.ax.common.store.OneShotEnd): it leaves the live tasks its group's limit counts, and
-- retention may remove it. From V16 on the stores end such a task in the transaction of its last
-- instance's end; this ends the ones earlier versions left ACTIVE. A PAUSED one stays PAUSED (a
-- RESUME ends it).
--
-- The per-group live count becomes `state IN ('ACTIVE', 'PAUSED')`, a range of V7's
-- ax_task_group_active (task_group, state, trigger_type): that index stays as it is.
--
-- One statement; on a table of many millions of tasks it holds its locks for long. To end them in
-- small transactions instead, before upgrading, repeat until it changes no row:
--   UPDATE ax_task t SET t.state = 'ENDED', t.updated_at_ms = ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000)
--   WHERE t.trigger_type = 'ONCE' AND t.state = 'ACTIVE'
--     AND NOT EXISTS (SELECT 1 FROM ax_instance i
--       WHERE i.task_id = t.task_id
--       AND i.status IN ('SCHEDULED', 'DISPATCHED', 'RUNNING', 'FAILED', 'TIMEOUT', 'RETRYING',
--                        'PAUSED'))
--   LIMIT 10000;
-- (single-table UPDATE: LIMIT allowed. Each run walks the ACTIVE ONCE tasks by the index
-- ax_task_trigger_state from V6, the live ones it leaves ACTIVE again each time.)
UPDATE ax_task t
SET t.state = 'ENDED', t.updated_at_ms = ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000)
WHERE t.trigger_type = 'ONCE' AND t.state = 'ACTIVE'
  AND NOT EXISTS (SELECT 1 FROM ax_instance i
    WHERE i.task_id = t.task_id
    AND i.status IN ('SCHEDULED', 'DISPATCHED', 'RUNNING', 'FAILED', 'TIMEOUT', 'RETRYING',
                     'PAUSED'));
