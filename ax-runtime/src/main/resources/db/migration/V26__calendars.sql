-- Named exclusion calendars (issue 42): the days on which the tasks that name one do not run.
-- V26: the backfill work takes V27 and later work V28+, numbered ahead so that none is lower than
-- a migration already applied (a stage skips Flyway once the schema is at SCHEMA_VERSION).
-- name: as stored, namespace-qualified like a group ("billing~holidays"; the default namespace's
-- plain), 31 + 1 + 64 characters at most. spec_json: the calendar as ExclusionCalendarJson writes
-- it (zone, dates, ranges, weekly, description), at most 1000 dates and ranges. version: 1 at
-- creation, +1 at every change, so a reader sees whether its copy is current. At most 1000
-- calendars, enforced by CalendarStore.
CREATE TABLE ax_calendar (
  name           VARCHAR(100) NOT NULL,
  spec_json      MEDIUMTEXT   NOT NULL,
  version        BIGINT       NOT NULL,
  created_at_ms  BIGINT       NOT NULL,
  updated_at_ms  BIGINT       NOT NULL,
  PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
