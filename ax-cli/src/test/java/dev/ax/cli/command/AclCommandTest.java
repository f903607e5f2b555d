package dev.ax.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.cli.AxCli;
import dev.ax.common.kafka.AclCommands;
import dev.ax.common.kafka.AclTemplate;
import dev.ax.common.kafka.AclTemplate.Stage;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ax acl} in process: every stage's grants as {@code kafka-acls.sh} lines, one stage's, the
 * namespaces' on top, another principal prefix; usage errors for what it does not know. The topic
 * prefix is the environment's (none in the build), so the expected lines come from {@link
 * AclTemplate} with the default topics.
 */
class AclCommandTest {

  private static final String BOOTSTRAP = "kafka:9092";

  private record Run(int exitCode, List<String> out, String err) {}

  private static Run ax(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = AxCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new Run(code, out.toString().lines().toList(), err.toString());
  }

  private static List<String> expected(Stage stage, String prefix, List<Namespace> namespaces) {
    List<String> lines = new ArrayList<>();
    lines.add("# " + stage.id() + " as " + prefix + stage.id());
    lines.addAll(
        AclCommands.commandLines(
            BOOTSTRAP,
            new AclTemplate(new Topics("")).stage(stage, prefix + stage.id(), namespaces)));
    return lines;
  }

  @Test
  void printsEveryStagesGrantsAsItsOwnUser() {
    Run run = ax("acl", "--bootstrap", BOOTSTRAP);
    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> expected =
        Stream.of(Stage.values())
            .flatMap(s -> expected(s, "User:ax-", List.of()).stream())
            .toList();
    assertThat(run.out()).containsExactlyElementsOf(expected);
    assertThat(run.out())
        .contains(
            "kafka-acls.sh --bootstrap-server kafka:9092 --add --allow-principal User:ax-ingest"
                + " --operation Read --topic ax.task.commands",
            "kafka-acls.sh --bootstrap-server kafka:9092 --add --allow-principal User:ax-ingest"
                + " --operation Read --group ax-ingest",
            "kafka-acls.sh --bootstrap-server kafka:9092 --add --allow-principal User:ax-resolver"
                + " --operation Write --transactional-id ax-resolver- --resource-pattern-type"
                + " prefixed");
    // Nothing a stage gets on the cluster, nothing for everyone.
    assertThat(run.out()).noneMatch(l -> l.contains("--cluster") || l.contains("User:*"));
  }

  @Test
  void oneStageWithTheNamespacesTopicsAndAnotherPrefix() {
    Run run =
        ax(
            "acl",
            "--stage",
            "ingest",
            "--namespace",
            "team-a",
            "--namespace",
            "team-b",
            "--principal-prefix",
            "User:prod-",
            "--bootstrap",
            BOOTSTRAP);
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .containsExactlyElementsOf(
            expected(
                Stage.INGEST,
                "User:prod-",
                List.of(new Namespace("team-a"), new Namespace("team-b"))));
    assertThat(run.out())
        .contains(
            "kafka-acls.sh --bootstrap-server kafka:9092 --add --allow-principal User:prod-ingest"
                + " --operation Read --topic ax.team-a.task.commands",
            "kafka-acls.sh --bootstrap-server kafka:9092 --add --allow-principal User:prod-ingest"
                + " --operation Write --topic ax.team-b.task.commands.rejected")
        .allMatch(l -> l.startsWith("#") || l.contains("User:prod-ingest "));
  }

  @Test
  void retryAndDeadletterGetNothingOnANamespace() {
    Run plain = ax("acl", "--stage", "retry", "--bootstrap", BOOTSTRAP);
    Run withNamespace =
        ax("acl", "--stage", "retry", "--namespace", "team-a", "--bootstrap", BOOTSTRAP);
    assertThat(withNamespace.out()).isEqualTo(plain.out()).noneMatch(l -> l.contains("team-a"));
  }

  @Test
  void withoutBootstrapTheLinesNameAPlaceholderOrTheConfiguredBroker() {
    Run run = ax("acl", "--stage", "deadletter");
    assertThat(run.exitCode()).as(run.err()).isZero();
    String env = System.getenv("AX_KAFKA_BOOTSTRAP");
    String servers = env == null || env.isBlank() ? "<broker>" : env;
    assertThat(run.out())
        .filteredOn(l -> !l.startsWith("#"))
        .isNotEmpty()
        .allMatch(l -> l.startsWith("kafka-acls.sh --bootstrap-server " + servers + " --add"));
  }

  @Test
  void unknownStagesNamespacesAndPrefixesAreUsageErrors() {
    Run stage = ax("acl", "--stage", "ticktock");
    assertThat(stage.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(stage.err()).contains("--stage must be one of ingest, ticker,").contains("ticktock");
    Run namespace = ax("acl", "--namespace", "Team_A");
    assertThat(namespace.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(namespace.err()).contains("a namespace name must match").contains("Team_A");
    Run prefix = ax("acl", "--principal-prefix", "ax-");
    assertThat(prefix.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(prefix.err()).contains("--principal-prefix");
  }
}
