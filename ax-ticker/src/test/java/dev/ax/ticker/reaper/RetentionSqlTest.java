package dev.ax.ticker.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Retention's statements check for a task's or version's instances with a scalar subquery, never
 * {@code NOT EXISTS}: on a large database MariaDB and MySQL may turn the latter into a materialized
 * read of a whole index per batch (15 s a batch on the 2,000/s soak's database), a plan the EXPLAIN
 * tests on a small seeded database do not show.
 */
class RetentionSqlTest {

  @Test
  void noStatementAsksNotExists() {
    List<String> statements =
        List.of(
            RetentionSql.OLDEST_TASK_SQL,
            RetentionSql.tasksSql(),
            RetentionSql.lockTasksSql("?"),
            RetentionSql.versionsSql(),
            RetentionSql.lockVersionsSql("(v.task_id = ? AND v.version = ?)"));

    assertThat(statements).noneMatch(sql -> sql.contains("NOT EXISTS"));
    assertThat(statements).allMatch(sql -> sql.contains("LIMIT 1) IS NULL"));
  }
}
