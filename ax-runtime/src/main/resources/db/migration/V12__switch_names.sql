-- Switch names grow a task group: dispatch.<group> (groups are up to 64 characters).
ALTER TABLE ax_switch MODIFY switch_name VARCHAR(128) NOT NULL;
