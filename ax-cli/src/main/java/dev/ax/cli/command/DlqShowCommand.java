package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.client.ApiClient;
import dev.ax.api.read.DeadLetterView;
import dev.ax.api.read.SecretMask;
import dev.ax.cli.text.Columns;
import dev.ax.common.contract.AxJson;
import dev.ax.deadletter.DeadLetterStore;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax dlq show <id>}: everything stored for one dead letter, the task's values masked unless
 * revealed. Runs on the main thread.
 */
@Command(name = "show", description = "Everything stored for one dead letter.")
final class DlqShowCommand extends DatabaseSubcommand {

  /** The letter's attempts, as the dead-letter stage stored them (a JSON array). */
  private static final Columns<JsonNode> ATTEMPTS =
      Columns.<JsonNode>builder()
          .right("#", attempt -> attempt.path("attempt").asInt())
          .left("dispatcher", attempt -> attempt.path("dispatcher").asText())
          .left("started", attempt -> Instant.ofEpochMilli(attempt.path("startedAtMs").asLong()))
          .right("ms", attempt -> orIfNull(attempt.path("durationMs"), "", JsonNode::asLong))
          .left(
              "outcome",
              attempt -> orIfNull(attempt.path("outcome"), "(never ended)", JsonNode::asText))
          .left("error", 80, attempt -> orIfNull(attempt.path("error"), "", JsonNode::asText))
          .build();

  @Parameters(paramLabel = "<id>", description = "The dead letter's id (from `ax dlq list`).")
  private long id;

  @Option(
      names = "--reveal",
      description =
          "Show the task's parameter and header values; by default they are masked, since they"
              + " may hold secrets.")
  private boolean reveal;

  @Option(names = "--json", description = "One JSON object (as GET /api/v1/deadletters/<id>).")
  private boolean json;

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.print(
        api,
        "deadletters/" + id + ApiMode.query(ApiMode.params("reveal", reveal ? true : null)),
        out);
  }

  /** Prints everything stored for the letter. */
  @Override
  int run(CliDatabase db, PrintWriter out) throws Exception {
    DeadLetterStore.DeadLetter letter =
        new DeadLetterStore(db.dataSource)
            .find(id)
            .orElseThrow(() -> new CliFailure(ExitCodes.FAILED, "no dead letter " + id));
    if (json) {
      out.println(
          AxJson.MAPPER
              .writerWithDefaultPrettyPrinter()
              .writeValueAsString(DeadLetterView.detail(letter, reveal)));
      return ExitCodes.OK;
    }
    out.println("dead letter " + letter.id() + " (" + letter.state() + ")");
    out.println("  instance    " + letter.instanceId());
    out.println("  task        " + letter.taskId() + "   group " + letter.group());
    out.println("  stored      " + Instant.ofEpochMilli(letter.createdAtMs()));
    out.println("  updated     " + Instant.ofEpochMilli(letter.updatedAtMs()));
    out.println("  reason      " + letter.stateReason());
    out.println("  last error  " + letter.lastError());
    out.println("  attempts:");
    ATTEMPTS.table(AxJson.MAPPER.readTree(letter.attemptsJson())).print(out, "    ");
    out.println("  task as it was:");
    out.println(
        "    "
            + AxJson.MAPPER
                .writerWithDefaultPrettyPrinter()
                .writeValueAsString(
                    SecretMask.masked(AxJson.MAPPER.readTree(letter.taskSnapshot()), reveal))
                .replace("\n", "\n    "));
    out.println("  last stack trace:");
    out.println(
        letter.lastStack() == null
            ? "    (none: the last attempt did not throw)"
            : "    " + letter.lastStack().strip().replace("\n", "\n    "));
    return ExitCodes.OK;
  }

  /** {@code value} of {@code field}, or {@code ifNull} where the field is JSON null. */
  private static Object orIfNull(JsonNode field, String ifNull, Function<JsonNode, ?> value) {
    return field.isNull() ? ifNull : value.apply(field);
  }
}
