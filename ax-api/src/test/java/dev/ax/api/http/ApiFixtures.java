package dev.ax.api.http;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.kafka.CommandSender;
import dev.ax.api.read.MetricsSummary;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.api.write.SwitchBoard;
import dev.ax.api.write.TaskCommands;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.deadletter.DeadLetterReplayer;
import dev.ax.deadletter.DeadLetterStore;
import java.net.URI;
import java.util.List;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;

/** What the API's tests build on a real database and broker: its backends, a dead letter. */
final class ApiFixtures {

  /** A token of role operate, named olga. */
  static final String OPERATOR = "operator-token-0123456789abcdef";

  /** A token of role read, named rita. */
  static final String READER = "reader-token-0123456789abcdefgh";

  /** A token of role operate scoped to namespace billing, named bill. */
  static final String BILLING = "billing-token-0123456789abcdefgh";

  private ApiFixtures() {}

  /**
   * The tokens {@link #OPERATOR} (olga, operate), {@link #READER} (rita, read) and {@link #BILLING}
   * (bill, operate in namespace billing only).
   */
  static ApiTokens tokens() {
    return ApiTokens.parse(
        List.of(
            OPERATOR + " olga operate", READER + " rita read *", BILLING + " bill operate billing"),
        "tokens");
  }

  /** The backends `ax console` builds, over the test's database and topics. */
  static ApiBackends backends(
      StoreFixture store,
      CommandSender sender,
      KafkaProducer<String, byte[]> producer,
      List<URI> metricsSources) {
    DataSource db = store.runtime().dataSource();
    OperatorLog log = new OperatorLog(db);
    DeadLetterStore letters = new DeadLetterStore(db);
    return new ApiBackends(
        db,
        new TaskCommands(sender, store.runtime().topics(), log, System::currentTimeMillis),
        new DeadLetterActions(
            letters,
            new DeadLetterReplayer(letters, store.instances(), producer, store.runtime().topics()),
            log,
            System::currentTimeMillis),
        new SwitchBoard(new SwitchStore(db), log, System::currentTimeMillis),
        new MetricsSummary(metricsSources, System::currentTimeMillis));
  }

  /**
   * A flow: {@code extract} (one-shot, its instance {@code extract@1000} SUCCESS, the root of its
   * flow run), {@code load} waiting for it, and {@code report} joining both; the flow run's id.
   */
  static String flowOf(StoreFixture store) {
    store
        .tasks()
        .create(
            List.of(
                TestTasks.newTask("extract", 1000),
                new NewTask(
                    TestTasks.noop("load", new Trigger.Dependency(List.of("extract"))), "t-l", 0),
                new NewTask(
                    TestTasks.noop("report", new Trigger.Dependency(List.of("extract", "load"))),
                    "t-r",
                    0)),
            "test",
            1000);
    new Jdbc(store.runtime().dataSource())
        .inTransaction(
            "ending extract",
            tx ->
                tx.update(
                    "UPDATE ax_instance SET status = ? WHERE instance_id = ?",
                    Jdbc.Binder.values(InstanceStatus.SUCCESS.name(), "extract@1000")));
    return "extract@1000";
  }

  /**
   * A one-shot task {@code taskId} whose one instance ({@code taskId@1000}) ended DEAD, and its
   * open dead letter (two failed attempts, a stack trace, a password parameter); the letter's id.
   */
  static long deadLetterOf(StoreFixture store, String taskId) {
    store.tasks().create(List.of(TestTasks.newTask(taskId, 1000)), "test", 1000);
    String instanceId = taskId + "@1000";
    new Jdbc(store.runtime().dataSource())
        .inTransaction(
            "marking " + instanceId + " dead",
            tx ->
                tx.update(
                    "UPDATE ax_instance SET status = ? WHERE instance_id = ?",
                    Jdbc.Binder.values(InstanceStatus.DEAD.name(), instanceId)));
    DeadLetterStore letters = new DeadLetterStore(store.runtime().dataSource());
    letters.store(
        new DeadLetterStore.DeadLetter(
            0,
            instanceId,
            taskId,
            "default",
            "{\"taskId\":\"" + taskId + "\",\"params\":{\"password\":\"hunter2\"}}",
            "[{\"attempt\":1,\"status\":\"FAILED\"},{\"attempt\":2,\"status\":\"FAILED\"}]",
            "boom",
            "java.lang.IllegalStateException: boom\n\tat Worker.run(Worker.java:1)",
            DeadLetterState.OPEN,
            null,
            System.currentTimeMillis(),
            System.currentTimeMillis()));
    return letters.list(new DeadLetterStore.Filter(taskId, null, null, null, null), 1).get(0).id();
  }
}
