-- Runs the reaper took back (their dispatcher died) within the current retry budget. A take-back
-- starts the next attempt, so `attempt` keeps counting every run; the retry decision counts only
-- the failed ones: attempt - retry_base - taken_back. A dead letter's replay resets it with
-- retry_base. The reaper takes a run back at most AX_MAX_TAKEBACKS times; the next expired run
-- ends the instance DEAD.
ALTER TABLE ax_instance ADD COLUMN taken_back INT NOT NULL DEFAULT 0;
