-- Every periodic or per-batch statement reads an index range whatever the history: a database
-- holding months of finished instances answers them as fast as a fresh one. The EXPLAIN tests
-- (PeriodicQueryPlansIT, RetryQueryPlansIT) check each statement's plan on a seeded database.
-- The (status, due_at_ms) index stays as it is: its entries end with the primary key, and the
-- window load and retention read in (due_at_ms, instance_id) order by it, sorting nothing.

-- The per-task lookups of live instances (chain repair, the concurrency check of a firing, the
-- FIXED_DELAY chainer) read one task's rows of a few statuses. Through (task_id, due_at_ms) they
-- read every instance the task ever had that retention has not removed yet (86,400 a day for a
-- per-second cron); through this index, only its live ones.
CREATE INDEX ax_instance_task_status ON ax_instance (task_id, status);

-- The retry rescan reads RETRYING rows soonest next attempt first. V6 dropped this index (one
-- more entry rewritten per status change); without it every rescan sorted every RETRYING row.
CREATE INDEX ax_instance_status_next_attempt ON ax_instance (status, next_attempt_at_ms);
