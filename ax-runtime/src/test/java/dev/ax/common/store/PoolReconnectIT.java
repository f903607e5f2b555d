package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.testing.TcpProxy;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A pool whose database was away for longer than HikariCP's connection backoff grows: the first
 * borrow after the database answers again gets a connection, within the borrow's own timeout. With
 * Hikari's adder alone it sleeps up to 5 s between attempts and the borrow fails.
 */
@ExtendWith(AxInfraExtension.class)
class PoolReconnectIT {

  @Test
  void aBorrowGetsAConnectionSoonAfterTheDatabaseAnswersAgain(AxTestEnv env) throws Exception {
    DatabaseCoordinates db = env.database();
    try (TcpProxy proxy = TcpProxy.inFrontOf(db);
        HikariDataSource pool =
            Database.open(
                proxy.jdbcUrl(db),
                db.user(),
                db.password(),
                // Each borrow gives up after 2 s: shorter than the backoff the outage builds.
                Database.Pool.of(2, "reconnect-test")
                    .withConnectionTimeout(Duration.ofSeconds(2)))) {
      assertThat(selectOne(pool)).isEqualTo(1);

      proxy.cut();
      pool.getHikariPoolMXBean().softEvictConnections();
      // Borrowers fail while the database is away; Hikari's adder keeps failing meanwhile.
      long awayUntilNanos = System.nanoTime() + Duration.ofSeconds(7).toNanos();
      int failures = 0;
      while (System.nanoTime() - awayUntilNanos < 0) {
        try {
          selectOne(pool);
        } catch (java.sql.SQLException expected) {
          failures++;
        }
      }
      assertThat(failures).as("borrows failed while the database was away").isPositive();

      proxy.restore();
      // One borrow, with its 2 s timeout: it must get a connection, not wait out a 5 s backoff.
      CompletableFuture<Integer> answer =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return selectOne(pool);
                } catch (java.sql.SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo(1);
    }
  }

  private static int selectOne(HikariDataSource pool) throws java.sql.SQLException {
    try (Connection connection = pool.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT 1")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
