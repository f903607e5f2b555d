package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.client.ApiClient;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.store.InstanceStore;
import dev.ax.deadletter.DeadLetterReplayer;
import dev.ax.deadletter.DeadLetterStore;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code ax dlq replay}: runs dead letters again through the dead-letter stage's replayer, at a
 * bounded rate; exits 1 when one of them could not be replayed. Runs on the main thread.
 */
@Command(
    name = "replay",
    description = {
      "Run dead letters again with a fresh retry budget: the ids given, or every OPEN letter"
          + " matching --task/--group. Rate-limited; recorded in the audit log. A letter"
          + " replayed before is not run again. A letter whose task is CANCELLED or DELETED is"
          + " refused (it stays OPEN) unless --force; one whose task is PAUSED is replayed"
          + " into PAUSED and runs when the task is resumed; one whose one-shot task is ENDED"
          + " runs again, the task ACTIVE again."
    })
final class DlqReplayCommand extends DatabaseSubcommand {

  @Parameters(arity = "0..*", paramLabel = "<id>", description = "Dead letter ids.")
  private List<Long> ids = new ArrayList<>();

  @Option(
      names = "--task",
      paramLabel = "<taskId>",
      description = "Every open letter of this task.")
  private String taskId;

  @Option(
      names = "--group",
      paramLabel = "<group>",
      description = "Every open letter of this group.")
  private String group;

  @Option(
      names = "--rate",
      defaultValue = "10",
      paramLabel = "<per-second>",
      description = "At most this many replays a second (default: ${DEFAULT-VALUE}).")
  private int ratePerSecond;

  @Option(
      names = "--force",
      description =
          "Replay even letters whose task is CANCELLED or DELETED (a PAUSED task's still waits"
              + " for its RESUME).")
  private boolean force;

  @Option(
      names = "--reason",
      defaultValue = "replayed by an operator",
      paramLabel = "<text>",
      description = "Why; kept with the letter and in the audit log.")
  private String reason;

  @Override
  void checkOptions() {
    if (ids.isEmpty() && taskId == null && group == null) {
      throw new ParameterException(
          spec.commandLine(), "give dead letter ids, or --task and/or --group to replay a set");
    }
    if (!ids.isEmpty() && (taskId != null || group != null)) {
      throw new ParameterException(spec.commandLine(), "give ids or a filter, not both");
    }
    OptionChecks.requireInRange(spec, "--rate", ratePerSecond, 1, 1000);
  }

  /** Replays the letters given by id through the API (a filter's set is the database's only). */
  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    if (ids.isEmpty()) {
      throw ApiMode.unsupported("ax dlq replay --task/--group");
    }
    int problems = 0;
    long pauseMs = 1000L / ratePerSecond;
    for (long id : ids) {
      ObjectNode body = AxJson.MAPPER.createObjectNode().put("reason", reason);
      if (force) {
        body.put("force", true);
      }
      try {
        JsonNode answer = api.post("deadletters/" + id + "/replay", body);
        out.println("dead letter " + id + ": " + answer.path("message").asText());
        Thread.sleep(pauseMs); // the rate limit, not synchronisation
      } catch (ApiClient.ApiError e) {
        out.println("dead letter " + id + ": " + e.code() + ": " + e.getMessage());
        problems++;
      }
      out.flush();
    }
    out.println((ids.size() - problems) + " replayed, " + problems + " not");
    return problems == 0 ? ExitCodes.OK : ExitCodes.FAILED;
  }

  /** Replays the letters given or matching, at the rate; FAILED when one was not. */
  @Override
  int run(CliDatabase db, PrintWriter out) throws Exception {
    BrokerLocator.Target broker = workDir().locateBroker(db.config);
    DeadLetterStore letters = new DeadLetterStore(db.dataSource);
    List<Long> targets = new ArrayList<>(ids);
    if (targets.isEmpty()) {
      letters
          .list(
              new DeadLetterStore.Filter(taskId, group, null, null, DeadLetterState.OPEN), 100_000)
          .forEach(letter -> targets.add(letter.id()));
    }
    int replayed = 0;
    int problems = 0;
    long pauseMs = 1000L / ratePerSecond;
    try (KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(broker.kafka(), processName())) {
      DeadLetterActions actions =
          new DeadLetterActions(
              letters,
              new DeadLetterReplayer(
                  letters,
                  new InstanceStore(db.dataSource),
                  producer,
                  new Topics(broker.topicPrefix())),
              new OperatorLog(db.dataSource),
              db.clock::millis);
      String operator = Operator.name();
      for (long id : targets) {
        DeadLetterStore.ReplayResult result = actions.replay(id, operator, reason, force);
        out.println("dead letter " + id + ": " + actions.describe(result, id, "--force"));
        out.flush();
        if (result.replayed()) {
          replayed++;
          Thread.sleep(pauseMs); // the rate limit, not synchronisation
        } else {
          problems++;
        }
      }
    }
    out.println(replayed + " replayed, " + problems + " not");
    return problems == 0 ? ExitCodes.OK : ExitCodes.FAILED;
  }
}
