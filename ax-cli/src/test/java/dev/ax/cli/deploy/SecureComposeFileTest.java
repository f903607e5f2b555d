package dev.ax.cli.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.ax.common.testing.ExternalTool;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The secure compose variant ({@code compose/docker-compose.secure.yml} over {@code
 * docker-compose.yml}, issue 40): Compose accepts the two files with the example env file's values
 * filled in (and with the placeholders {@code make-secrets.sh} writes), and in the model Compose
 * merges from them every stage reaches Kafka over SASL_SSL as its own user {@code ax-<stage>}, its
 * JAAS line from its own secret file, and the database with {@code VERIFY_IDENTITY} against the CA
 * of a mounted trust store; no service has a literal password in its environment; the broker
 * authorizes with the StandardAuthorizer, denies what no ACL allows, has {@code admin} as its only
 * super user and no listener but SASL_SSL ones; the one-shot {@code acl-init} service runs {@code
 * ax acl --apply} as admin once the broker is healthy and every stage waits for it; MySQL requires
 * TLS with its certificate from the secrets. {@code make-secrets.sh} run into a temporary directory
 * writes every file the variant mounts: certificates for the host names the clients verify, signed
 * by its CA, a trust store Java reads without a password, the broker's key store, a JAAS line per
 * user that the broker's JAAS file knows, and distinct random passwords. Compose (v2 or Debian's
 * 1.29) and openssl with keytool are needed for the parts that use them, skipped otherwise.
 */
class SecureComposeFileTest {

  private static final Path ROOT = Path.of("..");
  private static final Path COMPOSE = ROOT.resolve("compose");
  private static final Path ENV_EXAMPLE = COMPOSE.resolve(".env.example");
  private static final Path MAKE_SECRETS = COMPOSE.resolve("make-secrets.sh");
  private static final String SECRETS = "/run/secrets/";
  private static final String CLI = "dev.ax.cli.AxCli";
  private static final String TRUSTSTORE = SECRETS + "ax_ca_truststore";

  /** The merged model, or null when no Compose is installed. */
  private static JsonNode merged;

  private static Optional<List<String>> compose;

  @BeforeAll
  static void mergeWithCompose(@TempDir Path dir) throws Exception {
    compose = composeTool();
    if (compose.isEmpty()) {
      return;
    }
    Path env = dir.resolve("filled.env");
    Files.writeString(
        env,
        example().keySet().stream()
            .map(k -> k + "=test-" + k + "\n")
            .collect(Collectors.joining()));
    Result config = run(env, "config");
    assertThat(config.exitCode()).as("config:%n%s", config.output()).isZero();
    merged = new YAMLMapper().readTree(config.output());
  }

  private static JsonNode services() {
    assumeTrue(
        merged != null,
        "neither `docker compose` nor `docker-compose` found: secure variant not merged by Compose");
    return merged.path("services");
  }

  /** The services that run a stage's main class: every service of the AX image but two. */
  private static Map<String, JsonNode> stages() {
    Map<String, JsonNode> stages = new TreeMap<>();
    services()
        .properties()
        .forEach(
            e -> {
              List<String> command = texts(e.getValue().path("command"));
              if (!command.isEmpty()
                  && command.get(0).startsWith("dev.ax.")
                  && !command.get(0).equals(CLI)) {
                stages.put(e.getKey(), e.getValue());
              }
            });
    assertThat(stages.keySet())
        .containsExactlyInAnyOrder(
            "ingest", "ticker-1", "ticker-2", "dispatcher", "retry", "deadletter", "resolver");
    return stages;
  }

  @Test
  void composeAcceptsTheMergedFilesWithTheFilledExampleAndTheGeneratedPlaceholders(
      @TempDir Path dir) throws Exception {
    services();
    Path placeholders = dir.resolve("compose.env");
    Files.writeString(
        placeholders,
        example().keySet().stream()
            .map(k -> k + "=unused-see-compose-secrets\n")
            .collect(Collectors.joining()));
    Result quiet = run(placeholders, "config", "-q");
    assertThat(quiet.exitCode()).as("config -q:%n%s", quiet.output()).isZero();
  }

  @Test
  void everyStageUsesSaslSslAsItsOwnUserAndTheDatabaseWithVerifyIdentity() {
    for (Map.Entry<String, JsonNode> stage : stages().entrySet()) {
      String name = stage.getKey();
      String user = "ax-" + name.replaceAll("-\\d+$", "");
      Map<String, String> env = environment(stage.getValue());
      Set<String> secrets = secrets(stage.getValue());
      assertThat(env)
          .as("%s: Kafka settings", name)
          .containsEntry("AX_KAFKA_BOOTSTRAP", "kafka:9092")
          .containsEntry("AX_KAFKA_SECURITY_PROTOCOL", "SASL_SSL")
          .containsEntry("AX_KAFKA_SASL_MECHANISM", "PLAIN")
          .containsEntry("AX_KAFKA_SSL_TRUSTSTORE_LOCATION", TRUSTSTORE)
          .containsEntry("AX_KAFKA_SASL_JAAS_CONFIG_FILE", SECRETS + "kafka_jaas_" + user)
          .doesNotContainKey("AX_KAFKA_SASL_JAAS_CONFIG");
      assertThat(secrets)
          .as("%s: its own Kafka user's secret and no other", name)
          .contains("kafka_jaas_" + user, "ax_ca_truststore")
          .filteredOn(s -> s.startsWith("kafka_"))
          .containsExactly("kafka_jaas_" + user);
      assertThat(stage.getValue().path("depends_on").path("acl-init").path("condition").asText())
          .as("%s waits for the ACLs", name)
          .isEqualTo("service_completed_successfully");
      if (env.containsKey("AX_JDBC_URL")) {
        assertDatabaseTls(name, stage.getValue(), "db_app_password");
      } else {
        assertThat(name).as("only the resolver runs without the database").isEqualTo("resolver");
        assertThat(secrets).noneMatch(s -> s.startsWith("db_"));
      }
    }
    assertDatabaseTls("migrate", services().path("migrate"), "db_migrate_password");
  }

  private static void assertDatabaseTls(String name, JsonNode service, String passwordSecret) {
    Map<String, String> env = environment(service);
    assertThat(env.get("AX_JDBC_SSL_MODE")).as("%s: sslMode", name).isEqualTo("VERIFY_IDENTITY");
    assertThat(env.get("AX_JDBC_URL"))
        .as("%s: the CA from the trust store file, nothing else trusted", name)
        .startsWith("jdbc:mysql://mysql:3306/ax?")
        .contains("trustCertificateKeyStoreUrl=file:" + TRUSTSTORE)
        .contains("fallbackToSystemTrustStore=false")
        .doesNotContainIgnoringCase("password")
        .doesNotContainIgnoringCase("sslMode");
    assertThat(env.get("AX_JDBC_PASSWORD")).as("%s: AX_JDBC_PASSWORD unset", name).isNull();
    assertThat(env.get("AX_JDBC_PASSWORD_FILE")).isEqualTo(SECRETS + passwordSecret);
    assertThat(secrets(service)).contains(passwordSecret, "ax_ca_truststore");
  }

  @Test
  void noServiceHasALiteralPasswordInItsEnvironment() {
    int files = 0;
    for (Map.Entry<String, JsonNode> service : fields(services()).entrySet()) {
      Set<String> mounted = secrets(service.getValue());
      for (Map.Entry<String, String> e : environment(service.getValue()).entrySet()) {
        String key = e.getKey().toUpperCase(Locale.ROOT);
        String value = e.getValue();
        assertThat(value == null ? "" : value)
            .as("%s: %s holds no value of the env file", service.getKey(), key)
            .doesNotContain("test-");
        if (!key.contains("PASSWORD") && !key.contains("JAAS") && !key.contains("SECRET")) {
          continue;
        }
        if (key.endsWith("_FILE")) {
          files++;
          assertThat(value).as("%s: %s", service.getKey(), key).startsWith(SECRETS);
          assertThat(mounted)
              .as("%s: %s is mounted", service.getKey(), key)
              .contains(value.substring(SECRETS.length()));
        } else {
          assertThat(value == null ? "" : value)
              .as("%s: %s is no literal", service.getKey(), key)
              .isEmpty();
        }
      }
    }
    assertThat(files).as("password files").isGreaterThanOrEqualTo(12);
  }

  @Test
  void theBrokerAuthorizesAndListensOnSaslSslOnly() {
    JsonNode kafka = services().path("kafka");
    Map<String, String> env = environment(kafka);
    assertThat(env)
        .containsEntry(
            "KAFKA_AUTHORIZER_CLASS_NAME",
            "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        .containsEntry("KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND", "false")
        .containsEntry("KAFKA_SUPER_USERS", "User:admin")
        .containsEntry("KAFKA_SASL_ENABLED_MECHANISMS", "PLAIN")
        .containsEntry("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false");
    Map<String, String> protocols = new LinkedHashMap<>();
    for (String entry : env.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP").split(",")) {
      String[] parts = entry.split(":");
      protocols.put(parts[0], parts[1]);
    }
    assertThat(protocols.values()).as("every listener's protocol").containsOnly("SASL_SSL");
    Map<String, String> listeners = listeners(env.get("KAFKA_LISTENERS"));
    assertThat(protocols.keySet()).containsExactlyInAnyOrderElementsOf(listeners.keySet());
    assertThat(listeners(env.get("KAFKA_ADVERTISED_LISTENERS")))
        .containsOnlyKeys("BROKER", "HOST")
        .containsEntry("BROKER", "kafka:9092")
        .containsEntry("HOST", "localhost:9094");
    assertThat(listeners.get(env.get("KAFKA_CONTROLLER_LISTENER_NAMES")))
        .as("the controller listener on the broker's loopback only")
        .startsWith("127.0.0.1:");
    assertThat(env.get("KAFKA_INTER_BROKER_LISTENER_NAME")).isEqualTo("BROKER");
    assertThat(env.get("KAFKA_OPTS"))
        .isEqualTo("-Djava.security.auth.login.config=" + SECRETS + "kafka_server_jaas");
    assertThat(env.get("KAFKA_SSL_KEYSTORE_LOCATION")).isEqualTo(SECRETS + "kafka_keystore");
    assertThat(env).doesNotContainKey("KAFKA_SSL_KEYSTORE_PASSWORD");
    assertThat(secrets(kafka))
        .contains("kafka_keystore", "kafka_keystore_password", "kafka_server_jaas");
    assertThat(String.join(" ", texts(kafka.path("entrypoint"))))
        .contains("$(cat /run/secrets/kafka_keystore_password)")
        .contains("exec /etc/kafka/docker/run");
    assertThat(String.join(" ", texts(kafka.path("healthcheck").path("test"))))
        .contains("--bootstrap-server kafka:9092")
        .contains("--command-config /run/secrets/kafka_admin_client_properties");
    // Published on the host: the HOST listener alone, on loopback (from the base file).
    assertThat(kafka.path("ports").toString()).contains("9094").doesNotContain("9092", "9093");
  }

  private static Map<String, String> listeners(String value) {
    Map<String, String> listeners = new LinkedHashMap<>();
    Matcher m = Pattern.compile("([A-Z_]+)://([^,]*)").matcher(value);
    while (m.find()) {
      listeners.put(m.group(1), m.group(2).startsWith(":") ? "*" + m.group(2) : m.group(2));
    }
    return listeners;
  }

  @Test
  void theAclInitServiceAppliesTheGrantsAsAdminAfterTheBrokerAndBeforeTheStages() {
    JsonNode init = services().path("acl-init");
    assertThat(texts(init.path("command"))).containsExactly(CLI, "acl", "--apply");
    assertThat(init.path("restart").asText()).isEqualTo("no");
    assertThat(init.path("depends_on").path("kafka").path("condition").asText())
        .isEqualTo("service_healthy");
    Map<String, String> env = environment(init);
    assertThat(env)
        .containsEntry("AX_KAFKA_SECURITY_PROTOCOL", "SASL_SSL")
        .containsEntry("AX_KAFKA_SASL_JAAS_CONFIG_FILE", SECRETS + "kafka_jaas_admin");
    assertThat(secrets(init)).containsExactlyInAnyOrder("kafka_jaas_admin", "ax_ca_truststore");
    // Only the ACL service and the broker's healthcheck log in as the super user.
    fields(services())
        .forEach(
            (name, service) -> {
              if (!name.equals("acl-init") && !name.equals("kafka")) {
                assertThat(secrets(service))
                    .as("%s: no admin secret", name)
                    .doesNotContain("kafka_jaas_admin", "kafka_admin_client_properties");
              }
            });
    assertThat(stages()).isNotEmpty();
  }

  @Test
  void mysqlRequiresTlsWithTheGeneratedCertificate() {
    JsonNode mysql = services().path("mysql");
    assertThat(texts(mysql.path("command")))
        .contains(
            "--require-secure-transport=ON",
            "--ssl-ca=" + SECRETS + "ax_ca_cert",
            "--ssl-cert=" + SECRETS + "mysql_server_cert",
            "--ssl-key=" + SECRETS + "mysql_server_key");
    assertThat(secrets(mysql))
        .contains("ax_ca_cert", "mysql_server_cert", "mysql_server_key", "db_app_password");
    assertThat(environment(mysql))
        .containsEntry("MYSQL_ROOT_PASSWORD_FILE", SECRETS + "db_root_password")
        .containsEntry("DB_APP_PASSWORD_FILE", SECRETS + "db_app_password")
        .containsEntry("DB_MIGRATE_PASSWORD_FILE", SECRETS + "db_migrate_password");
  }

  // ---- make-secrets.sh --------------------------------------------------------------------------

  @Test
  void makeSecretsWritesEveryFileTheVariantMounts(@TempDir Path tmp) throws Exception {
    assumeTrue(
        ExternalTool.onPath("openssl").isPresent() && ExternalTool.onPath("keytool").isPresent(),
        "openssl or keytool missing: make-secrets.sh not run");
    Path dir = tmp.resolve("secrets");
    Result made =
        execute(
            List.of("bash", MAKE_SECRETS.toAbsolutePath().toString(), dir.toString()), Map.of());
    assertThat(made.exitCode()).as("make-secrets.sh:%n%s", made.output()).isZero();
    assertThat(made.output()).doesNotContain(Files.readString(dir.resolve("db_app_password")));

    // Every secret the variant declares is a file it wrote.
    if (merged != null) {
      for (Map.Entry<String, JsonNode> secret : fields(merged.path("secrets")).entrySet()) {
        String file = secret.getValue().path("file").asText();
        assertThat(Path.of(file).getParent().getFileName().toString()).isEqualTo("secrets");
        assertThat(Path.of(file).getFileName().toString()).isEqualTo(secret.getKey());
        assertThat(dir.resolve(secret.getKey())).as("secret %s", secret.getKey()).isRegularFile();
      }
    }
    assertThat(Files.readAllLines(ROOT.resolve(".gitignore"))).contains("/compose/secrets/");

    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    X509Certificate ca = certificate(x509, dir.resolve("ax_ca_cert"));
    assertServerCertificate(x509, dir.resolve("mysql_server_cert"), ca, Set.of("mysql"));
    // The trust store: the CA, read with no password, an empty one or as "JKS" (Kafka's default).
    for (String type : List.of("PKCS12", "JKS")) {
      for (char[] password : new char[][] {null, new char[0]}) {
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(dir.resolve("ax_ca_truststore"))) {
          store.load(in, password);
        }
        assertThat(store.size()).isEqualTo(1);
        String alias = store.aliases().nextElement();
        assertThat(store.isCertificateEntry(alias)).isTrue();
        assertThat(store.getCertificate(alias)).isEqualTo(ca);
      }
    }
    KeyStore broker = KeyStore.getInstance("PKCS12");
    char[] storePassword = Files.readString(dir.resolve("kafka_keystore_password")).toCharArray();
    try (InputStream in = Files.newInputStream(dir.resolve("kafka_keystore"))) {
      broker.load(in, storePassword);
    }
    assertThat(broker.getKey("kafka", storePassword)).isNotNull();
    Path brokerCert = tmp.resolve("kafka.crt");
    Files.write(brokerCert, broker.getCertificate("kafka").getEncoded());
    assertServerCertificate(x509, brokerCert, ca, Set.of("kafka", "localhost", "127.0.0.1"));

    // A JAAS line per user, each password the broker's JAAS file holds for that user, all distinct.
    String serverJaas = Files.readString(dir.resolve("kafka_server_jaas"));
    Set<String> passwords = new HashSet<>();
    Pattern line =
        Pattern.compile(
            "org\\.apache\\.kafka\\.common\\.security\\.plain\\.PlainLoginModule required"
                + " username=\"([a-z-]+)\" password=\"([A-Za-z0-9]{32})\";\\n");
    for (String user :
        List.of(
            "admin",
            "ax-ingest",
            "ax-ticker",
            "ax-dispatcher",
            "ax-retry",
            "ax-deadletter",
            "ax-resolver")) {
      Matcher m = line.matcher(Files.readString(dir.resolve("kafka_jaas_" + user)));
      assertThat(m.matches()).as("kafka_jaas_%s", user).isTrue();
      assertThat(m.group(1)).isEqualTo(user);
      assertThat(serverJaas).contains("user_" + user + "=\"" + m.group(2) + "\"");
      passwords.add(m.group(2));
    }
    for (String name :
        List.of(
            "db_root_password",
            "db_migrate_password",
            "db_app_password",
            "grafana_admin_password")) {
      String password = Files.readString(dir.resolve(name));
      assertThat(password).as(name).matches("[A-Za-z0-9]{32}");
      passwords.add(password);
    }
    assertThat(passwords).as("distinct passwords").hasSize(11);
    assertThat(Files.readString(dir.resolve("kafka_admin_client_properties")))
        .contains("security.protocol=SASL_SSL", "ssl.truststore.location=" + TRUSTSTORE);
    assertThat(Files.readString(dir.resolve("compose.env")))
        .contains(example().keySet().stream().map(k -> k + "=").toList());

    // A second run leaves the secrets alone.
    Result again =
        execute(
            List.of("bash", MAKE_SECRETS.toAbsolutePath().toString(), dir.toString()), Map.of());
    assertThat(again.exitCode()).isNotZero();
    assertThat(again.output()).contains("--force");
  }

  private static X509Certificate certificate(CertificateFactory x509, Path file) throws Exception {
    try (InputStream in = Files.newInputStream(file)) {
      return (X509Certificate) x509.generateCertificate(in);
    }
  }

  private static void assertServerCertificate(
      CertificateFactory x509, Path file, X509Certificate ca, Set<String> names) throws Exception {
    X509Certificate cert = certificate(x509, file);
    cert.verify(ca.getPublicKey());
    cert.checkValidity();
    Set<String> sans = new TreeSet<>();
    Collection<List<?>> alternatives = cert.getSubjectAlternativeNames();
    alternatives.forEach(san -> sans.add(String.valueOf(san.get(1))));
    assertThat(sans).as("%s: subject alternative names", file.getFileName()).isEqualTo(names);
    assertThat(cert.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1");
    assertThat(new ByteArrayInputStream(cert.getEncoded())).isNotNull();
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private static Map<String, JsonNode> fields(JsonNode object) {
    Map<String, JsonNode> fields = new TreeMap<>();
    object.properties().forEach(e -> fields.put(e.getKey(), e.getValue()));
    return fields;
  }

  /** The environment as Compose resolved it; a key without a value maps to null. */
  private static Map<String, String> environment(JsonNode service) {
    Map<String, String> env = new TreeMap<>();
    service
        .path("environment")
        .properties()
        .forEach(e -> env.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
    return env;
  }

  private static Set<String> secrets(JsonNode service) {
    Set<String> names = new TreeSet<>();
    for (JsonNode secret : service.path("secrets")) {
      names.add(secret.isTextual() ? secret.asText() : secret.path("source").asText());
    }
    return names;
  }

  private static List<String> texts(JsonNode node) {
    List<String> texts = new ArrayList<>();
    if (node.isValueNode()) {
      texts.add(node.asText());
    }
    node.forEach(n -> texts.add(n.asText()));
    return texts;
  }

  private static Map<String, String> example() throws Exception {
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : Files.readAllLines(ENV_EXAMPLE)) {
      String trimmed = line.trim();
      if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
        int eq = trimmed.indexOf('=');
        values.put(trimmed.substring(0, eq), trimmed.substring(eq + 1));
      }
    }
    return values;
  }

  private record Result(int exitCode, String output) {}

  private static Optional<List<String>> composeTool() throws Exception {
    Optional<Path> docker = ExternalTool.onPath("docker");
    if (docker.isPresent()) {
      List<String> v2 = List.of(docker.get().toString(), "compose");
      if (execute(List.of(v2.get(0), v2.get(1), "version"), Map.of()).exitCode() == 0) {
        return Optional.of(v2);
      }
    }
    return ExternalTool.onPath("docker-compose").map(p -> List.of(p.toString()));
  }

  private static Result run(Path envFile, String... args) throws Exception {
    List<String> command = new ArrayList<>(compose.orElseThrow());
    command.addAll(
        List.of(
            "--env-file",
            envFile.toAbsolutePath().toString(),
            "-p",
            "ax",
            "-f",
            "compose/docker-compose.yml",
            "-f",
            "compose/docker-compose.secure.yml"));
    command.addAll(List.of(args));
    return execute(command, example());
  }

  private static Result execute(List<String> command, Map<String, String> unset) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile());
    builder.environment().keySet().removeAll(unset.keySet());
    builder.environment().keySet().removeIf(k -> k.startsWith("COMPOSE_") || k.startsWith("AX_"));
    builder.redirectErrorStream(true);
    Process process = builder.start();
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("%s ends", command).isTrue();
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }
}
