package dev.ax.api.http;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.openqa.selenium.By;
import org.openqa.selenium.ElementNotInteractableException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in Debian's chromium, headless, driven by its chromedriver, for the browser tests
 * (here and in ax-systemtest): open a page and wait until the console has loaded it, act with a
 * reason, read the answer, take a screenshot. Not thread-safe: one test's thread drives it.
 */
public final class ConsolePage implements AutoCloseable {

  public static final String CHROMIUM = "/usr/bin/chromium";
  public static final String CHROMEDRIVER = "/usr/bin/chromedriver";

  /** Every wait for the page: generous, as a browser on a busy two-core machine is slow. */
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final WebDriver browser;
  private final String base;
  private final Path shots;

  private ConsolePage(WebDriver browser, String base, Path shots) {
    this.browser = browser;
    this.base = base;
    this.shots = shots;
  }

  /** True when chromium and chromedriver are installed where Debian puts them. */
  public static boolean available() {
    return new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute();
  }

  /**
   * A browser at 1,280 × 900 on the console of {@code base} ({@code http://127.0.0.1:<port>}),
   * saving screenshots in {@code shots}.
   */
  public static ConsolePage open(String base, Path shots) {
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
    return new ConsolePage(new ChromeDriver(service, options), base, shots);
  }

  public WebDriver browser() {
    return browser;
  }

  /** Opens {@code hash} (e.g. {@code /tasks}) and waits until the console has loaded it. */
  public void show(String hash) {
    browser.get(base + "/console/#" + hash);
    awaitPage(hash);
  }

  /** Waits until the console says it has loaded {@code hash}. */
  public void awaitPage(String hash) {
    new WebDriverWait(browser, WAIT)
        .until(ExpectedConditions.attributeToBe(By.tagName("body"), "data-loaded", hash));
  }

  /**
   * Types {@code reason} into the action's own reason field and presses its button {@code label}.
   */
  public void act(String label, String reason) {
    // The page may redraw itself meanwhile (an earlier action re-reads it 0.7 s later): on a
    // stale element, or one of the page being replaced (not interactable), find both again and
    // repeat; a click either happens or fails as stale.
    new WebDriverWait(browser, WAIT)
        .ignoring(StaleElementReferenceException.class)
        .ignoring(ElementNotInteractableException.class)
        .until(
            d -> {
              WebElement button =
                  d.findElement(By.cssSelector("button[data-action='" + label + "']"));
              WebElement field =
                  button.findElement(By.xpath("./parent::div/input[@name='reason']"));
              field.clear();
              field.sendKeys(reason);
              button.click();
              return true;
            });
  }

  /** The console's answer to the last action, once it shows one. */
  public String awaitMessage() {
    return new WebDriverWait(browser, WAIT)
        .ignoring(StaleElementReferenceException.class)
        .until(
            d -> {
              String text = d.findElement(By.id("message")).getText();
              return text.isBlank() ? null : text;
            });
  }

  /** Waits until the page, re-read after an action, shows {@code text} in its heading. */
  public void awaitHeading(String text) {
    new WebDriverWait(browser, WAIT)
        .until(ExpectedConditions.textToBePresentInElementLocated(By.tagName("h1"), text));
  }

  /**
   * The visible text of {@code by}, once it is visible. Found and read in one step, again if the
   * page redrew it in between (the overview redraws itself every 2 s).
   */
  public String text(By by) {
    return new WebDriverWait(browser, WAIT)
        .ignoring(StaleElementReferenceException.class)
        .until(
            d -> {
              WebElement element = d.findElement(by);
              return element.isDisplayed() ? element.getText() : null;
            });
  }

  /** Saves a screenshot as {@code <shots>/<name>.png}. */
  public void shoot(String name) throws java.io.IOException {
    Files.createDirectories(shots);
    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(shot.toPath(), shots.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

  @Override
  public void close() {
    browser.quit();
  }
}
