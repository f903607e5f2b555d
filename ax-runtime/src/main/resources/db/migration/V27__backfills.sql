-- Backfills (issue 42): a request to create the firings a CRON or FIXED_RATE task's schedule would
-- have made in a past range. `ax task backfill`, the API or the console write the row (checked and
-- audited in the operator log); the ticker leader creates the firings from it at a pace
-- (AX_BACKFILL_RATE, AX_BACKFILL_MAX_IN_FLIGHT), a few slots a pass, each with the deterministic id
-- taskId@backfill:<slotMillis>, moving cursor_ms and the counts in the same transaction.
-- Bounded: at most 100,000 firings a backfill, one RUNNING backfill a task, 100 RUNNING in all
-- (BackfillStore). DONE and CANCELLED rows stay as the history an operator reads.
CREATE TABLE ax_backfill (
  backfill_id      VARCHAR(64)  NOT NULL,
  task_id          VARCHAR(128) NOT NULL,
  from_ms          BIGINT       NOT NULL,  -- the range's first instant (inclusive)
  to_ms            BIGINT       NOT NULL,  -- its last (inclusive), at most the request's time
  grid_origin_ms   BIGINT       NOT NULL,  -- a FIXED_RATE task's grid origin at or before from_ms
  overlap          VARCHAR(16)  NOT NULL,  -- SKIP, BUFFER_ONE, BUFFER_ALL or ALLOW_ALL
  total            BIGINT       NOT NULL,  -- slots in the range when it was accepted
  cursor_ms        BIGINT       NOT NULL,  -- every slot up to here is handled (from_ms - 1 at first)
  created_count    BIGINT       NOT NULL DEFAULT 0,  -- firings created (SKIPPED ones included)
  skipped_count    BIGINT       NOT NULL DEFAULT 0,  -- created SKIPPED (overlap SKIP)
  existing_count   BIGINT       NOT NULL DEFAULT 0,  -- slots passed over: an instance of the slot existed
  state            VARCHAR(16)  NOT NULL,  -- RUNNING, DONE or CANCELLED
  reason           VARCHAR(512) NULL,      -- the operator's
  ended_reason     VARCHAR(512) NULL,      -- why it is CANCELLED, or how it ended
  requested_by     VARCHAR(128) NOT NULL,
  requested_at_ms  BIGINT       NOT NULL,
  updated_at_ms    BIGINT       NOT NULL,
  PRIMARY KEY (backfill_id),
  KEY ax_backfill_task (task_id, requested_at_ms),
  KEY ax_backfill_state (state, requested_at_ms)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
