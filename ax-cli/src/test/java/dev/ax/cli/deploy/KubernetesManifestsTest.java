package dev.ax.cli.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.ax.common.testing.ExternalTool;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes manifests ({@code deploy/k8s/base}, which {@code deploy/k8s} builds; the secure
 * overlay has SecureKubernetesOverlayTest) at schema level, as no cluster is at hand: every file
 * parses, every object has an apiVersion that matches its kind (from a known set), a name, and the
 * namespace when it is namespaced; {@code kustomization.yaml} lists exactly the manifest files.
 * Every Deployment's selector matches its pod labels, has replicas (the ticker exactly 2, the
 * dispatcher at least 2), and every container an image, a command naming a main class of the source
 * tree, liveness and readiness probes on the metrics port's {@code /health/live} and {@code
 * /health/ready}, cpu and memory requests and limits (a heap that fits), and the security settings
 * of the restricted Pod Security profile. Every stage main class has its Deployment, the Job runs
 * {@code ax migrate} as a user other than the stages', every environment name an object passes that
 * starts with AX_ is a key of docs/CONFIGURATION.md, every ConfigMap or Secret a pod refers to is
 * defined here, the PodDisruptionBudgets select the dispatchers (and ticker) and leave one to
 * evict, and the Secrets hold only placeholders. Where kubectl is installed, {@code kubectl
 * kustomize} must build the same objects (skipped otherwise).
 */
class KubernetesManifestsTest {

  private static final Path ROOT = Path.of("..");
  private static final Path K8S = ROOT.resolve(Path.of("deploy", "k8s", "base"));
  private static final Path KUSTOMIZATION = K8S.resolve("kustomization.yaml");

  /** The kinds these manifests may use, with the apiVersion of each. */
  private static final Map<String, String> API_VERSIONS =
      Map.of(
          "Namespace", "v1",
          "ConfigMap", "v1",
          "Secret", "v1",
          "Service", "v1",
          "Deployment", "apps/v1",
          "Job", "batch/v1",
          "PodDisruptionBudget", "policy/v1",
          "NetworkPolicy", "networking.k8s.io/v1");

  private static final Set<String> CLUSTER_SCOPED = Set.of("Namespace");

  private static final int METRICS_PORT = 9400;

  /** The dead-letter stage's alert relay (AX_ALERT_RELAY_BIND), which Alertmanager posts to. */
  private static final int RELAY_PORT = 9095;

  /** Alertmanager's API, where Prometheus sends the firing rules. */
  private static final int ALERTMANAGER_PORT = 9093;

  /** The component label of Alertmanager's objects. */
  private static final String ALERTMANAGER = "alertmanager";

  private static final Pattern DOCUMENTED_KEY = Pattern.compile("^\\| `(AX_[A-Z0-9_]+)` \\|");

  private static final Pattern MAIN_METHOD =
      Pattern.compile("public\\s+static\\s+void\\s+main\\s*\\(");

  private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");

  private static final Pattern XMX = Pattern.compile("^-Xmx(\\d+)([kmgKMG])$");

  private static final YAMLMapper YAML = new YAMLMapper();

  /** One object of a manifest file. */
  private record Manifest(Path file, JsonNode node) {
    String kind() {
      return node.path("kind").asText();
    }

    String name() {
      return node.path("metadata").path("name").asText();
    }

    @Override
    public String toString() {
      return kind() + " " + name() + " (" + K8S.relativize(file) + ")";
    }
  }

  @Test
  void everyFileParsesAndEveryObjectHasAKnownKindANameAndTheNamespace() throws Exception {
    List<Path> files = manifestFiles();
    assertThat(files).as("manifest files under %s", K8S).hasSizeGreaterThanOrEqualTo(8);
    List<Manifest> manifests = new ArrayList<>();
    for (Path file : files) {
      List<JsonNode> documents = documents(file);
      assertThat(documents).as("objects in %s", file).isNotEmpty();
      for (JsonNode document : documents) {
        assertThat(document.isObject()).as("a document of %s is an object", file).isTrue();
        manifests.add(new Manifest(file, document));
      }
    }

    List<Manifest> namespaces = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (Manifest manifest : manifests) {
      JsonNode node = manifest.node();
      String kind = manifest.kind();
      assertThat(node.path("apiVersion").asText()).as("%s: apiVersion", manifest).isNotBlank();
      assertThat(kind).as("%s: kind", manifest).isIn(API_VERSIONS.keySet());
      assertThat(node.path("apiVersion").asText())
          .as("%s: apiVersion of a %s", manifest, kind)
          .isEqualTo(API_VERSIONS.get(kind));
      assertThat(manifest.name()).as("%s: metadata.name", manifest).isNotBlank();
      assertThat(manifest.name())
          .as("%s: metadata.name is a DNS label", manifest)
          .matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
      assertThat(seen.add(kind + "/" + manifest.name())).as("%s: defined once", manifest).isTrue();
      if (kind.equals("Namespace")) {
        namespaces.add(manifest);
      }
    }
    assertThat(namespaces).as("one Namespace").hasSize(1);
    String namespace = namespaces.get(0).name();
    for (Manifest manifest : manifests) {
      JsonNode metadataNamespace = manifest.node().path("metadata").path("namespace");
      if (CLUSTER_SCOPED.contains(manifest.kind())) {
        assertThat(metadataNamespace.isMissingNode())
            .as("%s: cluster-scoped, no namespace", manifest)
            .isTrue();
      } else {
        assertThat(metadataNamespace.asText())
            .as("%s: metadata.namespace", manifest)
            .isEqualTo(namespace);
      }
    }
  }

  @Test
  void theKustomizationListsEveryManifestAndOnlyExistingOnes() throws Exception {
    JsonNode kustomization = YAML.readTree(KUSTOMIZATION.toFile());
    assertThat(kustomization.path("apiVersion").asText())
        .isEqualTo("kustomize.config.k8s.io/v1beta1");
    assertThat(kustomization.path("kind").asText()).isEqualTo("Kustomization");

    List<String> resources = new ArrayList<>();
    kustomization.path("resources").forEach(resource -> resources.add(resource.asText()));
    for (String resource : resources) {
      assertThat(K8S.resolve(resource)).as("resource %s exists", resource).isRegularFile();
    }
    assertThat(resources).as("resources listed once each").doesNotHaveDuplicates();
    Set<String> files =
        manifestFiles().stream()
            .map(file -> K8S.relativize(file).toString().replace(File.separatorChar, '/'))
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(new TreeSet<>(resources))
        .as("kustomization.yaml's resources against the manifest files")
        .isEqualTo(files);

    assertThat(kustomization.path("namespace").asText())
        .as("the kustomization's namespace is the Namespace's")
        .isEqualTo(only(all(), "Namespace").name());

    // One image for every container, which `images:` (kustomize edit set image) renames.
    Set<String> images = new TreeSet<>();
    for (Manifest workload : workloads()) {
      for (JsonNode container : containers(workload)) {
        images.add(container.path("image").asText());
      }
    }
    assertThat(images).as("the image of every container").hasSize(1);
    String image = images.iterator().next();
    String imageName = image.contains(":") ? image.substring(0, image.indexOf(':')) : image;
    List<String> renamed = new ArrayList<>();
    kustomization.path("images").forEach(entry -> renamed.add(entry.path("name").asText()));
    assertThat(renamed).as("kustomization images: name the containers' image").contains(imageName);
  }

  @Test
  void everyDeploymentIsCompleteWithReplicasProbesAndResources() throws Exception {
    Map<String, Path> mainClasses = mainClassesInSource();
    List<Manifest> deployments = stageDeployments();
    assertThat(deployments).as("Deployments").hasSizeGreaterThanOrEqualTo(6);
    for (Manifest deployment : deployments) {
      JsonNode spec = deployment.node().path("spec");
      JsonNode matchLabels = spec.path("selector").path("matchLabels");
      assertThat(matchLabels.size()).as("%s: selector.matchLabels", deployment).isPositive();
      assertThat(selects(matchLabels, spec.path("template").path("metadata").path("labels")))
          .as("%s: selector matches the pod template's labels", deployment)
          .isTrue();
      assertThat(spec.path("replicas").isIntegralNumber())
          .as("%s: replicas is a number", deployment)
          .isTrue();
      assertThat(spec.path("replicas").asInt()).as("%s: replicas", deployment).isPositive();
      assertThat(podSpec(deployment).path("restartPolicy").asText("Always"))
          .as("%s: restartPolicy", deployment)
          .isEqualTo("Always");

      List<JsonNode> containers = containers(deployment);
      assertThat(containers).as("%s: containers", deployment).isNotEmpty();
      for (JsonNode container : containers) {
        String name = deployment + " container " + container.path("name").asText();
        assertThat(container.path("name").asText()).as("%s: name", name).isNotBlank();
        assertThat(container.path("image").asText()).as("%s: image", name).isNotBlank();
        List<String> mains = namedMainClasses(container, mainClasses);
        assertThat(mains)
            .as("%s: the command names a main class of the source tree", name)
            .hasSize(1);
        assertThat(stageMainClasses()).as("%s: a stage's main class", name).contains(mains.get(0));

        assertProbe(name, container, "livenessProbe", "/health/live");
        assertProbe(name, container, "readinessProbe", "/health/ready");
        assertResources(name, container);
      }
    }

    Manifest ticker = deploymentRunning("dev.ax.ticker.TickerMain");
    assertThat(ticker.node().path("spec").path("replicas").asInt())
        .as("%s: two tickers, one leading and one standing by", ticker)
        .isEqualTo(2);
    Manifest dispatcher = deploymentRunning("dev.ax.dispatcher.DispatcherMain");
    assertThat(dispatcher.node().path("spec").path("replicas").asInt())
        .as("%s: replicas", dispatcher)
        .isGreaterThanOrEqualTo(2);
  }

  @Test
  void everyStageMainClassHasADeployment() throws Exception {
    Set<String> stageMains = stageMainClasses();
    // The six stages at least: a scan that finds nothing must not pass.
    assertThat(stageMains)
        .as("stage main classes under ../ax-*/src/main/java")
        .contains(
            "dev.ax.ingest.IngestMain",
            "dev.ax.ticker.TickerMain",
            "dev.ax.dispatcher.DispatcherMain",
            "dev.ax.retry.RetryMain",
            "dev.ax.deadletter.DeadLetterMain",
            "dev.ax.resolver.ResolverMain");
    Map<String, Path> mainClasses = mainClassesInSource();
    Map<String, List<String>> deploymentsByMain = new HashMap<>();
    for (Manifest deployment : byKind(all(), "Deployment")) {
      for (JsonNode container : containers(deployment)) {
        for (String main : namedMainClasses(container, mainClasses)) {
          deploymentsByMain.computeIfAbsent(main, m -> new ArrayList<>()).add(deployment.name());
        }
      }
    }
    for (String main : stageMains) {
      assertThat(deploymentsByMain.getOrDefault(main, List.of()))
          .as("Deployments running %s", main)
          .hasSize(1);
    }
  }

  @Test
  void everyPodRunsAsNonRootOnAReadOnlyRootFilesystemWithItsNodeId() throws Exception {
    for (Manifest workload : workloads()) {
      JsonNode pod = podSpec(workload);
      Set<String> volumes = new TreeSet<>();
      pod.path("volumes").forEach(volume -> volumes.add(volume.path("name").asText()));
      assertThat(pod.path("automountServiceAccountToken").asBoolean(true))
          .as("%s: no service account token (AX does not call the API server)", workload)
          .isFalse();
      for (JsonNode container : containers(workload)) {
        String name = workload + " container " + container.path("name").asText();
        JsonNode security = container.path("securityContext");
        JsonNode podSecurity = pod.path("securityContext");
        assertThat(
                security.path("runAsNonRoot").asBoolean(false)
                    || podSecurity.path("runAsNonRoot").asBoolean(false))
            .as("%s: runAsNonRoot", name)
            .isTrue();
        // The image names its user (ax); the kubelet can check runAsNonRoot only against a number.
        int uid = security.path("runAsUser").asInt(podSecurity.path("runAsUser").asInt(0));
        assertThat(uid).as("%s: runAsUser, a non-root uid", name).isPositive();
        String seccomp =
            security
                .path("seccompProfile")
                .path("type")
                .asText(podSecurity.path("seccompProfile").path("type").asText());
        assertThat(seccomp).as("%s: seccompProfile", name).isIn("RuntimeDefault", "Localhost");
        assertThat(security.path("readOnlyRootFilesystem").asBoolean(false))
            .as("%s: readOnlyRootFilesystem", name)
            .isTrue();
        assertThat(security.path("allowPrivilegeEscalation").asBoolean(true))
            .as("%s: allowPrivilegeEscalation", name)
            .isFalse();
        List<String> dropped = new ArrayList<>();
        security.path("capabilities").path("drop").forEach(c -> dropped.add(c.asText()));
        assertThat(dropped).as("%s: capabilities dropped", name).contains("ALL");

        Map<String, String> mounts = new LinkedHashMap<>();
        container
            .path("volumeMounts")
            .forEach(m -> mounts.put(m.path("mountPath").asText(), m.path("name").asText()));
        assertThat(mounts).as("%s: java.io.tmpdir writable", name).containsKey("/tmp");
        for (Map.Entry<String, String> mount : mounts.entrySet()) {
          assertThat(volumes)
              .as("%s: the volume mounted at %s is the pod's", name, mount.getKey())
              .contains(mount.getValue());
        }
        Map<String, String> env = environment(container);
        String stateDir = env.get("AX_RESOLVER_STATE_DIR");
        if (namedMainClasses(container, mainClassesInSource())
            .contains("dev.ax.resolver.ResolverMain")) {
          assertThat(stateDir).as("%s: AX_RESOLVER_STATE_DIR", name).isNotBlank();
        }
        if (stateDir != null && !stateDir.isBlank()) {
          assertThat(mounts.keySet())
              .as("%s: AX_RESOLVER_STATE_DIR %s is on a mounted volume", name, stateDir)
              .anyMatch(path -> stateDir.equals(path) || stateDir.startsWith(path + "/"));
        }

        JsonNode nodeId = envEntry(container, "AX_NODE_ID");
        assertThat(nodeId.path("valueFrom").path("fieldRef").path("fieldPath").asText())
            .as("%s: AX_NODE_ID from the pod's name", name)
            .isEqualTo("metadata.name");
      }
    }
  }

  @Test
  void everyAxNameInTheEnvironmentIsADocumentedKey() throws Exception {
    Set<String> documented = new TreeSet<>();
    for (String line : Files.readAllLines(ROOT.resolve(Path.of("docs", "CONFIGURATION.md")))) {
      Matcher key = DOCUMENTED_KEY.matcher(line);
      if (key.find()) {
        documented.add(key.group(1));
      }
    }
    assertThat(documented).as("keys in docs/CONFIGURATION.md").hasSizeGreaterThan(40);

    Set<String> names = new TreeSet<>();
    for (Manifest workload : workloads()) {
      for (JsonNode container : containers(workload)) {
        names.addAll(environment(container).keySet());
      }
    }
    // Every key of every ConfigMap and Secret, whoever reads it.
    for (Manifest object : all()) {
      if (object.kind().equals("ConfigMap") || object.kind().equals("Secret")) {
        names.addAll(dataKeys(object.node()));
      }
    }
    assertThat(names).as("environment names").contains("AX_KAFKA_BOOTSTRAP", "AX_NODE_ID");
    List<String> undocumented =
        names.stream().filter(n -> n.startsWith("AX_") && !documented.contains(n)).toList();
    assertThat(undocumented).as("AX_ names not in docs/CONFIGURATION.md").isEmpty();
  }

  @Test
  void theStagesReadTheirSettingsAndServeTheProbesWhereTheKubeletLooks() throws Exception {
    Map<String, Path> mainClasses = mainClassesInSource();
    for (Manifest deployment : stageDeployments()) {
      for (JsonNode container : containers(deployment)) {
        String name = deployment + " container " + container.path("name").asText();
        Map<String, String> env = environment(container);
        assertThat(env.get("AX_KAFKA_BOOTSTRAP")).as("%s: AX_KAFKA_BOOTSTRAP", name).isNotBlank();
        // The metrics endpoint on every interface, on the port the probes use.
        assertThat(env.get("AX_METRICS_BIND"))
            .as("%s: AX_METRICS_BIND", name)
            .isEqualTo("0.0.0.0:" + METRICS_PORT);
        boolean kafkaOnly =
            namedMainClasses(container, mainClasses).contains("dev.ax.resolver.ResolverMain");
        if (!kafkaOnly) {
          assertThat(env.get("AX_JDBC_URL")).as("%s: AX_JDBC_URL", name).startsWith("jdbc:mysql:");
          assertThat(env)
              .as("%s: the database user", name)
              .containsKeys("AX_JDBC_USER", "AX_JDBC_PASSWORD");
          // The Job migrates; a stage only checks the version, as a user without DDL rights.
          assertThat(env.get("AX_DB_MIGRATE")).as("%s: AX_DB_MIGRATE", name).isEqualTo("false");
        }
      }
    }
  }

  @Test
  void theJobRunsAxMigrateAsTheMigrationUser() throws Exception {
    Manifest job = only(all(), "Job");
    JsonNode pod = podSpec(job);
    assertThat(pod.path("restartPolicy").asText())
        .as("%s: restartPolicy", job)
        .isIn("OnFailure", "Never");
    List<JsonNode> containers = containers(job);
    assertThat(containers).as("%s: containers", job).hasSize(1);
    JsonNode container = containers.get(0);
    assertThat(container.path("image").asText()).as("%s: image", job).isNotBlank();
    List<String> command = command(container);
    assertThat(mainClassesInSource()).as("the CLI's main class").containsKey("dev.ax.cli.AxCli");
    int main = command.indexOf("dev.ax.cli.AxCli");
    assertThat(main).as("%s: runs dev.ax.cli.AxCli: %s", job, command).isNotNegative();
    assertThat(command.subList(main + 1, command.size()))
        .as("%s: the CLI's arguments", job)
        .containsExactly("migrate");
    assertResources(job.toString(), container);

    Map<String, String> env = environment(container);
    assertThat(env.get("AX_JDBC_URL")).as("%s: AX_JDBC_URL", job).startsWith("jdbc:mysql:");
    Set<String> migrationSecrets = secretsProviding(container, "AX_JDBC_PASSWORD");
    assertThat(migrationSecrets).as("%s: the Secret of AX_JDBC_PASSWORD", job).hasSize(1);
    for (Manifest deployment : byKind(all(), "Deployment")) {
      for (JsonNode stage : containers(deployment)) {
        assertThat(secretsProviding(stage, "AX_JDBC_PASSWORD"))
            .as("%s: not the migration user's Secret", deployment)
            .doesNotContainAnyElementsOf(migrationSecrets);
      }
    }
  }

  @Test
  void everyConfigMapAndSecretAPodRefersToIsDefinedHere() throws Exception {
    List<Manifest> manifests = all();
    Map<String, Manifest> configMaps = byName(byKind(manifests, "ConfigMap"));
    Map<String, Manifest> secrets = byName(byKind(manifests, "Secret"));
    int references = 0;
    for (Manifest workload : workloads()) {
      for (JsonNode container : containers(workload)) {
        String name = workload + " container " + container.path("name").asText();
        for (JsonNode from : container.path("envFrom")) {
          if (from.has("configMapRef")) {
            references++;
            assertThat(configMaps)
                .as("%s: envFrom ConfigMap", name)
                .containsKey(from.path("configMapRef").path("name").asText());
          }
          if (from.has("secretRef")) {
            references++;
            assertThat(secrets)
                .as("%s: envFrom Secret", name)
                .containsKey(from.path("secretRef").path("name").asText());
          }
        }
        for (JsonNode entry : container.path("env")) {
          JsonNode valueFrom = entry.path("valueFrom");
          for (String ref : List.of("configMapKeyRef", "secretKeyRef")) {
            if (valueFrom.has(ref)) {
              references++;
              JsonNode keyRef = valueFrom.path(ref);
              Map<String, Manifest> objects = ref.equals("secretKeyRef") ? secrets : configMaps;
              String object = keyRef.path("name").asText();
              assertThat(objects)
                  .as("%s: %s of %s", name, ref, entry.path("name"))
                  .containsKey(object);
              assertThat(dataKeys(objects.get(object).node()))
                  .as("%s: %s key of %s", name, ref, entry.path("name"))
                  .contains(keyRef.path("key").asText());
            }
          }
        }
      }
      for (JsonNode volume : podSpec(workload).path("volumes")) {
        if (volume.has("configMap")) {
          references++;
          assertThat(configMaps).containsKey(volume.path("configMap").path("name").asText());
        }
        if (volume.has("secret")) {
          references++;
          assertThat(secrets).containsKey(volume.path("secret").path("secretName").asText());
        }
      }
    }
    assertThat(references).as("references checked").isGreaterThanOrEqualTo(8);
  }

  @Test
  void theDisruptionBudgetsKeepADispatcherAndLeaveOneToEvict() throws Exception {
    List<Manifest> manifests = all();
    List<Manifest> budgets = byKind(manifests, "PodDisruptionBudget");
    Manifest dispatcher = deploymentRunning("dev.ax.dispatcher.DispatcherMain");
    boolean dispatcherCovered = false;
    for (Manifest budget : budgets) {
      JsonNode spec = budget.node().path("spec");
      Manifest deployment =
          onlyDeploymentSelected(
              manifests, budget, "selector.matchLabels", spec.path("selector").path("matchLabels"));
      assertThat(spec.path("minAvailable").isIntegralNumber())
          .as("%s: minAvailable is a number", budget)
          .isTrue();
      int minAvailable = spec.path("minAvailable").asInt();
      assertThat(minAvailable).as("%s: minAvailable", budget).isPositive();
      // Otherwise a node drain can never evict one.
      assertThat(minAvailable)
          .as("%s: minAvailable below the replicas of %s", budget, deployment)
          .isLessThan(deployment.node().path("spec").path("replicas").asInt());
      if (deployment.equals(dispatcher)) {
        dispatcherCovered = true;
        assertThat(minAvailable).as("%s: minAvailable", budget).isEqualTo(1);
      }
    }
    assertThat(dispatcherCovered).as("a PodDisruptionBudget selects %s", dispatcher).isTrue();
  }

  @Test
  void everyServiceSelectsOneDeploymentOnItsMetricsPort() throws Exception {
    List<Manifest> manifests = all();
    List<Manifest> services = byKind(manifests, "Service");
    assertThat(services).as("Services").isNotEmpty();
    for (Manifest service : services) {
      JsonNode spec = service.node().path("spec");
      Manifest deployment =
          onlyDeploymentSelected(manifests, service, "selector", spec.path("selector"));
      JsonNode container = containers(deployment).get(0);
      // A stage's metrics, the dead-letter stage's alert relay, or Alertmanager's API.
      Set<Integer> allowed =
          isAlertmanager(deployment)
              ? Set.of(ALERTMANAGER_PORT)
              : container.toString().contains("dev.ax.deadletter.DeadLetterMain")
                  ? Set.of(METRICS_PORT, RELAY_PORT)
                  : Set.of(METRICS_PORT);
      for (JsonNode port : spec.path("ports")) {
        assertThat(containerPort(container, port.path("targetPort")))
            .as("%s: targetPort", service)
            .isIn(allowed);
      }
    }
  }

  @Test
  void onlyTheMonitoringNamespaceReachesThePodsAndOnlyOnTheMetricsPort() throws Exception {
    List<Manifest> manifests = all();
    List<Manifest> policies = byKind(manifests, "NetworkPolicy");
    assertThat(policies).as("NetworkPolicies").hasSize(1);
    JsonNode spec = policies.get(0).node().path("spec");
    assertThat(
            spec.path("podSelector").path("matchLabels").path("app.kubernetes.io/part-of").asText())
        .as("it selects every AX pod")
        .isEqualTo("ax");
    for (Manifest deployment : byKind(manifests, "Deployment")) {
      assertThat(
              deployment
                  .node()
                  .path("spec")
                  .path("template")
                  .path("metadata")
                  .path("labels")
                  .path("app.kubernetes.io/part-of")
                  .asText())
          .as("%s: its pods carry the label the policy selects", deployment)
          .isEqualTo("ax");
    }
    assertThat(spec.path("policyTypes").toString()).contains("Ingress");
    assertThat(spec.path("ingress")).as("ingress rules").hasSize(2);
    JsonNode rule = spec.path("ingress").get(0);
    assertThat(rule.path("from")).hasSize(1);
    assertThat(rule.path("from").get(0).path("namespaceSelector").path("matchLabels").size())
        .as("from one namespace, by its name label")
        .isEqualTo(1);
    List<Integer> ports = new ArrayList<>();
    rule.path("ports").forEach(p -> ports.add(p.path("port").asInt()));
    assertThat(ports)
        .as("the monitoring namespace reaches the metrics and Alertmanager's API")
        .containsExactly(METRICS_PORT, ALERTMANAGER_PORT);
    // The alert relay: from the Alertmanager pod only.
    JsonNode relay = spec.path("ingress").get(1);
    assertThat(relay.path("from")).hasSize(1);
    assertThat(relay.path("from").get(0).path("namespaceSelector").isMissingNode()).isTrue();
    assertThat(
            relay
                .path("from")
                .get(0)
                .path("podSelector")
                .path("matchLabels")
                .path("app.kubernetes.io/component")
                .asText())
        .isEqualTo(ALERTMANAGER);
    assertThat(relay.path("ports")).hasSize(1);
    assertThat(relay.path("ports").get(0).path("port").asInt()).isEqualTo(RELAY_PORT);
  }

  @Test
  void theSecretsHoldPlaceholdersOnly() throws Exception {
    for (Manifest secret : byKind(all(), "Secret")) {
      assertThat(secret.node().has("data"))
          .as("%s: stringData only (base64 data would hide a real value)", secret)
          .isFalse();
      secret
          .node()
          .path("stringData")
          .fields()
          .forEachRemaining(
              entry -> {
                String key = entry.getKey();
                String value = entry.getValue().asText();
                if (key.contains("PASSWORD") || key.contains("WEBHOOK") || key.contains("TOKEN")) {
                  assertThat(value.isEmpty() || value.startsWith("REPLACE-ME"))
                      .as("%s: %s is empty or a REPLACE-ME placeholder", secret, key)
                      .isTrue();
                }
              });
    }
  }

  @Test
  void kubectlKustomizeBuildsTheSameObjects() throws Exception {
    Optional<Path> kubectl = ExternalTool.onPath("kubectl");
    assumeTrue(kubectl.isPresent(), "kubectl not found on PATH: kustomize build not checked");
    Process process =
        new ProcessBuilder(kubectl.get().toString(), "kustomize", K8S.toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("kubectl kustomize ends").isTrue();
    assertThat(process.exitValue()).as("kubectl kustomize %s", K8S).isZero();
    Set<String> built = new TreeSet<>();
    try (JsonParser parser = YAML.getFactory().createParser(output)) {
      MappingIterator<JsonNode> documents = YAML.readValues(parser, JsonNode.class);
      for (JsonNode document : documents.readAll()) {
        built.add(
            document.path("kind").asText() + "/" + document.path("metadata").path("name").asText());
      }
    }
    Set<String> defined =
        all().stream()
            .map(m -> m.kind() + "/" + m.name())
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(built).as("objects kustomize builds").isEqualTo(defined);
    // Every container runs the image kustomization.yaml's images: entry makes of the manifests'.
    JsonNode entry = YAML.readTree(KUSTOMIZATION.toFile()).path("images").path(0);
    String image = containers(workloads().get(0)).get(0).path("image").asText();
    String name = image.contains(":") ? image.substring(0, image.indexOf(':')) : image;
    String tag = image.contains(":") ? image.substring(image.indexOf(':') + 1) : "latest";
    assertThat(entry.path("name").asText()).isEqualTo(name);
    String expected = entry.path("newName").asText(name) + ":" + entry.path("newTag").asText(tag);
    Matcher images =
        Pattern.compile("(?m)^\\s+image: (\\S+)$")
            .matcher(new String(output, StandardCharsets.UTF_8));
    int count = 0;
    while (images.find()) {
      if (images.group(1).startsWith("prom/alertmanager:")) {
        continue; // pinned on its own, not renamed (AlertmanagerConfigTest)
      }
      count++;
      assertThat(images.group(1)).as("an image kustomize built").isEqualTo(expected);
    }
    assertThat(count).as("images kustomize built").isEqualTo(workloads().size());
  }

  // ---- reading the manifests

  private static List<Path> manifestFiles() throws IOException {
    try (Stream<Path> files = Files.walk(K8S)) {
      return files
          .filter(Files::isRegularFile)
          .filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
          .filter(f -> !f.getFileName().toString().equals("kustomization.yaml"))
          .sorted()
          .toList();
    }
  }

  private static List<JsonNode> documents(Path file) throws IOException {
    try (JsonParser parser = YAML.getFactory().createParser(file.toFile())) {
      MappingIterator<JsonNode> documents = YAML.readValues(parser, JsonNode.class);
      return documents.readAll();
    }
  }

  private static List<Manifest> all() throws IOException {
    List<Manifest> manifests = new ArrayList<>();
    for (Path file : manifestFiles()) {
      for (JsonNode document : documents(file)) {
        manifests.add(new Manifest(file, document));
      }
    }
    return manifests;
  }

  private static List<Manifest> byKind(List<Manifest> manifests, String kind) {
    return manifests.stream().filter(m -> m.kind().equals(kind)).toList();
  }

  private static Map<String, Manifest> byName(List<Manifest> manifests) {
    Map<String, Manifest> named = new LinkedHashMap<>();
    manifests.forEach(m -> named.put(m.name(), m));
    return named;
  }

  private static Manifest only(List<Manifest> manifests, String kind) {
    List<Manifest> ofKind = byKind(manifests, kind);
    assertThat(ofKind).as("objects of kind %s", kind).hasSize(1);
    return ofKind.get(0);
  }

  /** Deployments and Jobs: what runs pods. */
  /**
   * AX's Deployments and the Job: every workload but Alertmanager's (which runs its own pinned
   * image; AlertmanagerConfigTest checks it).
   */
  private static List<Manifest> workloads() throws IOException {
    return all().stream()
        .filter(m -> m.kind().equals("Deployment") || m.kind().equals("Job"))
        .filter(m -> !isAlertmanager(m))
        .toList();
  }

  /** The stages' Deployments (not Alertmanager's). */
  private static List<Manifest> stageDeployments() throws IOException {
    return byKind(workloads(), "Deployment");
  }

  private static boolean isAlertmanager(Manifest manifest) {
    return manifest
        .node()
        .path("metadata")
        .path("labels")
        .path("app.kubernetes.io/component")
        .asText()
        .equals(ALERTMANAGER);
  }

  private static Manifest deploymentRunning(String mainClass) throws IOException {
    Map<String, Path> mainClasses = mainClassesInSource();
    List<Manifest> running = new ArrayList<>();
    for (Manifest deployment : byKind(all(), "Deployment")) {
      for (JsonNode container : containers(deployment)) {
        if (namedMainClasses(container, mainClasses).contains(mainClass)) {
          running.add(deployment);
        }
      }
    }
    assertThat(running).as("the Deployment running %s", mainClass).hasSize(1);
    return running.get(0);
  }

  private static JsonNode podSpec(Manifest workload) {
    return workload.node().path("spec").path("template").path("spec");
  }

  private static List<JsonNode> containers(Manifest workload) {
    List<JsonNode> containers = new ArrayList<>();
    podSpec(workload).path("containers").forEach(containers::add);
    return containers;
  }

  private static List<String> command(JsonNode container) {
    List<String> command = new ArrayList<>();
    container.path("command").forEach(c -> command.add(c.asText()));
    container.path("args").forEach(c -> command.add(c.asText()));
    return command;
  }

  /** Every matchLabels entry is one of the labels. */
  /**
   * The one Deployment whose pod labels {@code selector}, the field {@code field} of {@code owner},
   * matches; asserts that the selector names labels and that exactly one Deployment matches.
   */
  private static Manifest onlyDeploymentSelected(
      List<Manifest> manifests, Manifest owner, String field, JsonNode selector) {
    assertThat(selector.size()).as("%s: %s", owner, field).isPositive();
    List<Manifest> selected =
        byKind(manifests, "Deployment").stream()
            .filter(
                d ->
                    selects(
                        selector,
                        d.node().path("spec").path("template").path("metadata").path("labels")))
            .toList();
    assertThat(selected).as("%s: the Deployments it selects", owner).hasSize(1);
    return selected.get(0);
  }

  private static boolean selects(JsonNode matchLabels, JsonNode labels) {
    if (matchLabels.size() == 0) {
      return false;
    }
    var fields = matchLabels.fields();
    while (fields.hasNext()) {
      var entry = fields.next();
      if (!labels.path(entry.getKey()).asText("\0").equals(entry.getValue().asText())) {
        return false;
      }
    }
    return true;
  }

  private static Set<String> dataKeys(JsonNode object) {
    Set<String> keys = new TreeSet<>();
    object.path("data").fieldNames().forEachRemaining(keys::add);
    object.path("stringData").fieldNames().forEachRemaining(keys::add);
    return keys;
  }

  /**
   * A container's environment as Kubernetes builds it: the envFrom sources in order (with their
   * prefix), then env, which wins. A value from a field or a key reference reads as "(ref)".
   */
  private static Map<String, String> environment(JsonNode container) throws IOException {
    List<Manifest> manifests = all();
    Map<String, Manifest> configMaps = byName(byKind(manifests, "ConfigMap"));
    Map<String, Manifest> secrets = byName(byKind(manifests, "Secret"));
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode from : container.path("envFrom")) {
      String prefix = from.path("prefix").asText("");
      Manifest source =
          from.has("configMapRef")
              ? configMaps.get(from.path("configMapRef").path("name").asText())
              : secrets.get(from.path("secretRef").path("name").asText());
      if (source != null) {
        for (String section : List.of("data", "stringData")) {
          source
              .node()
              .path(section)
              .fields()
              .forEachRemaining(e -> env.put(prefix + e.getKey(), e.getValue().asText()));
        }
      }
    }
    for (JsonNode entry : container.path("env")) {
      env.put(
          entry.path("name").asText(),
          entry.has("valueFrom") ? "(ref)" : entry.path("value").asText(""));
    }
    return env;
  }

  private static JsonNode envEntry(JsonNode container, String name) {
    for (JsonNode entry : container.path("env")) {
      if (entry.path("name").asText().equals(name)) {
        return entry;
      }
    }
    return container.path("env").path(Integer.MAX_VALUE); // missing
  }

  /** The Secrets that give the container {@code key}: by envFrom, or by an env secretKeyRef. */
  private static Set<String> secretsProviding(JsonNode container, String key) throws IOException {
    Map<String, Manifest> secrets = byName(byKind(all(), "Secret"));
    Set<String> providing = new TreeSet<>();
    for (JsonNode entry : container.path("env")) {
      if (entry.path("name").asText().equals(key)) {
        String secret = entry.path("valueFrom").path("secretKeyRef").path("name").asText("");
        if (!secret.isEmpty()) {
          providing.add(secret);
        }
        return providing; // env wins over envFrom
      }
    }
    for (JsonNode from : container.path("envFrom")) {
      String name = from.path("secretRef").path("name").asText("");
      Manifest secret = secrets.get(name);
      if (secret != null
          && dataKeys(secret.node())
              .contains(key.substring(from.path("prefix").asText("").length()))) {
        providing.add(name);
      }
    }
    return providing;
  }

  private static int containerPort(JsonNode container, JsonNode port) {
    if (port.isIntegralNumber()) {
      return port.asInt();
    }
    for (JsonNode declared : container.path("ports")) {
      if (declared.path("name").asText().equals(port.asText())) {
        return declared.path("containerPort").asInt();
      }
    }
    return -1;
  }

  private static void assertProbe(String name, JsonNode container, String probe, String path) {
    JsonNode httpGet = container.path(probe).path("httpGet");
    assertThat(httpGet.path("path").asText()).as("%s: %s path", name, probe).isEqualTo(path);
    assertThat(containerPort(container, httpGet.path("port")))
        .as("%s: %s port", name, probe)
        .isEqualTo(METRICS_PORT);
  }

  private static void assertResources(String name, JsonNode container) {
    JsonNode resources = container.path("resources");
    for (String resource : List.of("cpu", "memory")) {
      String request = resources.path("requests").path(resource).asText("");
      String limit = resources.path("limits").path(resource).asText("");
      assertThat(request).as("%s: requests.%s", name, resource).isNotBlank();
      assertThat(limit).as("%s: limits.%s", name, resource).isNotBlank();
      assertThat(quantity(request))
          .as("%s: requests.%s %s within limits.%s %s", name, resource, request, resource, limit)
          .isLessThanOrEqualTo(quantity(limit));
    }
    // The heap the command gives the JVM fits in the memory limit, with room beside it.
    BigDecimal memoryLimit = quantity(resources.path("limits").path("memory").asText());
    for (String argument : command(container)) {
      Matcher xmx = XMX.matcher(argument);
      if (xmx.matches()) {
        BigDecimal heap =
            new BigDecimal(xmx.group(1)).multiply(binaryUnit(xmx.group(2).toUpperCase() + "i"));
        assertThat(heap.multiply(BigDecimal.valueOf(3)).divide(BigDecimal.valueOf(2)))
            .as("%s: %s with room beside it in the memory limit", name, argument)
            .isLessThanOrEqualTo(memoryLimit);
      }
    }
  }

  /** A Kubernetes quantity: 250m, 2, 512Mi, 1Gi, 1G. */
  private static BigDecimal quantity(String text) {
    Matcher quantity = Pattern.compile("^([0-9.]+)([a-zA-Z]*)$").matcher(text);
    assertThat(quantity.matches()).as("quantity %s", text).isTrue();
    BigDecimal number = new BigDecimal(quantity.group(1));
    String unit = quantity.group(2);
    return switch (unit) {
      case "" -> number;
      case "m" -> number.movePointLeft(3);
      case "k" -> number.movePointRight(3);
      case "M" -> number.movePointRight(6);
      case "G" -> number.movePointRight(9);
      default -> number.multiply(binaryUnit(unit));
    };
  }

  private static BigDecimal binaryUnit(String unit) {
    return switch (unit) {
      case "Ki" -> BigDecimal.valueOf(1L << 10);
      case "Mi" -> BigDecimal.valueOf(1L << 20);
      case "Gi" -> BigDecimal.valueOf(1L << 30);
      default -> throw new AssertionError("unknown unit " + unit);
    };
  }

  // ---- the source tree

  /** Every class of the source tree with a main method, by qualified name. */
  private static Map<String, Path> mainClassesInSource() throws IOException {
    Map<String, Path> mains = new LinkedHashMap<>();
    List<Path> modules;
    try (Stream<Path> dirs = Files.list(ROOT)) {
      modules =
          dirs.filter(d -> d.getFileName().toString().startsWith("ax-"))
              .map(d -> d.resolve(Path.of("src", "main", "java")))
              .filter(Files::isDirectory)
              .sorted()
              .toList();
    }
    for (Path sources : modules) {
      try (Stream<Path> files = Files.walk(sources)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          String text = read(file);
          if (MAIN_METHOD.matcher(text).find()) {
            Matcher pkg = PACKAGE.matcher(text);
            String simple = file.getFileName().toString().replaceFirst("\\.java$", "");
            mains.put(pkg.find() ? pkg.group(1) + "." + simple : simple, file);
          }
        }
      }
    }
    return mains;
  }

  /**
   * The stages: {@code ../ax-*\/src/main/java/**\/*Main.java} with a main method that runs through
   * {@code StageMain} (the bench's peer has a main of its own and runs no stage).
   */
  private static Set<String> stageMainClasses() throws IOException {
    return mainClassesInSource().entrySet().stream()
        .filter(e -> e.getValue().getFileName().toString().endsWith("Main.java"))
        .filter(e -> read(e.getValue()).contains("StageMain"))
        .map(Map.Entry::getKey)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static List<String> namedMainClasses(JsonNode container, Map<String, Path> mainClasses) {
    return command(container).stream().filter(mainClasses::containsKey).toList();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
