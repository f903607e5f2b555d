-- The retry rescan's index without a write on every status change. V18's
-- ax_instance_status_next_attempt (status, next_attempt_at_ms) starts with the status, so every
-- move of every instance (SCHEDULED -> DISPATCHED -> RUNNING -> SUCCESS: three a firing, none of
-- them a retry) delete-marked one entry of it and inserted another, for InnoDB's purge to remove
-- later: about a sixth of the index work of a periodic firing (docs/BENCHMARKS.md, "The seed
-- mix's database work").
--
-- retry_at_ms is next_attempt_at_ms while the row is RETRYING and NULL otherwise, computed by the
-- server (a VIRTUAL column: nothing stored in the row, no statement writes it). Its index changes
-- only when the value does: when a row enters RETRYING, leaves it, or gets a new next attempt. A
-- row that moves between two other statuses keeps NULL, and its entry stays as it is.
--
-- Both in one ALTER: one pass over the table. Building the index reads every row (MySQL 8 and
-- MariaDB 10.3+ build it online); on a large table run it in a quiet hour.
ALTER TABLE ax_instance
  ADD COLUMN retry_at_ms BIGINT
    AS (CASE WHEN status = 'RETRYING' THEN next_attempt_at_ms END) VIRTUAL,
  ADD INDEX ax_instance_retry_at (retry_at_ms),
  DROP INDEX ax_instance_status_next_attempt;
