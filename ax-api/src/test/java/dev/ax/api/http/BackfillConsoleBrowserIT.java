package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ax.api.kafka.CommandSender;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.BackfillStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A cron task's page in the console (chromium, headless): a backfill requested from its form shows
 * with its firings and RUNNING, and is cancelled from its row; the database has it CANCELLED.
 * Skipped where chromium or chromedriver is not installed, as {@link ConsoleBrowserIT} is.
 */
@ExtendWith(AxInfraExtension.class)
class BackfillConsoleBrowserIT {

  @RegisterExtension final StoreFixture store;

  private final CommandSender sender;
  private ApiServer api;
  private ConsolePage page;

  BackfillConsoleBrowserIT(AxTestEnv env) {
    store = StoreFixture.open(env);
    sender = CommandSender.open(store.runtime().kafka(), "backfill-console-test");
  }

  @AfterEach
  void stop() {
    if (page != null) {
      page.close();
    }
    if (api != null) {
      api.close();
    }
    sender.close();
  }

  @Test
  void aBackfillIsRequestedAndCancelledFromTheTasksPage() throws Exception {
    assumeTrue(
        ConsolePage.available(),
        "BackfillConsoleBrowserIT skipped: Debian's chromium and chromium-driver are not installed");
    long now = System.currentTimeMillis();
    store
        .tasks()
        .create(
            List.of(
                new NewTask(
                    TestTasks.noop("tick", new Trigger.Cron("* * * * * ?", ZoneOffset.UTC)),
                    "trace-tick",
                    now + 1000)),
            "test",
            now);
    api =
        ApiServer.start(
            new ApiSettings("127.0.0.1", 0, Optional.of(ApiFixtures.tokens()), 64 * 1024, 200),
            ApiFixtures.backends(store, sender, null, List.of()));
    String base = "http://127.0.0.1:" + api.port();
    page = ConsolePage.open(base, Path.of("target", "console-screenshots"));
    WebDriver browser = page.browser();
    browser.get(base + "/console/#/task/tick");
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.visibilityOfElementLocated(By.name("token")))
        .sendKeys(ApiFixtures.OPERATOR);
    browser.findElement(By.cssSelector("#token-form button")).click();
    page.awaitPage("/task/tick");
    assertThat(page.text(By.id("backfills"))).contains("No backfills.");

    Instant to = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(60);
    browser.findElement(By.name("from")).sendKeys(to.minusSeconds(9).toString());
    browser.findElement(By.name("to")).sendKeys(to.toString());
    page.act("Backfill", "lost minute");
    assertThat(page.awaitMessage()).contains("Backfill: backfill bf-").contains("10 firing(s)");
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(ExpectedConditions.textToBePresentInElementLocated(By.id("backfills"), "RUNNING"));
    page.shoot("task-backfills");

    page.act("Cancel backfill", "enough");
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("message"), "cancelled after 0 firing(s)"));
    List<BackfillStore.Backfill> backfills =
        new BackfillStore(store.runtime().dataSource()).ofTask("tick", 10);
    assertThat(backfills).hasSize(1);
    assertThat(backfills.get(0).state()).isEqualTo(BackfillStore.State.CANCELLED);
    assertThat(backfills.get(0).requestedBy()).isEqualTo("olga");
  }
}
