package dev.ax.cli.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.ax.common.testing.ExternalTool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Alertmanager that ships, in compose ({@code compose/alertmanager/alertmanager.yml}) and in
 * Kubernetes ({@code deploy/k8s/base/alertmanager.yaml}'s ConfigMap): amtool (Debian's {@code
 * prometheus-alertmanager}; {@code .ci/run} installs it; skipped with one line without it) accepts
 * both and routes each severity the rules use ({@code rules.yml}) to a receiver of its own; every
 * receiver posts to AX's relay ({@code /alerts/<receiver>} on the dead-letter stage's relay port,
 * which the stage binds there); the two configurations route alike; Prometheus sends its alerts to
 * the compose Alertmanager; the image is pinned by version, the same in both.
 */
class AlertmanagerConfigTest {

  private static final Path ROOT = Path.of("..");
  private static final Path COMPOSE = ROOT.resolve("compose");
  private static final Path COMPOSE_CONFIG =
      COMPOSE.resolve(Path.of("alertmanager", "alertmanager.yml"));
  private static final Path K8S = ROOT.resolve(Path.of("deploy", "k8s", "base"));
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final Pattern PINNED = Pattern.compile("prom/alertmanager:v\\d+\\.\\d+\\.\\d+");

  @Test
  void amtoolAcceptsBothConfigsAndRoutesEachSeverityToItsOwnReceiver(@TempDir Path dir)
      throws Exception {
    Optional<Path> amtool = ExternalTool.onPath("amtool");
    assumeTrue(
        amtool.isPresent(),
        "amtool not found on PATH (Debian package prometheus-alertmanager): Alertmanager configs"
            + " not checked by amtool");
    Path k8sConfig = dir.resolve("k8s-alertmanager.yml");
    Files.writeString(k8sConfig, k8sConfig());
    for (Path config : List.of(COMPOSE_CONFIG.toAbsolutePath(), k8sConfig)) {
      ExternalTool.Result check =
          ExternalTool.run(dir, amtool.get(), "check-config", config.toString());
      assertThat(check.exitCode())
          .as("amtool check-config %s:%n%s", config, check.output())
          .isZero();
      Set<String> receivers = new TreeSet<>();
      for (String severity : severities()) {
        ExternalTool.Result route =
            ExternalTool.run(
                dir,
                amtool.get(),
                "config",
                "routes",
                "test",
                "--config.file=" + config,
                "alertname=AnyRule",
                "severity=" + severity);
        assertThat(route.exitCode()).as(route.output()).isZero();
        String receiver = lastLine(route.output());
        assertThat(receiver)
            .as("%s: receiver of severity %s", config, severity)
            .isEqualTo(severity);
        receivers.add(receiver);
      }
      assertThat(receivers).as("one receiver per severity").hasSameSizeAs(severities());
    }
  }

  @Test
  void everyReceiverPostsToTheRelayWhereTheDeadLetterStageServesIt() throws Exception {
    JsonNode compose = YAML.readTree(COMPOSE_CONFIG.toFile());
    assertWebhooks(compose, "http://deadletter:9095/alerts/");
    String composeFile = Files.readString(COMPOSE.resolve("docker-compose.yml"));
    assertThat(composeFile).contains("AX_ALERT_RELAY_BIND: 0.0.0.0:9095");

    JsonNode k8s = YAML.readTree(k8sConfig());
    assertWebhooks(k8s, "http://ax-alert-relay:9095/alerts/");
    String deadletter = Files.readString(K8S.resolve("deadletter.yaml"));
    assertThat(deadletter)
        .contains("name: ax-alert-relay", "value: 0.0.0.0:9095", "containerPort: 9095");

    // The same routes, receivers and timings; only the relay's address differs.
    assertThat(k8s.path("route")).isEqualTo(compose.path("route"));
    assertThat(k8s.path("inhibit_rules")).isEqualTo(compose.path("inhibit_rules"));
    assertThat(k8s.toString().replace("ax-alert-relay:", "deadletter:"))
        .isEqualTo(compose.toString());
  }

  @Test
  void prometheusSendsItsAlertsToThePinnedComposeAlertmanager() throws Exception {
    JsonNode prometheus =
        YAML.readTree(COMPOSE.resolve(Path.of("prometheus", "prometheus.yml")).toFile());
    List<String> targets = new ArrayList<>();
    for (JsonNode alertmanager : prometheus.path("alerting").path("alertmanagers")) {
      for (JsonNode config : alertmanager.path("static_configs")) {
        config.path("targets").forEach(t -> targets.add(t.asText()));
      }
    }
    assertThat(targets).containsExactly("alertmanager:9093");

    String composeFile = Files.readString(COMPOSE.resolve("docker-compose.yml"));
    Matcher image =
        Pattern.compile("(?m)^\\s+image: (prom/alertmanager\\S*)$").matcher(composeFile);
    assertThat(image.find()).as("an alertmanager service in docker-compose.yml").isTrue();
    assertThat(image.group(1)).matches(PINNED);
    assertThat(composeFile)
        .contains("./alertmanager/alertmanager.yml:/etc/alertmanager/alertmanager.yml:ro");

    String k8s = Files.readString(K8S.resolve("alertmanager.yaml"));
    assertThat(k8s).contains("image: " + image.group(1));
    assertThat(Files.readString(K8S.resolve("kustomization.yaml"))).contains("- alertmanager.yaml");
  }

  @Test
  void theKubernetesAlertmanagerIsLockedDownWithProbesAndResources() throws Exception {
    JsonNode deployment = null;
    for (JsonNode doc : documents(K8S.resolve("alertmanager.yaml"))) {
      if (doc.path("kind").asText().equals("Deployment")) {
        deployment = doc;
      }
    }
    assertThat(deployment).as("an Alertmanager Deployment").isNotNull();
    JsonNode pod = deployment.path("spec").path("template").path("spec");
    JsonNode container = pod.path("containers").get(0);
    assertThat(pod.path("automountServiceAccountToken").asBoolean(true)).isFalse();
    assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(pod.path("securityContext").path("runAsUser").asInt()).isPositive();
    JsonNode security = container.path("securityContext");
    assertThat(security.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(security.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(security.path("capabilities").path("drop").toString()).contains("ALL");
    assertThat(container.path("livenessProbe").path("httpGet").path("path").asText())
        .isEqualTo("/-/healthy");
    assertThat(container.path("readinessProbe").path("httpGet").path("path").asText())
        .isEqualTo("/-/ready");
    for (String kind : List.of("requests", "limits")) {
      assertThat(container.path("resources").path(kind).path("memory").asText()).isNotBlank();
      assertThat(container.path("resources").path(kind).path("cpu").asText()).isNotBlank();
    }
    assertThat(container.path("args").toString())
        .contains("--config.file=/etc/alertmanager/alertmanager.yml");
  }

  private static void assertWebhooks(JsonNode config, String relay) throws IOException {
    List<String> receivers = new ArrayList<>();
    for (JsonNode receiver : config.path("receivers")) {
      String name = receiver.path("name").asText();
      receivers.add(name);
      assertThat(receiver.path("webhook_configs")).as("%s: one webhook", name).hasSize(1);
      JsonNode webhook = receiver.path("webhook_configs").get(0);
      assertThat(webhook.path("url").asText()).as("%s: url", name).isEqualTo(relay + name);
      assertThat(webhook.path("max_alerts").asInt()).as("%s: max_alerts", name).isPositive();
    }
    assertThat(receivers).containsExactlyInAnyOrderElementsOf(severities());
  }

  /** The severities the shipped rules use. */
  private static Set<String> severities() throws IOException {
    Set<String> severities = new TreeSet<>();
    Matcher matcher =
        Pattern.compile("severity: (\\w+)")
            .matcher(Files.readString(COMPOSE.resolve(Path.of("prometheus", "rules.yml"))));
    while (matcher.find()) {
      severities.add(matcher.group(1));
    }
    assertThat(severities).as("severities in rules.yml").isNotEmpty();
    return severities;
  }

  /** The Kubernetes ConfigMap's alertmanager.yml. */
  private static String k8sConfig() throws IOException {
    for (JsonNode doc : documents(K8S.resolve("alertmanager.yaml"))) {
      if (doc.path("kind").asText().equals("ConfigMap")) {
        return doc.path("data").path("alertmanager.yml").asText();
      }
    }
    throw new AssertionError("no ConfigMap in alertmanager.yaml");
  }

  private static List<JsonNode> documents(Path file) throws IOException {
    List<JsonNode> documents = new ArrayList<>();
    try (JsonParser parser = YAML.getFactory().createParser(file.toFile())) {
      YAML.readValues(parser, JsonNode.class).forEachRemaining(documents::add);
    }
    return documents;
  }

  private static String lastLine(String output) {
    List<String> lines =
        output
            .lines()
            .map(String::strip)
            .filter(l -> !l.isEmpty() && !l.startsWith("Warning"))
            .toList();
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
  }
}
