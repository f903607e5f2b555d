-- Every periodic or per-batch statement reads an index range whatever the history: a database
-- holding months of finished instances answers them as fast as a fresh one. The EXPLAIN tests
-- (PeriodicQueryPlansIT, RetryQueryPlansIT) check each statement's plan on a seeded database.
-- The (status, due_at_ms) index stays as it is: its entries end with the primary key, and the
-- window load and retention read in (due_at_ms, instance_id) order by it, sorting nothing.

-- The per-task lookups of live instances (chain repair, the concurrency check of a firing, the
-- FIXED_DELAY chainer) read one task's rows of a few statuses. Through (task_id, due_at_ms) they
-- read every instance the task ever had that retention has not removed yet (86,400 a day for a
-- per-second cron); through this index, only its live ones.
--
-- The retry rescan reads RETRYING rows soonest next attempt first. V6 dropped that index (one
-- more entry rewritten per status change); without it every rescan sorted every RETRYING row.
--
-- Both in one ALTER: one pass over the table, and a migration that fails half-way leaves neither
-- index behind for Flyway's retry to trip over. On a large table run it in a quiet hour, or create
-- the two indexes beforehand with the same names and mark V18 applied; the online build logs
-- concurrent writes (innodb_online_alter_log_max_size bounds that log).
ALTER TABLE ax_instance
  ADD INDEX ax_instance_task_status (task_id, status),
  ADD INDEX ax_instance_status_next_attempt (status, next_attempt_at_ms);
