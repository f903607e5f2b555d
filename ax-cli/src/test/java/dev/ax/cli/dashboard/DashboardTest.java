package dev.ax.cli.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.common.testing.ExternalTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard that ships ({@code compose/grafana/dashboards/ax.json}) loads: it has the
 * structure Grafana's dashboard schema requires (title, uid, numeric schemaVersion, panels with
 * unique numeric ids, known types and integer grid positions on the 24-column grid, none
 * overlapping), every query panel has targets with an expression and unique refIds on the {@code
 * datasource} variable, and the {@code datasource} and {@code node} variables exist. Every metric a
 * query reads is one docs/METRICS.md documents (so MetricsIT holds it to a real scrape), the four
 * classes of the observability issue have their panels (throughput, end-to-end lateness, backlog,
 * clock, leader, consumer lag), and every query parses as PromQL, by promtool itself (Debian's
 * {@code prometheus} package; skipped where it is absent). The provisioning files of the compose
 * deployment load this dashboard from the folder docker-compose.yml mounts, with the datasource uid
 * the dashboard selects.
 */
class DashboardTest {

  private static final Path COMPOSE = Path.of("..", "compose");
  private static final Path DASHBOARD =
      COMPOSE.resolve(Path.of("grafana", "dashboards", "ax.json"));
  private static final Path PROVISIONING = COMPOSE.resolve(Path.of("grafana", "provisioning"));

  /** Panel types this dashboard may use: Grafana's core panels, no plugin to install. */
  private static final Set<String> TYPES =
      Set.of("row", "timeseries", "stat", "gauge", "heatmap", "table", "bargauge", "text");

  private static final Pattern METRIC =
      Pattern.compile("\\b(ax_[a-z0-9_]+|kafka_[a-z0-9_]+|jvm_[a-z0-9_]+|process_[a-z0-9_]+)");

  /** A panel must read each: the classes of the issue (counts, latency, backlog, process). */
  private static final List<String> SUBJECTS =
      List.of(
          "ax_dispatcher_succeeded_total",
          "ax_dispatcher_start_lateness_ms_bucket",
          "ax_backlog_instances",
          "ax_backlog_oldest_due_age_ms",
          "ax_clock_skew_ms",
          "ax_ticker_leader",
          "kafka_consumer_fetch_manager_records_lag_max");

  private static final String DATASOURCE = "${datasource}";

  @Test
  void hasTheTopLevelStructureGrafanasSchemaRequires() throws Exception {
    JsonNode dashboard = dashboard();
    assertThat(dashboard.path("title").isTextual()).as("title is a string").isTrue();
    assertThat(dashboard.path("title").asText()).isEqualTo("AX");
    assertThat(dashboard.path("uid").asText()).isEqualTo("ax-overview");
    assertThat(dashboard.path("schemaVersion").isIntegralNumber())
        .as("schemaVersion is a number")
        .isTrue();
    assertThat(dashboard.path("schemaVersion").asInt()).isBetween(36, 41);
    // A provisioned dashboard is found by uid; a numeric id from an export would clash.
    assertThat(dashboard.path("id").isMissingNode() || dashboard.path("id").isNull())
        .as("top-level id is null")
        .isTrue();
    assertThat(dashboard.path("panels").isArray()).as("panels is an array").isTrue();
    assertThat(panels(dashboard)).hasSizeGreaterThan(10);
    assertThat(dashboard.path("templating").path("list").isArray())
        .as("templating.list is an array")
        .isTrue();
  }

  @Test
  void everyPanelHasAUniqueIdAKnownTypeAndAPlaceOnTheGrid() throws Exception {
    Set<Integer> ids = new HashSet<>();
    for (JsonNode panel : panels(dashboard())) {
      assertThat(panel.isObject()).as("panel %s is an object", panel).isTrue();
      String name = name(panel);
      assertThat(panel.path("id").isIntegralNumber()).as("%s: numeric id", name).isTrue();
      assertThat(ids.add(panel.path("id").asInt())).as("%s: id unique", name).isTrue();
      assertThat(panel.path("type").asText()).as("%s: type", name).isIn(TYPES);
      assertThat(panel.path("title").isTextual()).as("%s: title", name).isTrue();
      JsonNode grid = panel.path("gridPos");
      for (String field : List.of("x", "y", "w", "h")) {
        assertThat(grid.path(field).isIntegralNumber())
            .as("%s: gridPos.%s is an integer", name, field)
            .isTrue();
      }
      int x = grid.path("x").asInt();
      int w = grid.path("w").asInt();
      assertThat(x).as("%s: gridPos.x", name).isGreaterThanOrEqualTo(0);
      assertThat(grid.path("y").asInt()).as("%s: gridPos.y", name).isGreaterThanOrEqualTo(0);
      assertThat(w).as("%s: gridPos.w", name).isPositive();
      assertThat(grid.path("h").asInt()).as("%s: gridPos.h", name).isPositive();
      assertThat(x + w).as("%s: gridPos.x + w (24 columns)", name).isLessThanOrEqualTo(24);
    }
  }

  @Test
  void noTwoPanelsOverlap() throws Exception {
    // The top-level grid: rows (one unit high) and the panels of expanded rows. A collapsed row
    // keeps its panels inside it, off the grid.
    List<JsonNode> grid = new ArrayList<>();
    dashboard().path("panels").forEach(grid::add);
    for (int i = 0; i < grid.size(); i++) {
      for (int j = i + 1; j < grid.size(); j++) {
        JsonNode a = grid.get(i).path("gridPos");
        JsonNode b = grid.get(j).path("gridPos");
        boolean overlap =
            a.path("x").asInt() < b.path("x").asInt() + b.path("w").asInt()
                && b.path("x").asInt() < a.path("x").asInt() + a.path("w").asInt()
                && a.path("y").asInt() < b.path("y").asInt() + b.path("h").asInt()
                && b.path("y").asInt() < a.path("y").asInt() + a.path("h").asInt();
        assertThat(overlap).as("%s overlaps %s", name(grid.get(i)), name(grid.get(j))).isFalse();
      }
    }
  }

  @Test
  void everyQueryPanelHasTargetsOnTheDatasourceVariable() throws Exception {
    int queryPanels = 0;
    for (JsonNode panel : panels(dashboard())) {
      String type = panel.path("type").asText();
      if (type.equals("row") || type.equals("text")) {
        continue;
      }
      queryPanels++;
      String name = name(panel);
      assertThat(panel.path("datasource").path("uid").asText())
          .as("%s: datasource", name)
          .isEqualTo(DATASOURCE);
      JsonNode targets = panel.path("targets");
      assertThat(targets.isArray() && targets.size() > 0).as("%s: has targets", name).isTrue();
      Set<String> refIds = new HashSet<>();
      for (JsonNode target : targets) {
        assertThat(target.path("expr").asText()).as("%s: target expr", name).isNotBlank();
        String refId = target.path("refId").asText();
        assertThat(refId).as("%s: target refId", name).isNotBlank();
        assertThat(refIds.add(refId)).as("%s: refId %s unique", name, refId).isTrue();
        if (target.has("datasource")) {
          assertThat(target.path("datasource").path("uid").asText())
              .as("%s %s: datasource", name, refId)
              .isEqualTo(DATASOURCE);
        }
      }
    }
    assertThat(queryPanels).isGreaterThan(10);
  }

  @Test
  void latencyIsAggregatedOverTheBuckets() throws Exception {
    // docs/METRICS.md: across nodes, histogram_quantile over sum by (le), never one node's own.
    Pattern quantile = Pattern.compile("histogram_quantile\\(\\s*[0-9.]+\\s*,\\s*sum by \\(le\\b");
    boolean startLatenessHeatmap = false;
    for (JsonNode panel : panels(dashboard())) {
      for (Map.Entry<String, String> query : queries(panel).entrySet()) {
        String expr = query.getValue();
        if (expr.contains("histogram_quantile")) {
          assertThat(quantile.matcher(expr).find())
              .as("%s %s: histogram_quantile over sum by (le)", name(panel), query.getKey())
              .isTrue();
        }
      }
      if (panel.path("type").asText().equals("heatmap")) {
        for (JsonNode target : panel.path("targets")) {
          String expr = target.path("expr").asText();
          assertThat(target.path("format").asText())
              .as("%s: heatmap target format", name(panel))
              .isEqualTo("heatmap");
          assertThat(expr).as("%s: heatmap reads buckets by le", name(panel)).contains("_bucket");
          assertThat(expr).contains("sum by (le)");
          startLatenessHeatmap |= expr.contains("ax_dispatcher_start_lateness_ms_bucket");
        }
      }
    }
    assertThat(startLatenessHeatmap).as("a heatmap of the end-to-end start lateness").isTrue();
  }

  @Test
  void theDatasourceAndNodeVariablesExist() throws Exception {
    JsonNode dashboard = dashboard();
    Map<String, JsonNode> variables = new LinkedHashMap<>();
    dashboard
        .path("templating")
        .path("list")
        .forEach(v -> variables.put(v.path("name").asText(), v));
    assertThat(variables).containsKeys("datasource", "node");

    JsonNode datasource = variables.get("datasource");
    assertThat(datasource.path("type").asText()).isEqualTo("datasource");
    assertThat(datasource.path("query").asText()).isEqualTo("prometheus");

    JsonNode node = variables.get("node");
    assertThat(node.path("type").asText()).isEqualTo("query");
    assertThat(node.path("datasource").path("uid").asText()).isEqualTo(DATASOURCE);
    assertThat(variableQuery(node)).isEqualTo("label_values(process_uptime_seconds, node)");
    assertThat(node.path("multi").asBoolean()).as("node: multi").isTrue();
    assertThat(node.path("includeAll").asBoolean()).as("node: include all").isTrue();
    // All must match every node, also those without ax_clock_stable (the resolver has no database).
    assertThat(node.path("allValue").asText()).isEqualTo(".*");

    // Every variable a query uses is defined ($__ names are Grafana's own).
    Pattern use = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)");
    for (JsonNode panel : panels(dashboard)) {
      for (String expr : queries(panel).values()) {
        Matcher matcher = use.matcher(expr);
        while (matcher.find()) {
          String variable = matcher.group(1);
          if (!variable.startsWith("__")) {
            assertThat(variables)
                .as("%s: $%s defined", name(panel), variable)
                .containsKey(variable);
          }
        }
      }
    }
  }

  @Test
  void everyMetricAQueryReadsIsDocumented() throws Exception {
    JsonNode dashboard = dashboard();
    String documented = Files.readString(Path.of("..", "docs", "METRICS.md"));
    List<String> exprs = new ArrayList<>();
    for (JsonNode panel : panels(dashboard)) {
      exprs.addAll(queries(panel).values());
    }
    dashboard.path("templating").path("list").forEach(v -> exprs.add(variableQuery(v)));
    Set<String> read = new TreeSet<>();
    for (String expr : exprs) {
      Matcher metric = METRIC.matcher(expr);
      while (metric.find()) {
        read.add(metric.group(1).replaceFirst("_(bucket|count|sum)$", ""));
      }
    }
    assertThat(read).hasSizeGreaterThan(20);
    List<String> missing = new ArrayList<>();
    for (String name : read) {
      if (!documented.contains("`" + name + "`")) {
        missing.add(name);
      }
    }
    assertThat(missing).as("metrics the dashboard reads but docs/METRICS.md lacks").isEmpty();
  }

  @Test
  void theFourClassesHaveTheirPanels() throws Exception {
    List<JsonNode> panels = panels(dashboard());
    for (String subject : SUBJECTS) {
      Pattern reads = Pattern.compile("\\b" + Pattern.quote(subject) + "\\b");
      boolean found = false;
      for (JsonNode panel : panels) {
        for (String expr : queries(panel).values()) {
          found |= reads.matcher(expr).find();
        }
      }
      assertThat(found).as("a panel reads %s", subject).isTrue();
    }
  }

  @Test
  void promtoolParsesEveryQuery(@TempDir Path dir) throws Exception {
    Optional<Path> promtool = ExternalTool.onPath("promtool");
    assumeTrue(
        promtool.isPresent(),
        "promtool not found on PATH (Debian package prometheus): dashboard queries not parsed");
    // Each query as a recording rule, Grafana's variables replaced by what they expand to.
    StringBuilder rules = new StringBuilder("groups:\n  - name: ax-dashboard\n    rules:\n");
    int count = 0;
    for (JsonNode panel : panels(dashboard())) {
      for (Map.Entry<String, String> query : queries(panel).entrySet()) {
        String expr =
            query
                .getValue()
                .replace("$__rate_interval", "5m")
                .replace("$__interval", "1m")
                .replace("${node}", ".*")
                .replace("$node", ".*");
        assertThat(expr)
            .as("%s %s: variables replaced", name(panel), query.getKey())
            .doesNotContain("$");
        rules
            .append("      - record: dashboard:panel_")
            .append(panel.path("id").asInt())
            .append(':')
            .append(query.getKey())
            .append("\n        expr: |-\n");
        for (String line : expr.split("\n", -1)) {
          rules.append("          ").append(line).append('\n');
        }
        count++;
      }
    }
    Path file = dir.resolve("dashboard-queries.yml");
    Files.writeString(file, rules.toString());
    ExternalTool.Result result =
        ExternalTool.run(dir, promtool.get(), "check", "rules", file.toString());
    String output = result.output();
    assertThat(result.exitCode()).as("promtool check rules:%n%s%n%s", output, rules).isZero();
    assertThat(output).contains("SUCCESS: " + count + " rules found");
  }

  @Test
  void provisioningLoadsThisDashboardWithItsDatasource() throws Exception {
    String datasources =
        Files.readString(PROVISIONING.resolve(Path.of("datasources", "prometheus.yml")));
    String providers = Files.readString(PROVISIONING.resolve(Path.of("dashboards", "ax.yml")));
    String compose = Files.readString(COMPOSE.resolve("docker-compose.yml"));

    // The datasource the dashboard's variable selects by default is the provisioned one.
    JsonNode variable = null;
    for (JsonNode v : dashboard().path("templating").path("list")) {
      if (v.path("name").asText().equals("datasource")) {
        variable = v;
      }
    }
    assertThat(variable).as("datasource variable").isNotNull();
    assertThat(value(datasources, "uid"))
        .isEqualTo(variable.path("current").path("value").asText());
    assertThat(value(datasources, "type")).isEqualTo("prometheus");
    assertThat(value(datasources, "url")).isEqualTo("http://prometheus:9090");
    assertThat(compose).as("a prometheus service").containsPattern("(?m)^  prometheus:$");

    // The provider reads the folder compose mounts compose/grafana/dashboards at.
    assertThat(value(providers, "type")).isEqualTo("file");
    String folder = value(providers, "path");
    for (String mount :
        List.of(
            "./grafana/dashboards:" + folder,
            "./grafana/provisioning/dashboards:/etc/grafana/provisioning/dashboards",
            "./grafana/provisioning/datasources:/etc/grafana/provisioning/datasources")) {
      assertThat(compose.contains("- " + mount + ":ro"))
          .as("docker-compose.yml mounts %s read-only", mount)
          .isTrue();
    }
    Matcher home =
        Pattern.compile("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH: (\\S+)").matcher(compose);
    if (home.find()) {
      assertThat(home.group(1)).isEqualTo(folder + "/" + DASHBOARD.getFileName());
    }
  }

  private static JsonNode dashboard() throws Exception {
    return new ObjectMapper().readTree(DASHBOARD.toFile());
  }

  /** Every panel, those inside a collapsed row included. */
  private static List<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> all = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      all.add(panel);
      panel.path("panels").forEach(all::add);
    }
    return all;
  }

  /** A panel's queries by refId. */
  private static Map<String, String> queries(JsonNode panel) {
    Map<String, String> queries = new LinkedHashMap<>();
    for (JsonNode target : panel.path("targets")) {
      queries.put(target.path("refId").asText(), target.path("expr").asText());
    }
    return queries;
  }

  private static String variableQuery(JsonNode variable) {
    JsonNode query = variable.path("query");
    return query.isObject() ? query.path("query").asText() : query.asText();
  }

  private static String name(JsonNode panel) {
    return "panel " + panel.path("id") + " (" + panel.path("title").asText() + ")";
  }

  /** The value of the first {@code key: value} line of a small YAML file. */
  private static String value(String yaml, String key) {
    Matcher matcher =
        Pattern.compile("(?m)^[\\s-]*" + Pattern.quote(key) + ":\\s*(\\S+)\\s*(#.*)?$")
            .matcher(yaml);
    assertThat(matcher.find()).as("%s: in%n%s", key, yaml).isTrue();
    return matcher.group(1);
  }
}
