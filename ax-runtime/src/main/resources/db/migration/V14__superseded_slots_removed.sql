-- An UPDATE used to keep the pending slots it superseded as CANCELLED rows; a later schedule that
-- reached one of those slot ids then found it taken and its chain ended. UPDATE now removes such
-- slots (they never fired); this removes the ones earlier versions kept. Their audit rows stay.
DELETE FROM ax_instance
WHERE status = 'CANCELLED' AND dispatched_at_ms IS NULL AND last_error LIKE 'superseded by version %';
