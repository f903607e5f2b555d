-- Tasks that share a trigger expression form a trigger group; the ticker's wheel holds one entry per
-- group and due time and fires it as one batch.
ALTER TABLE ax_task ADD COLUMN trigger_group VARCHAR(512) NOT NULL DEFAULT 'ONCE';
