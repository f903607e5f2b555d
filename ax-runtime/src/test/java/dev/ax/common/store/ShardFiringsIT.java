package dev.ax.common.store;

import static dev.ax.common.testing.TestTasks.newTask;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.testing.StoreFixture;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A sharded firing on a real database: fanned out once, whoever repeats it; settled only when its
 * last shard has ended, exactly once, with the outcome its shards give; and two transactions that
 * end the last two shards at the same moment settle it once between them.
 */
@ExtendWith(AxInfraExtension.class)
class ShardFiringsIT {

  private static final String FIRING = "job@1000";

  @RegisterExtension final StoreFixture store;

  ShardFiringsIT(AxTestEnv env) {
    store = StoreFixture.open(env);
  }

  @Test
  void aFiringFansOutOnceAndSettlesOnceWhenItsLastShardEnds() throws Exception {
    claimFiring("d1", 1);

    List<DueInstance> shards = fanOut("d1", 1, 3);

    assertThat(shards)
        .extracting(DueInstance::instanceId)
        .containsExactlyInAnyOrder("job@1000#0of3", "job@1000#1of3", "job@1000#2of3");
    assertThat(column("status", "job@1000#1of3")).isEqualTo("DISPATCHED");
    assertThat(column("shard_of", "job@1000#1of3")).isEqualTo(FIRING);
    assertThat(((Number) column("shard_index", "job@1000#1of3")).intValue()).isEqualTo(1);
    assertThat(((Number) column("epoch", "job@1000#1of3")).longValue()).isEqualTo(7);
    assertThat(column("owner", FIRING)).isEqualTo(ShardFirings.OWNER);
    assertThat(column("lease_until_ms", FIRING)).isNull();

    // Its dispatcher died after the fan-out: taken back, claimed again, fanned out again.
    sql("UPDATE ax_instance SET owner = 'd2', attempt = 2 WHERE instance_id = '" + FIRING + "'");
    assertThat(fanOut("d2", 2, 3)).as("every shard exists already").isEmpty();
    assertThat(count("SELECT COUNT(*) FROM ax_instance WHERE shard_of = '" + FIRING + "'"))
        .isEqualTo(3);
    assertThat(fanOut("d1", 1, 3)).as("no longer d1's").isEmpty();

    sql("UPDATE ax_instance SET status = 'SUCCESS' WHERE instance_id LIKE 'job@1000#0%'");
    sql("UPDATE ax_instance SET status = 'SUCCESS' WHERE instance_id LIKE 'job@1000#1%'");
    assertThat(settle()).as("shard 2 still DISPATCHED").isEmpty();
    assertThat(column("status", FIRING)).isEqualTo("RUNNING");

    sql("UPDATE ax_instance SET status = 'DEAD' WHERE instance_id LIKE 'job@1000#2%'");
    List<ShardFirings.Settled> settled = settle();

    assertThat(settled)
        .singleElement()
        .satisfies(
            firing -> {
              assertThat(firing.status()).isEqualTo(InstanceStatus.DEAD);
              assertThat(firing.error()).isEqualTo("shards failed: 2");
              assertThat(firing.shards().total()).isEqualTo(3);
              assertThat(firing.shards().succeeded()).isEqualTo(2);
              assertThat(firing.shards().failed()).containsExactly(2);
              assertThat(firing.flowRunId()).isEqualTo(FIRING);
            });
    assertThat(column("status", FIRING)).isEqualTo("DEAD");
    assertThat(new AuditLog(store.runtime().dataSource()).history(FIRING))
        .extracting(AuditLog.Transition::to)
        .endsWith(InstanceStatus.RUNNING, InstanceStatus.FAILED, InstanceStatus.DEAD);
    assertThat(taskState()).as("the one-shot task's only firing ended").isEqualTo("ENDED");
    assertThat(settle()).as("settled once").isEmpty();
  }

  @Test
  void aShardRetentionRemovedBeforeItsFiringSettledCountsAsEndedNotAsLive() throws Exception {
    claimFiring("d1", 1);
    fanOut("d1", 1, 2);
    sql("UPDATE ax_instance SET status = 'SUCCESS' WHERE shard_of = '" + FIRING + "'");
    sql("DELETE FROM ax_instance WHERE instance_id = 'job@1000#1of2'");

    assertThat(settle())
        .singleElement()
        .satisfies(
            firing -> {
              assertThat(firing.status()).isEqualTo(InstanceStatus.CANCELLED);
              assertThat(firing.error())
                  .isEqualTo("shards no longer stored (removed by retention): 1");
              assertThat(firing.shards().succeeded()).isEqualTo(1);
              assertThat(firing.shards().cancelled()).containsExactly(1);
            });
  }

  @Test
  void twoTransactionsEndingTheLastTwoShardsAtOnceSettleTheFiringExactlyOnce() throws Exception {
    claimFiring("d1", 1);
    fanOut("d1", 1, 2);
    sql("UPDATE ax_instance SET status = 'RUNNING' WHERE shard_of = '" + FIRING + "'");

    try (Connection first = connection();
        Connection second = connection()) {
      endShard(first, "job@1000#0of2");
      endShard(second, "job@1000#1of2");
      List<ShardFirings.Settled> byFirst = ShardFirings.settle(first, List.of(FIRING), "d1", 10);
      // The second waits for the first's lock on the firing, then reads the first's commit.
      CompletableFuture<List<ShardFirings.Settled>> bySecond =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return ShardFirings.settle(second, List.of(FIRING), "d2", 11);
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      first.commit();
      List<ShardFirings.Settled> settledBySecond = bySecond.get(30, TimeUnit.SECONDS);
      second.commit();

      assertThat(byFirst).as("the second shard was not committed yet").isEmpty();
      assertThat(settledBySecond)
          .singleElement()
          .satisfies(firing -> assertThat(firing.status()).isEqualTo(InstanceStatus.SUCCESS));
    }
    assertThat(column("status", FIRING)).isEqualTo("SUCCESS");
  }

  private void claimFiring(String owner, int attempt) throws Exception {
    store.tasks().create(List.of(newTask("job", 1000)), "test", 1);
    sql(
        "UPDATE ax_instance SET status = 'RUNNING', owner = '"
            + owner
            + "', attempt = "
            + attempt
            + ", lease_until_ms = 99999, claimed_at_ms = 1100 WHERE instance_id = '"
            + FIRING
            + "'");
  }

  private List<DueInstance> fanOut(String owner, int attempt, int total) {
    return Transactions.inTransaction(
        store.runtime().dataSource(),
        "fan out",
        connection ->
            ShardFirings.fanOut(
                connection,
                new ShardFirings.Firing(FIRING, "job", 1, attempt, 1000, "trace", FIRING),
                total,
                owner,
                7,
                1200));
  }

  private List<ShardFirings.Settled> settle() {
    return Transactions.inTransaction(
        store.runtime().dataSource(),
        "settle",
        connection -> ShardFirings.settle(connection, List.of(FIRING), "test", 1300));
  }

  /** A connection as the stages open them: READ COMMITTED, a transaction begun. */
  private Connection connection() throws SQLException {
    Connection connection = store.runtime().dataSource().getConnection();
    connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    connection.setAutoCommit(false);
    return connection;
  }

  private static void endShard(Connection connection, String shardId) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE ax_instance SET status = 'SUCCESS' WHERE instance_id = ?")) {
      update.setString(1, shardId);
      assertThat(update.executeUpdate()).isEqualTo(1);
    }
  }

  private String taskState() throws SQLException {
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement read =
            connection.prepareStatement("SELECT state FROM ax_task WHERE task_id = 'job'");
        ResultSet rs = read.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  private Object column(String column, String instanceId) throws SQLException {
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement read =
            connection.prepareStatement(
                "SELECT " + column + " FROM ax_instance WHERE instance_id = ?")) {
      read.setString(1, instanceId);
      try (ResultSet rs = read.executeQuery()) {
        assertThat(rs.next()).as(instanceId).isTrue();
        return rs.getObject(1);
      }
    }
  }

  private long count(String query) throws SQLException {
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement read = connection.prepareStatement(query);
        ResultSet rs = read.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void sql(String statement) throws SQLException {
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement update = connection.prepareStatement(statement)) {
      update.execute();
    }
  }
}
