package dev.ax.cli.command;

import dev.ax.api.kafka.CommandSender;
import dev.ax.cli.kafka.TaskCommandJson;
import dev.ax.cli.local.ConfigCheck;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code ax submit}: produces one task command to {@code ax.task.commands} exactly as any Kafka
 * client would (key = taskId, value = JSON), either a file's bytes unchanged or a command built
 * from options. Validation is the server's job: a command it refuses lands on the rejected topic
 * with the reason. Runs on the main thread.
 */
@Command(
    name = "submit",
    description = {
      "Send one task command to the commands topic, as any Kafka client would.",
      "Finds the broker through AX_KAFKA_BOOTSTRAP, else through <work-dir>/up.env of a running"
          + " `ax up`.",
      "Examples:",
      "  ax submit --task-id hello --delay 2s --handler noop",
      "  ax submit --task-id nap --delay 1s --handler sleep --param sleepMs=500 --timeout 5s",
      "  ax submit --task-id ping --at 2030-01-01T00:00:00Z --url http://127.0.0.1:8080/ping",
      "  ax submit --file docs/contract/examples/valid/minimal-with-unknown-field.json"
    })
public final class SubmitCommand extends WorkDirCommand {

  @Option(
      names = "--file",
      paramLabel = "<json>",
      description = "Send this file's bytes unchanged ('-' reads stdin); key = its taskId.")
  private Path file;

  @Option(
      names = "--namespace",
      paramLabel = "<name>",
      description =
          "Send to this namespace's topic, ax.<name>.task.commands (default: AX_NAMESPACE, else"
              + " the default namespace's ax.task.commands).")
  private String namespaceName;

  @Option(
      names = "--task-id",
      paramLabel = "<id>",
      description = "The task's id (default: a generated one).")
  private String taskId;

  @Option(
      names = "--delay",
      paramLabel = "<duration>",
      description = "Run after this delay, e.g. 500ms, 5s, 2m (default: at once).")
  private Duration delay;

  @Option(
      names = "--at",
      paramLabel = "<instant>",
      description = "Run at this instant, e.g. 2030-01-31T12:00:00Z.")
  private Instant at;

  @Option(
      names = "--handler",
      paramLabel = "<name>",
      description = "Run this in-process handler, e.g. noop or sleep.")
  private String handler;

  @Option(names = "--url", paramLabel = "<url>", description = "Call this http(s) URL.")
  private URI url;

  @Option(
      names = "--method",
      paramLabel = "<method>",
      description = "HTTP method for --url (default: POST).")
  private String method;

  @Option(
      names = "--timeout",
      paramLabel = "<duration>",
      description = "Timeout of one run (default: the server's AX_DEFAULT_TIMEOUT).")
  private Duration timeout;

  @Option(names = "--group", paramLabel = "<group>", description = "The task's group.")
  private String group;

  @Option(
      names = "--param",
      paramLabel = "<key=value>",
      description = "A parameter for the executor; repeatable.")
  private Map<String, String> params = new LinkedHashMap<>();

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    // The Kafka client logs a warning per failed connection attempt; the outcome is reported once.
    LogLevels.quiet();
    String key;
    byte[] value;
    TaskCommandJson.Peek peek = null;
    if (file != null) {
      rejectTaskOptionsWithFile();
      value = readFile();
      peek = TaskCommandJson.peek(value);
      key = peek.key();
    } else {
      key = taskId != null ? taskId : "task-" + UUID.randomUUID().toString().substring(0, 8);
      value = buildCommand(key);
    }
    Namespace namespace = namespace();
    BrokerLocator.Target target = workDir.locateBroker(ConfigCheck.commonFromEnvironment());
    Topics topics = new Topics(target.topicPrefix());
    if (peek != null && peek.problem() != null) {
      err.println(
          "warning: "
              + file
              + " is "
              + peek.problem()
              + "; sending it anyway without a key (AX will reject it with a reason on "
              + topics.commandsRejected(namespace)
              + ")");
      err.flush();
    }

    try (CommandSender sender = CommandSender.open(target.kafka(), "ax-submit")) {
      RecordMetadata sent = sender.send(topics.commands(namespace), key, value);
      out.printf(
          Locale.ROOT,
          "sent %s to %s partition %d offset %d (Kafka %s, found via %s)%n",
          key == null ? "a command without key" : "task " + key,
          sent.topic(),
          sent.partition(),
          sent.offset(),
          target.bootstrapServers(),
          target.source());
      out.flush();
      return ExitCodes.OK;
    } catch (CommandSender.SendFailedException e) {
      throw new CliFailure(ExitCodes.FAILED, e.getMessage() + " " + target.hint());
    }
  }

  private byte[] buildCommand(String key) {
    if (delay != null && at != null) {
      throw usage("give --delay or --at, not both");
    }
    if ((handler == null) == (url == null)) {
      throw usage("give exactly one of --handler <name> or --url <http url>");
    }
    if (method != null && url == null) {
      throw usage("--method goes with --url");
    }
    TaskCommandJson command = TaskCommandJson.create(key);
    if (at != null) {
      command.onceAt(at);
    } else {
      command.onceAfter(delay == null ? Duration.ZERO : delay);
    }
    if (handler != null) {
      command.inProcess(handler);
    } else {
      command.http(url, method == null ? null : method.toUpperCase(Locale.ROOT));
    }
    if (timeout != null) {
      command.timeout(timeout);
    }
    if (group != null) {
      command.group(group);
    }
    params.forEach(command::param);
    return command.toBytes();
  }

  private void rejectTaskOptionsWithFile() {
    boolean anyTaskOption =
        taskId != null
            || delay != null
            || at != null
            || handler != null
            || url != null
            || method != null
            || timeout != null
            || group != null
            || !params.isEmpty();
    if (anyTaskOption) {
      throw usage("--file sends the file as it is; leave out the options that build a command");
    }
  }

  private byte[] readFile() {
    try {
      return file.toString().equals("-") ? System.in.readAllBytes() : Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /** {@code --namespace}, else {@code AX_NAMESPACE}, else the default namespace. */
  private Namespace namespace() {
    String name =
        namespaceName != null
            ? namespaceName
            : dev.ax.common.config.AxConfig.fromEnvironment(java.util.Map.of())
                .get(dev.ax.cli.CliKeys.NAMESPACE)
                .strip();
    if (name.isEmpty()) {
      return Namespace.DEFAULT;
    }
    return Namespace.parse(name)
        .orElseThrow(
            () ->
                new picocli.CommandLine.ParameterException(
                    spec.commandLine(),
                    "a namespace name must match " + Namespace.NAME.pattern() + ": " + name));
  }
}
