package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.kafka.CommandSender;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.IngestConfig;
import dev.ax.ingest.IngestStage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: Debian's chromium, headless, driven by its chromedriver, against
 * {@code ApiServer} on a real database and broker. A token is asked for and used; the overview, the
 * task list and a task's runs show; a pause from the page is sent (on the command topic and in the
 * audit under the token's name); a dead letter is replayed from its page; a read-only token cannot
 * act. Screenshots go to {@code target/console-screenshots}. Skipped, with one line, where chromium
 * or chromedriver is not installed ({@code .ci/run} installs them as root).
 */
@ExtendWith(AxInfraExtension.class)
class ConsoleBrowserIT {

  private static final String OPERATOR = ApiFixtures.OPERATOR;
  private static final String READER = ApiFixtures.READER;
  private static final Path SHOTS = Path.of("target", "console-screenshots");

  @RegisterExtension final StoreFixture store;

  private final AxTestEnv env;
  private final CommandSender sender;
  private final KafkaProducer<String, byte[]> producer;
  private IngestStage ingest;
  private PrometheusStub metrics;
  private ApiServer api;
  private ConsolePage page;

  ConsoleBrowserIT(AxTestEnv env) {
    this.env = env;
    store = StoreFixture.open(env);
    sender = CommandSender.open(store.runtime().kafka(), "console-test");
    producer = KafkaClients.producer(store.runtime().kafka(), "console-test-replay");
  }

  @AfterEach
  void stop() {
    if (page != null) {
      page.close();
    }
    if (ingest != null) {
      ingest.close();
    }
    if (api != null) {
      api.close();
    }
    if (metrics != null) {
      metrics.close();
    }
    producer.close();
    sender.close();
  }

  @Test
  void aNamespacesTokenSeesItsNamespaceOnly() throws Exception {
    assumeTrue(
        ConsolePage.available(),
        "ConsoleBrowserIT skipped: Debian's chromium and chromium-driver are not installed"
            + " (apt-get install chromium chromium-driver)");
    long now = System.currentTimeMillis();
    new dev.ax.common.store.NamespaceStore(store.runtime().dataSource())
        .create(new dev.ax.common.model.Namespace("billing"), "test", now);
    store
        .tasks()
        .create(
            List.of(
                TestTasks.named(
                    "billing~invoice-1",
                    now + 3_600_000,
                    "Invoice run",
                    "Sends the month's invoices.\nOwner: billing team."),
                TestTasks.newTask("payroll-1", now + 3_600_000)),
            "test",
            now);
    api =
        ApiServer.start(
            new ApiSettings("127.0.0.1", 0, Optional.of(ApiFixtures.tokens()), 64 * 1024, 200),
            ApiFixtures.backends(store, sender, producer, List.of()));
    String base = "http://127.0.0.1:" + api.port();
    page = ConsolePage.open(base, SHOTS);
    WebDriver browser = page.browser();
    browser.get(base + "/console/#/tasks");
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.visibilityOfElementLocated(By.name("token")))
        .sendKeys(ApiFixtures.BILLING);
    browser.findElement(By.cssSelector("#token-form button")).click();
    page.awaitPage("/tasks");
    assertThat(page.text(By.id("namespace"))).isEqualTo("billing");
    assertThat(page.text(By.tagName("main")))
        .contains("billing~invoice-1")
        .doesNotContain("payroll-1");
    page.shoot("namespace-billing");
    page.show("/task/billing~invoice-1");
    assertThat(page.text(By.id("task-name"))).isEqualTo("Invoice run");
    assertThat(page.text(By.id("task-description")))
        .contains("Sends the month's invoices.")
        .contains("Owner: billing team.");
  }

  @Test
  void anOperatorSeesTasksAndRunsPausesATaskAndReplaysADeadLetterAReaderCannotAct()
      throws Exception {
    assumeTrue(
        ConsolePage.available(),
        "ConsoleBrowserIT skipped: Debian's chromium and chromium-driver are not installed"
            + " (apt-get install chromium chromium-driver)");
    long now = System.currentTimeMillis();
    store
        .tasks()
        .create(
            List.of(
                TestTasks.newTask("report-1", now + 3_600_000),
                TestTasks.newTask("report-2", now + 7_200_000)),
            "test",
            now);
    long letter = ApiFixtures.deadLetterOf(store, "flaky-1");
    String flowRunId = ApiFixtures.flowOf(store);
    metrics = PrometheusStub.start();
    ingest =
        new IngestStage(
                store.runtime().context("console-ingest"),
                IngestConfig.from(store.runtime().config()))
            .start();
    api =
        ApiServer.start(
            new ApiSettings("127.0.0.1", 0, Optional.of(ApiFixtures.tokens()), 64 * 1024, 200),
            ApiFixtures.backends(store, sender, producer, List.of(metrics.uri())));
    String base = "http://127.0.0.1:" + api.port();
    page = ConsolePage.open(base, SHOTS);
    WebDriver browser = page.browser();

    browser.get(base + "/");
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.visibilityOfElementLocated(By.name("token")))
        .sendKeys(OPERATOR);
    browser.findElement(By.cssSelector("#token-form button")).click();
    page.awaitPage("/");
    assertThat(page.text(By.id("cards")))
        .contains("active tasks")
        .contains("open dead letters")
        .contains("ticker epoch (1 leader)");
    // The overview reads the summary every 2 s: from the third read on, a line of two rates. Each
    // read redraws the chart, so a line found may be gone when read: look again.
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .ignoring(StaleElementReferenceException.class)
        .until(
            d ->
                d
                    .findElements(
                        By.cssSelector("#throughput-chart polyline[data-series='succeeded']"))
                    .stream()
                    .anyMatch(line -> line.getAttribute("points").contains(" ")));
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .ignoring(StaleElementReferenceException.class)
        .until(
            d ->
                d.findElement(By.cssSelector("#lateness-chart polyline[data-series='start p99']"))
                    .getAttribute("points")
                    .contains(" "));
    assertThat(page.text(By.id("lateness")))
        .contains("start: p50 10 ms, p99 50 ms")
        .contains("run: p50 100 ms, p99 100 ms");
    page.shoot("overview");

    page.show("/tasks");
    assertThat(page.text(By.tagName("table"))).contains("report-1", "report-2", "flaky-1");
    assertThat(page.text(By.tagName("main"))).contains("6 task(s) match");
    // The dead letter's task: one run, failed, in the failures column.
    assertThat(browser.findElement(By.xpath("//tr[td/a[text()='flaky-1']]/td[10]")).getText())
        .isEqualTo("1");
    page.shoot("tasks");

    page.show("/task/report-1");
    assertThat(page.text(By.id("task-runs"))).contains("report-1@", "SCHEDULED");
    assertThat(page.text(By.id("upcoming"))).contains("runs");
    page.act("Pause", "maintenance window");
    assertThat(page.awaitMessage()).contains("Pause: sent, command ax-");
    page.shoot("task");
    try (TopicReader commands =
        new TopicReader(env.bootstrapServers(), store.runtime().topics().commands())) {
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  commands.poll().stream()
                      .anyMatch(
                          r ->
                              new String(r.value())
                                  .contains("\"reason\":\"maintenance window (by olga)\"")));
    }
    assertThat(new OperatorLog(store.runtime().dataSource()).newest("olga", 10))
        .extracting(OperatorLog.Entry::action, OperatorLog.Entry::target)
        .contains(org.assertj.core.groups.Tuple.tuple("task pause", "report-1"));
    // Ingest applies it: the task and its pending run PAUSED, and the page shows so.
    awaitState("report-1", TaskState.PAUSED);
    page.awaitHeading("PAUSED");
    page.act("Resume", "window over");
    awaitState("report-1", TaskState.ACTIVE);
    page.awaitHeading("ACTIVE");
    page.act("Cancel", "report withdrawn");
    awaitState("report-1", TaskState.CANCELLED);
    assertThat(store.instances().latestOfTask("report-1", 1).get(0).status())
        .isEqualTo(InstanceStatus.CANCELLED);

    page.show("/flow/" + flowRunId);
    List<WebElement> nodes = browser.findElements(By.cssSelector("#dag g.node"));
    assertThat(nodes)
        .extracting(n -> n.getAttribute("data-task") + ":" + n.getAttribute("data-status"))
        .containsExactlyInAnyOrder("extract:SUCCESS", "load:WAITING", "report:WAITING");
    assertThat(browser.findElements(By.cssSelector("#dag line"))).hasSize(3);
    assertThat(page.text(By.tagName("main"))).contains("Waiting: report on load");
    page.shoot("flow");

    page.show("/deadletter/" + letter);
    assertThat(page.text(By.tagName("main"))).contains("at Worker.run").contains("****");
    page.act("Replay", "endpoint fixed");
    assertThat(page.awaitMessage()).contains("Replay: replayed");
    assertThat(new DeadLetterStore(store.runtime().dataSource()).find(letter).orElseThrow().state())
        .isEqualTo(DeadLetterState.REPLAYED);
    page.shoot("deadletter");

    // A new version from the spec editor: ingest stores it as version 2.
    page.show("/task/report-2");
    WebElement spec = browser.findElement(By.name("spec"));
    String edited =
        spec.getAttribute("value")
            .replaceFirst("\"timeoutMs\"\\s*:\\s*\\d+", "\"timeoutMs\" : 7000");
    assertThat(edited).contains("\"timeoutMs\" : 7000");
    spec.clear();
    spec.sendKeys(edited);
    page.act("Update", "longer timeout");
    assertThat(page.awaitMessage()).contains("Update: sent, command ax-");
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> store.tasks().find("report-2").orElseThrow().version() == 2);
    assertThat(store.tasks().find("report-2").orElseThrow().spec().timeout())
        .isEqualTo(Duration.ofSeconds(7));

    ((JavascriptExecutor) browser)
        .executeScript("sessionStorage.setItem('ax.token', arguments[0])", READER);
    page.show("/task/report-2");
    page.act("Pause", "just looking");
    assertThat(page.awaitMessage()).contains("forbidden").contains("rita has the read role only");
    assertThat(new OperatorLog(store.runtime().dataSource()).newest("rita", 10)).isEmpty();

    // On a phone: the page fits the screen's width; wide tables scroll within their box.
    browser.manage().window().setSize(new Dimension(390, 844));
    page.show("/tasks");
    Object overflow =
        ((JavascriptExecutor) browser)
            .executeScript(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
    assertThat(((Number) overflow).longValue())
        .as("horizontal overflow at 390 px")
        .isLessThanOrEqualTo(0);
    page.shoot("tasks-phone");
  }

  private void awaitState(String taskId, TaskState state) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> store.tasks().find(taskId).orElseThrow().state() == state);
  }
}
