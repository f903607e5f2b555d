package dev.ax.cli.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.ax.common.testing.ExternalTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The docker-compose deployment ({@code compose/docker-compose.yml}) is one Compose accepts and the
 * one issue 21 asks for. Where {@code docker compose} (v2) or Debian's {@code docker-compose}
 * (1.29; {@code .ci/run} installs it) is on the PATH, it validates the file without a Docker
 * engine: with {@code compose/.env.example} as it is committed it refuses (every password is
 * required and the example sets none), with the example's values filled in it accepts, and its own
 * model of the file agrees with the one the checks below read. Those checks read the YAML
 * themselves (anchors and merge keys resolved), so they run everywhere: every stage main class of
 * the project has a service; a one-shot migrate service runs {@code ax migrate} as the schema owner
 * and every stage waits for it to complete; every stage on the database runs with {@code
 * AX_DB_MIGRATE=false} as the DML-only user, which the MySQL init script creates with SELECT,
 * INSERT, UPDATE and DELETE only; every stage has a healthcheck on {@code /health/ready}; two
 * tickers, a dispatcher that can scale; only the Kafka client port and Grafana are published, on
 * loopback, and the README names them; no password is a literal; Prometheus scrapes the stage
 * services by their names.
 */
class ComposeFileTest {

  private static final Path ROOT = Path.of("..");
  private static final Path COMPOSE = ROOT.resolve("compose");
  private static final Path FILE = COMPOSE.resolve("docker-compose.yml");
  private static final Path ENV_EXAMPLE = COMPOSE.resolve(".env.example");
  private static final Path USERS_SCRIPT =
      COMPOSE.resolve(Path.of("mysql", "initdb", "ax-users.sh"));

  /** The command line's class: the migrate service runs it, no stage does. */
  private static final String CLI = "dev.ax.cli.AxCli";

  /** The host ports a user needs, each on loopback: the Kafka client port and Grafana. */
  private static final Map<String, String> PUBLISHED =
      Map.of("kafka", "127.0.0.1:9094:9094", "grafana", "127.0.0.1:3000:3000");

  /** A required substitution: Compose stops when the variable is unset or empty. */
  private static final Pattern REQUIRED =
      Pattern.compile("^\\$\\{([A-Za-z_][A-Za-z0-9_]*):\\?[^}]+}$");

  // ---- (a) Compose itself ----------------------------------------------------------------------

  @Test
  void composeAcceptsTheFileWithTheExamplesValuesFilledInAndRefusesItWithout(@TempDir Path dir)
      throws Exception {
    Optional<List<String>> compose = composeTool();
    assumeTrue(
        compose.isPresent(),
        "neither `docker compose` nor `docker-compose` (Debian package docker-compose) found:"
            + " compose file not validated by Compose");

    Result asCommitted = run(compose.get(), ENV_EXAMPLE.toAbsolutePath(), "config", "-q");
    assertThat(asCommitted.exitCode)
        .as("config with the example's empty passwords must fail:%n%s", asCommitted.output)
        .isNotZero();
    assertThat(asCommitted.output)
        .as("names the missing variable")
        .containsPattern("[A-Z_]*PASSWORD is not set");

    Map<String, String> filled = filledExample();
    Path env = dir.resolve("compose.env");
    Files.writeString(
        env,
        filled.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue() + "\n")
            .collect(Collectors.joining()));
    Result quiet = run(compose.get(), env, "config", "-q");
    assertThat(quiet.exitCode).as("%s config -q:%n%s", compose.get(), quiet.output).isZero();

    // Compose's own model (anchors, merges and substitutions applied) is the one the checks read.
    Result config = run(compose.get(), env, "config");
    assertThat(config.exitCode).as("%s config:%n%s", compose.get(), config.output).isZero();
    JsonNode resolved = new YAMLMapper().readTree(config.output).path("services");
    Map<String, JsonNode> services = services();
    assertThat(names(resolved)).isEqualTo(services.keySet());
    for (Map.Entry<String, JsonNode> service : services.entrySet()) {
      JsonNode theirs = resolved.path(service.getKey());
      assertThat(theirs.path("image").asText())
          .as("%s: image", service.getKey())
          .isEqualTo(service.getValue().path("image").asText());
      assertThat(command(theirs))
          .as("%s: command", service.getKey())
          .isEqualTo(command(service.getValue()));
      Map<String, String> ours = new TreeMap<>();
      environment(service.getValue()).forEach((k, v) -> ours.put(k, substitute(v, filled)));
      assertThat(new TreeMap<>(environment(theirs)))
          .as("%s: environment", service.getKey())
          .isEqualTo(ours);
    }
  }

  // ---- (b) the file as the issue asks for it ---------------------------------------------------

  @Test
  void everyStageMainClassHasAService() throws Exception {
    Set<String> mains = stageMains().keySet();
    assertThat(mains).as("stage main classes found").hasSizeGreaterThanOrEqualTo(6);
    Set<String> commanded = new TreeSet<>();
    services().values().forEach(s -> commanded.addAll(command(s)));
    for (String main : mains) {
      assertThat(commanded).as("a service runs %s", main).contains(main);
    }
  }

  @Test
  void theMigrateServiceRunsAxMigrateAsTheSchemaOwnerOnce() throws Exception {
    JsonNode migrate = services().get("migrate");
    assertThat(migrate).as("a migrate service").isNotNull();
    assertThat(command(migrate)).as("migrate: command").containsExactly(CLI, "migrate");
    // One shot: restarted, it would run again after it succeeded, and `up` would wait on it.
    assertThat(migrate.path("restart").asText("no")).as("migrate: restart").isEqualTo("no");
    assertThat(migrate.path("depends_on").path("mysql").path("condition").asText())
        .as("migrate waits for mysql")
        .isEqualTo("service_healthy");
    Map<String, String> env = environment(migrate);
    assertThat(env.get("AX_JDBC_USER")).as("migrate: AX_JDBC_USER").isEqualTo(migrateUser());
    assertThat(env.get("AX_JDBC_PASSWORD"))
        .as("migrate: AX_JDBC_PASSWORD is the schema owner's")
        .isEqualTo(environment(services().get("mysql")).get("DB_MIGRATE_PASSWORD"));
    assertThat(env.get("AX_JDBC_URL")).as("migrate: AX_JDBC_URL").startsWith("jdbc:mysql://mysql:");
  }

  @Test
  void everyStageWaitsForTheMigrationToComplete() throws Exception {
    Map<String, JsonNode> stages = stages();
    assertThat(stages).isNotEmpty();
    for (Map.Entry<String, JsonNode> stage : stages.entrySet()) {
      JsonNode dependsOn = stage.getValue().path("depends_on");
      assertThat(dependsOn.isObject())
          .as("%s: depends_on with conditions (not a list)", stage.getKey())
          .isTrue();
      assertThat(dependsOn.path("migrate").path("condition").asText())
          .as("%s: depends on migrate", stage.getKey())
          .isEqualTo("service_completed_successfully");
      assertThat(dependsOn.path("kafka").path("condition").asText())
          .as("%s: depends on kafka", stage.getKey())
          .isEqualTo("service_healthy");
    }
  }

  @Test
  void stagesOnTheDatabaseRunAsTheDmlUserWithoutMigrating() throws Exception {
    String appUser = appUser();
    assertThat(appUser)
        .as("the stages' user differs from the schema owner")
        .isNotEqualTo(migrateUser());
    Map<String, Boolean> mains = stageMains();
    int onDatabase = 0;
    for (Map.Entry<String, JsonNode> stage : stages().entrySet()) {
      String name = stage.getKey();
      Map<String, String> env = environment(stage.getValue());
      if (mains.get(stageMain(stage.getValue()))) {
        onDatabase++;
        assertThat(env.get("AX_DB_MIGRATE")).as("%s: AX_DB_MIGRATE", name).isEqualTo("false");
        assertThat(env.get("AX_JDBC_USER")).as("%s: AX_JDBC_USER", name).isEqualTo(appUser);
        assertThat(env.get("AX_JDBC_URL"))
            .as("%s: AX_JDBC_URL", name)
            .startsWith("jdbc:mysql://mysql:");
        assertThat(env.get("AX_JDBC_PASSWORD"))
            .as("%s: AX_JDBC_PASSWORD is the stages' password", name)
            .isEqualTo(environment(services().get("mysql")).get("DB_APP_PASSWORD"));
      } else {
        // Kafka alone (StageMain.Needs.KAFKA_ONLY): no database settings, so no password to leak.
        assertThat(env.keySet())
            .as("%s uses Kafka alone: no database settings", name)
            .noneMatch(k -> k.startsWith("AX_JDBC_") || k.equals("AX_DB_MIGRATE"));
      }
    }
    assertThat(onDatabase).as("stages on the database").isGreaterThanOrEqualTo(5);
  }

  @Test
  void theInitScriptGivesTheStagesUserDmlOnlyAndIsMounted() throws Exception {
    JsonNode mysql = services().get("mysql");
    assertThat(mysql).as("a mysql service").isNotNull();
    assertThat(texts(mysql.path("volumes")))
        .as("mysql mounts the init scripts")
        .contains("./mysql/initdb:/docker-entrypoint-initdb.d:ro");
    // Sourced by the image's entrypoint (so it can use docker_process_sql) only when not
    // executable.
    assertThat(Files.isExecutable(USERS_SCRIPT)).as("%s is not executable", USERS_SCRIPT).isFalse();
    String script = Files.readString(USERS_SCRIPT);
    Matcher grant =
        Pattern.compile("GRANT ([A-Z, ]+) ON \\$\\{schema}\\.\\* TO \\$\\{app_user}")
            .matcher(script);
    assertThat(grant.find()).as("the script grants to the stages' user").isTrue();
    assertThat(grant.group(1).trim()).isEqualTo("SELECT, INSERT, UPDATE, DELETE");
    assertThat(grant.find()).as("one grant to the stages' user").isFalse();
    for (String variable :
        List.of("AX_DB_APP_USER", "DB_APP_PASSWORD", "AX_DB_MIGRATE_USER", "DB_MIGRATE_PASSWORD")) {
      assertThat(script).as("the script reads %s", variable).contains("$" + variable);
      assertThat(environment(mysql))
          .as("mysql's environment sets %s", variable)
          .containsKey(variable);
    }
  }

  @Test
  void everyStageHasAHealthcheckOnHealthReady() throws Exception {
    for (Map.Entry<String, JsonNode> stage : stages().entrySet()) {
      String name = stage.getKey();
      String test = String.join(" ", texts(stage.getValue().path("healthcheck").path("test")));
      assertThat(test).as("%s: healthcheck", name).contains("/health/ready");
      // The probe's port is the one the stage binds its endpoint on.
      String bind = environment(stage.getValue()).get("AX_METRICS_BIND");
      assertThat(bind).as("%s: AX_METRICS_BIND", name).isNotNull().startsWith("0.0.0.0:");
      String port = bind.substring(bind.lastIndexOf(':') + 1);
      assertThat(test)
          .as("%s: healthcheck port", name)
          .contains("/dev/tcp/127.0.0.1/" + port + " ");
      assertThat(stage.getValue().path("healthcheck").path("disable").asBoolean())
          .as("%s: healthcheck enabled", name)
          .isFalse();
    }
  }

  @Test
  void twoTickersAndADispatcherThatScales() throws Exception {
    Map<String, JsonNode> tickers = new TreeMap<>();
    for (Map.Entry<String, JsonNode> stage : stages().entrySet()) {
      if (stageMain(stage.getValue()).equals("dev.ax.ticker.TickerMain")) {
        tickers.put(stage.getKey(), stage.getValue());
      }
    }
    assertThat(tickers).as("ticker services").hasSize(2);
    Set<String> ids = new TreeSet<>();
    tickers.values().forEach(t -> ids.add(environment(t).getOrDefault("AX_NODE_ID", "")));
    assertThat(ids).as("the tickers' node ids, distinct").hasSize(2).doesNotContain("");

    JsonNode dispatcher = services().get("dispatcher");
    assertThat(dispatcher).as("a dispatcher service").isNotNull();
    // --scale dispatcher=N: one container name or one host port cannot be shared by replicas, and
    // a fixed node id would name every replica the same (empty: host name and pid).
    assertThat(dispatcher.has("container_name")).as("dispatcher: container_name").isFalse();
    assertThat(dispatcher.has("ports")).as("dispatcher: ports").isFalse();
    assertThat(environment(dispatcher).getOrDefault("AX_NODE_ID", ""))
        .as("dispatcher: AX_NODE_ID")
        .isEmpty();
  }

  @Test
  void onlyTheKafkaClientPortAndGrafanaArePublishedOnLoopbackAndDocumented() throws Exception {
    Map<String, String> published = new TreeMap<>();
    services()
        .forEach(
            (name, service) -> {
              for (JsonNode port : service.path("ports")) {
                String text = port.isObject() ? longSyntax(port) : port.asText();
                assertThat(published.put(name, text)).as("%s: one published port", name).isNull();
              }
              assertThat(service.path("network_mode").asText())
                  .as("%s: network_mode", name)
                  .isNotEqualTo("host");
            });
    assertThat(published).isEqualTo(new TreeMap<>(PUBLISHED));

    // The broker advertises the published listener as localhost, so clients on the host reach it.
    String advertised = environment(services().get("kafka")).get("KAFKA_ADVERTISED_LISTENERS");
    assertThat(advertised).contains("://localhost:9094");

    String readme = Files.readString(COMPOSE.resolve("README.md"));
    for (String port : PUBLISHED.values()) {
      String host = port.substring(0, port.lastIndexOf(':'));
      assertThat(readme).as("compose/README.md documents %s", host).contains(host);
    }
  }

  @Test
  void noPasswordIsALiteral() throws Exception {
    Set<String> variables = new TreeSet<>();
    int passwords = 0;
    for (Map.Entry<String, JsonNode> service : services().entrySet()) {
      for (Map.Entry<String, String> entry : environment(service.getValue()).entrySet()) {
        if (!entry.getKey().toUpperCase(Locale.ROOT).contains("PASSWORD")) {
          continue;
        }
        passwords++;
        Matcher substitution = REQUIRED.matcher(entry.getValue());
        assertThat(substitution.matches())
            .as(
                "%s: %s is a required substitution ${VAR:?message}, not %s",
                service.getKey(), entry.getKey(), entry.getValue())
            .isTrue();
        variables.add(substitution.group(1));
      }
    }
    assertThat(passwords).as("password settings").isGreaterThanOrEqualTo(5);
    // Each is in the example, which sets none; the real file stays out of git.
    Map<String, String> example = example();
    assertThat(example.keySet()).containsAll(variables);
    example.forEach(
        (key, value) -> {
          if (key.contains("PASSWORD")) {
            assertThat(value).as(".env.example: %s is empty", key).isEmpty();
          }
        });
    assertThat(Files.readAllLines(ROOT.resolve(".gitignore"))).contains("/compose/.env");
  }

  @Test
  void prometheusScrapesTheStageServicesByName() throws Exception {
    JsonNode prometheus =
        new YAMLMapper()
            .readTree(COMPOSE.resolve(Path.of("prometheus", "prometheus.yml")).toFile());
    Set<String> scraped = new TreeSet<>();
    for (JsonNode job : prometheus.path("scrape_configs")) {
      for (JsonNode config : job.path("static_configs")) {
        for (String target : texts(config.path("targets"))) {
          scraped.add(target);
        }
      }
      for (JsonNode config : job.path("dns_sd_configs")) {
        for (String name : texts(config.path("names"))) {
          scraped.add(name + ":" + config.path("port").asText());
        }
      }
    }
    Set<String> expected = new TreeSet<>();
    stages()
        .forEach(
            (name, stage) -> {
              String bind = environment(stage).get("AX_METRICS_BIND");
              expected.add(name + ":" + bind.substring(bind.lastIndexOf(':') + 1));
            });
    assertThat(scraped).isEqualTo(expected);
  }

  @Test
  void staysReadableByDockerCompose129() throws Exception {
    JsonNode root = root();
    // A top-level name and inline config content are Compose v2 only.
    assertThat(root.has("name")).as("top-level name").isFalse();
    for (JsonNode config : root.path("configs")) {
      assertThat(config.has("content")).as("configs.content").isFalse();
    }
  }

  // ---- the file --------------------------------------------------------------------------------

  private static JsonNode root() throws IOException {
    try (YAMLParser parser = new YAMLFactory().createParser(FILE.toFile())) {
      assertThat(parser.nextToken()).as("%s: a document", FILE).isNotNull();
      return yaml(parser, new HashMap<>());
    }
  }

  /**
   * The YAML value at the parser's token as Compose reads it: an alias is a copy of its anchor's
   * value, and a merge key ({@code <<: *a} or {@code <<: [*a, *b]}) adds the keys of the mappings
   * it names that the mapping does not set itself, earlier ones first. (Jackson's own anchor replay
   * loses a merge inside an anchored mapping.)
   */
  private static JsonNode yaml(YAMLParser parser, Map<String, JsonNode> anchors)
      throws IOException {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    if (parser.isCurrentAlias()) {
      JsonNode value = anchors.get(parser.getText());
      assertThat(value).as("anchor &%s defined before *%1$s", parser.getText()).isNotNull();
      return value.deepCopy();
    }
    String anchor = parser.getObjectId();
    JsonToken token = parser.currentToken();
    JsonNode node;
    if (token == JsonToken.START_OBJECT) {
      ObjectNode own = nodes.objectNode();
      List<JsonNode> merged = new ArrayList<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String key = parser.currentName();
        parser.nextToken();
        JsonNode value = yaml(parser, anchors);
        if (key.equals("<<")) {
          if (value.isArray()) {
            value.forEach(merged::add);
          } else {
            merged.add(value);
          }
        } else {
          own.set(key, value);
        }
      }
      ObjectNode object = nodes.objectNode();
      for (int i = merged.size() - 1; i >= 0; i--) {
        assertThat(merged.get(i).isObject()).as("<< names a mapping").isTrue();
        object.setAll((ObjectNode) merged.get(i));
      }
      object.setAll(own);
      node = object;
    } else if (token == JsonToken.START_ARRAY) {
      ArrayNode array = nodes.arrayNode();
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        array.add(yaml(parser, anchors));
      }
      node = array;
    } else if (token == JsonToken.VALUE_NUMBER_INT) {
      node = nodes.numberNode(parser.getBigIntegerValue());
    } else if (token == JsonToken.VALUE_NUMBER_FLOAT) {
      node = nodes.numberNode(parser.getDecimalValue());
    } else if (token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE) {
      node = nodes.booleanNode(token == JsonToken.VALUE_TRUE);
    } else if (token == JsonToken.VALUE_NULL) {
      node = nodes.nullNode();
    } else {
      assertThat(token).as("a scalar").isEqualTo(JsonToken.VALUE_STRING);
      node = nodes.textNode(parser.getText());
    }
    if (anchor != null) {
      anchors.put(anchor, node);
    }
    return node;
  }

  private static Map<String, JsonNode> services() throws IOException {
    Map<String, JsonNode> services = new LinkedHashMap<>();
    root().path("services").properties().forEach(e -> services.put(e.getKey(), e.getValue()));
    assertThat(services).as("services").isNotEmpty();
    return services;
  }

  private static Set<String> names(JsonNode object) {
    Set<String> names = new TreeSet<>();
    object.properties().forEach(e -> names.add(e.getKey()));
    return names;
  }

  /** The services that run a stage main class, by name. */
  private static Map<String, JsonNode> stages() throws IOException {
    Set<String> mains = stageMains().keySet();
    Map<String, JsonNode> stages = new TreeMap<>();
    services()
        .forEach(
            (name, service) -> {
              if (command(service).stream().anyMatch(mains::contains)) {
                stages.put(name, service);
              }
            });
    return stages;
  }

  /** The stage main class a stage service runs. */
  private static String stageMain(JsonNode service) throws IOException {
    Set<String> mains = stageMains().keySet();
    return command(service).stream().filter(mains::contains).findFirst().orElseThrow();
  }

  private static List<String> command(JsonNode service) {
    JsonNode command = service.path("command");
    if (command.isTextual()) {
      return List.of(command.asText().trim().split("\\s+"));
    }
    return texts(command);
  }

  /** A service's environment, in the map or the list ({@code KEY=value}) form. */
  private static Map<String, String> environment(JsonNode service) {
    Map<String, String> env = new LinkedHashMap<>();
    JsonNode environment = service.path("environment");
    if (environment.isArray()) {
      for (String entry : texts(environment)) {
        int eq = entry.indexOf('=');
        env.put(eq < 0 ? entry : entry.substring(0, eq), eq < 0 ? "" : entry.substring(eq + 1));
      }
    } else {
      environment
          .properties()
          .forEach(e -> env.put(e.getKey(), e.getValue().isNull() ? "" : e.getValue().asText()));
    }
    return env;
  }

  /** The items of a sequence as text; a plain string (such as a shell-form test) is one item. */
  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    if (array.isValueNode()) {
      texts.add(array.asText());
    }
    array.forEach(n -> texts.add(n.asText()));
    return texts;
  }

  /** A port in Compose's long syntax (as {@code config} of Compose v2 prints it) as a short one. */
  private static String longSyntax(JsonNode port) {
    String hostIp = port.path("host_ip").asText("");
    return (hostIp.isEmpty() ? "" : hostIp + ":")
        + port.path("published").asText()
        + ":"
        + port.path("target").asText();
  }

  private static String migrateUser() throws IOException {
    return environment(services().get("mysql")).get("AX_DB_MIGRATE_USER");
  }

  private static String appUser() throws IOException {
    return environment(services().get("mysql")).get("AX_DB_APP_USER");
  }

  /**
   * The stage main classes of the project, each with whether it needs the database: every {@code
   * *Main.java} under an {@code ax-*} module's {@code src/main/java} that declares {@code public
   * static void main} and runs through {@code StageMain} (the command line, {@code AxCli}, is not
   * one: it is no {@code *Main}; nor is the bench's peer, which runs no stage).
   */
  private static Map<String, Boolean> stageMains() throws IOException {
    Pattern pkg = Pattern.compile("(?m)^package ([\\w.]+);");
    Map<String, Boolean> mains = new TreeMap<>();
    List<Path> modules;
    try (Stream<Path> list = Files.list(ROOT)) {
      modules = list.filter(p -> p.getFileName().toString().startsWith("ax-")).toList();
    }
    for (Path module : modules) {
      Path sources = module.resolve(Path.of("src", "main", "java"));
      if (!Files.isDirectory(sources)) {
        continue;
      }
      List<Path> files;
      try (Stream<Path> walk = Files.walk(sources)) {
        files = walk.filter(p -> p.getFileName().toString().endsWith("Main.java")).toList();
      }
      for (Path file : files) {
        String source = Files.readString(file);
        if (!source.contains("public static void main(") || !source.contains("StageMain")) {
          continue; // not a stage's (the bench's peer has a main of its own)
        }
        Matcher matcher = pkg.matcher(source);
        assertThat(matcher.find()).as("%s: package", file).isTrue();
        String simple = file.getFileName().toString().replaceFirst("\\.java$", "");
        String name = matcher.group(1) + "." + simple;
        if (!name.equals(CLI)) {
          mains.put(name, !source.contains("Needs.KAFKA_ONLY"));
        }
      }
    }
    return mains;
  }

  // ---- the env file ----------------------------------------------------------------------------

  /** compose/.env.example's variables, in order. */
  private static Map<String, String> example() throws IOException {
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : Files.readAllLines(ENV_EXAMPLE)) {
      String trimmed = line.trim();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      int eq = trimmed.indexOf('=');
      assertThat(eq).as(".env.example: %s is KEY=value", line).isPositive();
      values.put(trimmed.substring(0, eq), trimmed.substring(eq + 1));
    }
    assertThat(values).as(".env.example's variables").isNotEmpty();
    return values;
  }

  /** The example with a value of its own in every empty variable (what a user does). */
  private static Map<String, String> filledExample() throws IOException {
    Map<String, String> filled = new LinkedHashMap<>();
    example().forEach((k, v) -> filled.put(k, v.isEmpty() ? "test-" + k.toLowerCase() : v));
    return filled;
  }

  /** {@code value} with its {@code ${VAR...}} substitutions made from {@code env}. */
  private static String substitute(String value, Map<String, String> env) {
    Matcher matcher = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)[^}]*}").matcher(value);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String replacement = env.get(matcher.group(1));
      assertThat(replacement).as("%s is set in the env file", matcher.group(1)).isNotNull();
      matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    matcher.appendTail(out);
    return out.toString();
  }

  // ---- Compose ---------------------------------------------------------------------------------

  private record Result(int exitCode, String output) {}

  /** {@code docker compose} (v2, which needs no engine for config), else {@code docker-compose}. */
  private static Optional<List<String>> composeTool() throws Exception {
    Optional<Path> docker = ExternalTool.onPath("docker");
    if (docker.isPresent()) {
      List<String> v2 = List.of(docker.get().toString(), "compose");
      if (execute(concat(v2, "version"), ROOT, Map.of()).exitCode == 0) {
        return Optional.of(v2);
      }
    }
    return ExternalTool.onPath("docker-compose").map(p -> List.of(p.toString()));
  }

  /**
   * {@code compose} on the file from the repository root, with {@code envFile} and nothing else.
   */
  private static Result run(List<String> compose, Path envFile, String... args) throws Exception {
    List<String> command = new ArrayList<>(compose);
    command.addAll(
        List.of(
            "--env-file",
            envFile.toAbsolutePath().toString(),
            "-p",
            "ax",
            "-f",
            "compose/docker-compose.yml"));
    command.addAll(List.of(args));
    // The test's own environment must not set what the env file is there to set.
    return execute(command, ROOT, example());
  }

  private static Result execute(List<String> command, Path dir, Map<String, String> unset)
      throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.environment().keySet().removeAll(unset.keySet());
    builder.environment().keySet().removeIf(k -> k.startsWith("COMPOSE_"));
    builder.redirectErrorStream(true);
    Process process = builder.start();
    process.getOutputStream().close();
    // Read while it runs: `config` prints more than a pipe holds.
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("%s ends", command).isTrue();
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }

  private static List<String> concat(List<String> head, String... tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(tail));
    return all;
  }
}
