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
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
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

  private static final String CHROMIUM = "/usr/bin/chromium";
  private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
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
  private WebDriver browser;

  ConsoleBrowserIT(AxTestEnv env) {
    this.env = env;
    store = StoreFixture.open(env);
    sender = CommandSender.open(store.runtime().kafka(), "console-test");
    producer = KafkaClients.producer(store.runtime().kafka(), "console-test-replay");
  }

  @AfterEach
  void stop() {
    if (browser != null) {
      browser.quit();
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
  void anOperatorSeesTasksAndRunsPausesATaskAndReplaysADeadLetterAReaderCannotAct()
      throws Exception {
    assumeTrue(
        new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute(),
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
    browser = chromium();
    String base = "http://127.0.0.1:" + api.port();

    browser.get(base + "/");
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.visibilityOfElementLocated(By.name("token")))
        .sendKeys(OPERATOR);
    browser.findElement(By.cssSelector("#token-form button")).click();
    awaitPage("/");
    assertThat(text(By.id("cards")))
        .contains("active tasks")
        .contains("open dead letters")
        .contains("ticker epoch (1 leader)");
    // The overview reads the summary every 2 s: from the third read on, a line of two rates.
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(
            d ->
                d
                    .findElements(
                        By.cssSelector("#throughput-chart polyline[data-series='succeeded']"))
                    .stream()
                    .anyMatch(line -> line.getAttribute("points").contains(" ")));
    assertThat(text(By.id("lateness"))).contains("start: p50 10 ms, p99 50 ms");
    shoot("overview");

    open(base, "/tasks");
    assertThat(text(By.tagName("table"))).contains("report-1", "report-2", "flaky-1");
    assertThat(text(By.tagName("main"))).contains("6 task(s) match");
    // The dead letter's task: one run, failed, in the failures column.
    assertThat(browser.findElement(By.xpath("//tr[td/a[text()='flaky-1']]/td[10]")).getText())
        .isEqualTo("1");
    shoot("tasks");

    open(base, "/task/report-1");
    assertThat(text(By.tagName("table"))).contains("report-1@", "SCHEDULED");
    act("Pause", "maintenance window");
    assertThat(awaitMessage()).contains("Pause: sent, command ax-");
    shoot("task");
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
    awaitHeading("PAUSED");
    act("Resume", "window over");
    awaitState("report-1", TaskState.ACTIVE);
    awaitHeading("ACTIVE");
    act("Cancel", "report withdrawn");
    awaitState("report-1", TaskState.CANCELLED);
    assertThat(store.instances().latestOfTask("report-1", 1).get(0).status())
        .isEqualTo(InstanceStatus.CANCELLED);

    open(base, "/flow/" + flowRunId);
    List<WebElement> nodes = browser.findElements(By.cssSelector("#dag g.node"));
    assertThat(nodes)
        .extracting(n -> n.getAttribute("data-task") + ":" + n.getAttribute("data-status"))
        .containsExactlyInAnyOrder("extract:SUCCESS", "load:WAITING", "report:WAITING");
    assertThat(browser.findElements(By.cssSelector("#dag line"))).hasSize(3);
    assertThat(text(By.tagName("main"))).contains("Waiting: report on load");
    shoot("flow");

    open(base, "/deadletter/" + letter);
    assertThat(text(By.tagName("main"))).contains("at Worker.run").contains("****");
    act("Replay", "endpoint fixed");
    assertThat(awaitMessage()).contains("Replay: replayed");
    assertThat(new DeadLetterStore(store.runtime().dataSource()).find(letter).orElseThrow().state())
        .isEqualTo(DeadLetterState.REPLAYED);
    shoot("deadletter");

    ((JavascriptExecutor) browser)
        .executeScript("sessionStorage.setItem('ax.token', arguments[0])", READER);
    open(base, "/task/report-2");
    act("Pause", "just looking");
    assertThat(awaitMessage()).contains("forbidden").contains("rita has the read role only");
    assertThat(new OperatorLog(store.runtime().dataSource()).newest("rita", 10)).isEmpty();
  }

  private void awaitState(String taskId, TaskState state) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> store.tasks().find(taskId).orElseThrow().state() == state);
  }

  /** Waits until the page, re-read after an action, shows {@code text} in its heading. */
  private void awaitHeading(String text) {
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.textToBePresentInElementLocated(By.tagName("h1"), text));
  }

  private WebDriver chromium() {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,900");
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER)).build();
    return new ChromeDriver(service, options);
  }

  /** Opens {@code hash} and waits until the console has loaded it. */
  private void open(String base, String hash) {
    browser.get(base + "/console/#" + hash);
    awaitPage(hash);
  }

  private void awaitPage(String hash) {
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.attributeToBe(By.tagName("body"), "data-loaded", hash));
  }

  /** Types {@code reason} and presses the action button {@code label}. */
  private void act(String label, String reason) {
    WebElement field = browser.findElement(By.name("reason"));
    field.clear();
    field.sendKeys(reason);
    browser.findElement(By.cssSelector("button[data-action='" + label + "']")).click();
  }

  private String awaitMessage() {
    return new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(
            d -> {
              String text = d.findElement(By.id("message")).getText();
              return text.isBlank() ? null : text;
            });
  }

  private String text(By by) {
    return new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.visibilityOfElementLocated(by))
        .getText();
  }

  private void shoot(String name) throws Exception {
    Files.createDirectories(SHOTS);
    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(shot.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }
}
