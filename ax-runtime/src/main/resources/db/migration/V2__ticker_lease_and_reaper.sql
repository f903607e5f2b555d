-- Ticker v2: a compact numeric key for the time wheel, and indexes for the reaper's scans.
ALTER TABLE ax_instance ADD COLUMN seq BIGINT NOT NULL AUTO_INCREMENT UNIQUE;
CREATE INDEX ax_instance_status_lease ON ax_instance (status, lease_until_ms);
CREATE INDEX ax_instance_status_dispatched ON ax_instance (status, dispatched_at_ms);
