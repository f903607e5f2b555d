package dev.ax.cli.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.ax.common.testing.ExternalTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The secure Kubernetes overlay ({@code deploy/k8s/secure}, issue 40) at schema level: it builds on
 * {@code ../base} (which {@code deploy/k8s} builds too), its patches name objects of the base, the
 * ConfigMap patch sets SASL_SSL with a trust store and {@code VERIFY_IDENTITY} against the same CA,
 * every stage's Deployment gets its own Kafka user's Secret {@code ax-kafka-<stage>} as a file and
 * its database password as a file with nothing from a Secret in its environment, the {@code
 * ax-acls} Job runs {@code ax acl --apply} as admin, and the Secrets hold placeholders only. Where
 * kubectl is installed, {@code kubectl kustomize deploy/k8s/secure} builds, and the built objects
 * hold the same: every Secret a pod mounts or reads is defined, every AX_ name in an environment is
 * a documented key (or its {@code _FILE}).
 */
class SecureKubernetesOverlayTest {

  private static final Path ROOT = Path.of("..");
  private static final Path K8S = ROOT.resolve(Path.of("deploy", "k8s"));
  private static final Path SECURE = K8S.resolve("secure");
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final Set<String> STAGES =
      Set.of("ingest", "ticker", "dispatcher", "retry", "deadletter", "resolver");
  private static final Pattern DOCUMENTED_KEY = Pattern.compile("^\\| `(AX_[A-Z0-9_]+)` \\|");

  @Test
  void theOverlayBuildsOnTheBaseWithItsPatchesAndTheAclJob() throws Exception {
    JsonNode kustomization = YAML.readTree(SECURE.resolve("kustomization.yaml").toFile());
    assertThat(texts(kustomization.path("resources")))
        .containsExactlyInAnyOrder("../base", "secrets.yaml", "acl-job.yaml");
    List<String> patches = new ArrayList<>();
    kustomization.path("patches").forEach(p -> patches.add(p.path("path").asText()));
    assertThat(patches)
        .containsExactlyInAnyOrder("config-patch.yaml", "stages-patch.yaml", "migrate-patch.yaml");
    assertThat(texts(YAML.readTree(K8S.resolve("kustomization.yaml").toFile()).path("resources")))
        .as("deploy/k8s builds the base")
        .containsExactly("base");
    // Each patch names an object of the base, by kind and name.
    Set<String> base = new TreeSet<>();
    for (Path file : yamlFiles(K8S.resolve("base"))) {
      documents(file).forEach(d -> base.add(id(d)));
    }
    for (String patch : patches) {
      for (JsonNode doc : documents(SECURE.resolve(patch))) {
        assertThat(base).as("%s patches an object of the base", patch).contains(id(doc));
      }
    }
  }

  @Test
  void theConfigMapPatchSetsSaslSslAndVerifyIdentityWithOneTrustStore() throws Exception {
    JsonNode data = documents(SECURE.resolve("config-patch.yaml")).get(0).path("data");
    assertThat(data.path("AX_KAFKA_SECURITY_PROTOCOL").asText()).isEqualTo("SASL_SSL");
    assertThat(data.path("AX_KAFKA_SASL_MECHANISM").asText()).isIn("SCRAM-SHA-512", "PLAIN");
    String truststore = data.path("AX_KAFKA_SSL_TRUSTSTORE_LOCATION").asText();
    assertThat(truststore).startsWith("/etc/ax/tls/");
    assertThat(data.path("AX_JDBC_SSL_MODE").asText()).isEqualTo("VERIFY_IDENTITY");
    assertThat(data.path("AX_JDBC_URL").asText())
        .contains("trustCertificateKeyStoreUrl=file:" + truststore)
        .contains("fallbackToSystemTrustStore=false")
        .doesNotContainIgnoringCase("password");
    data.fieldNames()
        .forEachRemaining(
            k -> assertThat(k).as("no secret in the ConfigMap").doesNotContain("PASSWORD", "JAAS"));
  }

  @Test
  void everyStageConnectsAsItsOwnUserWithEveryPasswordAFile() throws Exception {
    Set<String> patched = new TreeSet<>();
    for (JsonNode deployment : documents(SECURE.resolve("stages-patch.yaml"))) {
      String stage = deployment.path("metadata").path("name").asText().replaceFirst("^ax-", "");
      patched.add(stage);
      assertPodReadsSecretsFromFiles(stage, deployment, "ax-kafka-" + stage);
    }
    assertThat(patched).isEqualTo(STAGES);
    JsonNode job = documents(SECURE.resolve("acl-job.yaml")).get(0);
    assertThat(texts(container(job).path("command")))
        .endsWith("dev.ax.cli.AxCli", "acl", "--apply");
    assertPodReadsSecretsFromFiles("acls", job, "ax-kafka-admin");
    JsonNode migrate = documents(SECURE.resolve("migrate-patch.yaml")).get(0);
    assertThat(env(container(migrate))).containsKey("AX_JDBC_PASSWORD_FILE");
  }

  /** The pod's JAAS line from {@code kafkaSecret}, every password a mounted file. */
  private static void assertPodReadsSecretsFromFiles(
      String name, JsonNode workload, String kafkaSecret) {
    JsonNode pod = workload.path("spec").path("template").path("spec");
    JsonNode container = container(workload);
    assertThat(container.path("envFrom").toString())
        .as("%s: envFrom the ConfigMap alone", name)
        .doesNotContain("secretRef");
    Map<String, String> mounts = new TreeMap<>();
    container
        .path("volumeMounts")
        .forEach(m -> mounts.put(m.path("mountPath").asText(), m.path("name").asText()));
    Map<String, String> volumeSecrets = new TreeMap<>();
    pod.path("volumes")
        .forEach(
            v ->
                volumeSecrets.put(
                    v.path("name").asText(), v.path("secret").path("secretName").asText()));
    Map<String, String> env = env(container);
    String jaas = env.get("AX_KAFKA_SASL_JAAS_CONFIG_FILE");
    assertThat(jaas).as("%s: its JAAS line from a file", name).isNotNull();
    assertThat(volumeSecrets.get(mounts.get(Path.of(jaas).getParent().toString())))
        .as("%s: the JAAS file's Secret", name)
        .isEqualTo(kafkaSecret);
    env.forEach(
        (key, value) -> {
          if (key.endsWith("_FILE")) {
            assertThat(mounts)
                .as("%s: %s is mounted", name, key)
                .containsKey(Path.of(value).getParent().toString());
          } else {
            assertThat(key)
                .as("%s: no secret as a value", name)
                .doesNotContain("PASSWORD", "JAAS", "WEBHOOK");
          }
        });
  }

  @Test
  void theSecretsArePlaceholdersForEveryUser() throws Exception {
    Set<String> names = new TreeSet<>();
    for (JsonNode secret : documents(SECURE.resolve("secrets.yaml"))) {
      assertThat(secret.path("kind").asText()).isEqualTo("Secret");
      names.add(secret.path("metadata").path("name").asText());
      secret
          .path("stringData")
          .forEach(v -> assertThat(v.asText()).contains("password=\"REPLACE-ME\""));
      secret.path("data").forEach(v -> assertThat(v.asText()).isEmpty());
    }
    Set<String> expected = new TreeSet<>(Set.of("ax-kafka-admin", "ax-tls-ca"));
    STAGES.forEach(s -> expected.add("ax-kafka-" + s));
    assertThat(names).isEqualTo(expected);
  }

  @Test
  void kubectlBuildsTheOverlay() throws Exception {
    Optional<Path> kubectl = ExternalTool.onPath("kubectl");
    assumeTrue(
        kubectl.isPresent(), "kubectl not found on PATH: kustomize build of secure/ not checked");
    Process process =
        new ProcessBuilder(kubectl.get().toString(), "kustomize", SECURE.toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    byte[] out = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("kubectl kustomize %s", SECURE).isZero();
    List<JsonNode> built = new ArrayList<>();
    try (JsonParser parser = YAML.getFactory().createParser(out)) {
      YAML.readValues(parser, JsonNode.class).forEachRemaining(built::add);
    }
    Set<String> secrets = new TreeSet<>();
    built.stream()
        .filter(d -> d.path("kind").asText().equals("Secret"))
        .forEach(d -> secrets.add(d.path("metadata").path("name").asText()));
    Set<String> documented = documentedKeys();
    int workloads = 0;
    for (JsonNode doc : built) {
      String kind = doc.path("kind").asText();
      if (doc.path("metadata").path("namespace").isMissingNode() && !kind.equals("Namespace")) {
        throw new AssertionError("no namespace: " + id(doc));
      }
      boolean alertmanager =
          doc.path("metadata")
              .path("labels")
              .path("app.kubernetes.io/component")
              .asText()
              .equals("alertmanager");
      // Alertmanager runs its own pinned image with no AX settings (KubernetesManifestsTest).
      if ((!kind.equals("Deployment") && !kind.equals("Job")) || alertmanager) {
        if (kind.equals("ConfigMap") && !alertmanager) {
          assertThat(doc.path("data").path("AX_KAFKA_SECURITY_PROTOCOL").asText())
              .isEqualTo("SASL_SSL");
          assertThat(doc.path("data").path("AX_JDBC_SSL_MODE").asText())
              .isEqualTo("VERIFY_IDENTITY");
        }
        continue;
      }
      workloads++;
      JsonNode container = container(doc);
      assertThat(container.path("envFrom").toString()).as(id(doc)).doesNotContain("secretRef");
      assertThat(container.path("image").asText()).as(id(doc)).isEqualTo("ax:dev");
      for (String key : env(container).keySet()) {
        String base = key.endsWith("_FILE") ? key.substring(0, key.length() - 5) : key;
        assertThat(documented).as("%s: %s documented", id(doc), key).contains(base);
      }
      Matcher refs =
          Pattern.compile("\"(?:secretName|name)\":\"(ax-[a-z-]+)\"")
              .matcher(doc.path("spec").toString());
      while (refs.find()) {
        String ref = refs.group(1);
        if (ref.startsWith("ax-kafka-") || ref.startsWith("ax-tls") || ref.startsWith("ax-db")) {
          assertThat(secrets).as("%s: Secret %s defined", id(doc), ref).contains(ref);
        }
      }
    }
    assertThat(workloads).as("6 stages, ax-migrate, ax-acls").isEqualTo(8);
  }

  // ---- helpers

  private static String id(JsonNode doc) {
    return doc.path("kind").asText() + "/" + doc.path("metadata").path("name").asText();
  }

  private static JsonNode container(JsonNode workload) {
    JsonNode containers = workload.path("spec").path("template").path("spec").path("containers");
    assertThat(containers.size()).as("%s: one container", id(workload)).isEqualTo(1);
    return containers.get(0);
  }

  private static Map<String, String> env(JsonNode container) {
    Map<String, String> env = new TreeMap<>();
    container
        .path("env")
        .forEach(e -> env.put(e.path("name").asText(), e.path("value").asText(null)));
    return env;
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(n -> texts.add(n.asText()));
    return texts;
  }

  private static List<JsonNode> documents(Path file) throws Exception {
    List<JsonNode> docs = new ArrayList<>();
    try (JsonParser parser = YAML.getFactory().createParser(file.toFile())) {
      YAML.readValues(parser, JsonNode.class)
          .forEachRemaining(
              d -> {
                if (d != null && !d.isNull() && !d.isMissingNode()) {
                  docs.add(d);
                }
              });
    }
    return docs;
  }

  private static List<Path> yamlFiles(Path dir) throws Exception {
    try (var files = Files.list(dir)) {
      return files
          .filter(f -> f.toString().endsWith(".yaml"))
          .filter(f -> !f.getFileName().toString().equals("kustomization.yaml"))
          .sorted()
          .toList();
    }
  }

  private static Set<String> documentedKeys() throws Exception {
    Set<String> keys = new TreeSet<>();
    for (String line :
        Files.readAllLines(
            ROOT.resolve(Path.of("docs", "CONFIGURATION.md")), StandardCharsets.UTF_8)) {
      Matcher m = DOCUMENTED_KEY.matcher(line);
      if (m.find()) {
        keys.add(m.group(1));
      }
    }
    assertThat(keys).isNotEmpty();
    return keys;
  }
}
