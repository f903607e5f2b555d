package dev.ax.ticker.load;

import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.StoreException;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.ticker.fire.FiringStore;
import dev.ax.ticker.fire.TickLoop;
import dev.ax.ticker.fire.WheelEntry;
import io.micrometer.core.instrument.Timer;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds the {@link TickLoop} from the database: every load it reads the SCHEDULED instances due
 * before {@code now + horizon} that it has not read yet (a watermark on (due, instance id), the
 * order of the index on status and due time, so no page sorts), in pages. A full load from the
 * beginning, oldest first, runs when this node becomes leader (so overdue work fires at once,
 * oldest first), when the tick loop dropped something, when the announcement reader took its
 * partitions only after the stage started (the broker was away), and every {@code rescanEvery}
 * loads as a safety net for rows created behind the watermark without an announcement.
 *
 * <p>After each page it hands the page's task ids to {@code prefetch}, which reads the specs the
 * firing will need into the ticker's cache: instances created further ahead than ingest announces
 * reach the wheel only through this loader, and without it the firing thread would read their specs
 * itself, batch by batch, on its hot path. The prefetch is best effort (it logs what fails): firing
 * reads what is missing.
 *
 * <p>Each load a leader runs is timed ({@code ax.ticker.window.load}, a percentile histogram in the
 * loop's registry): a load that grows with history delays every instance only it brings to the
 * wheel, and {@code ax bench --history} reads its p99.
 *
 * <p>Threading: {@link #load()} runs on one thread (the ticker's scheduler).
 */
public final class WindowLoader {

  private static final Logger log = LoggerFactory.getLogger(WindowLoader.class);
  private static final int PAGE = 5_000;

  private final FiringStore firings;
  private final Clock clock;
  private final Supplier<Optional<LeaseFence>> leadership;
  private final TickLoop loop;
  private final long horizonMs;
  private final int maxPerLoad;
  private final int rescanEvery;
  private final Consumer<Collection<String>> prefetch;
  private final Timer loadTime;
  private long afterDueMs = Long.MIN_VALUE;
  private String afterInstanceId = "";
  private int loadsSinceFull;

  /**
   * Loads, at most, as many instances as {@code loop} holds, due within its horizon ({@link
   * TickLoop#limits()}).
   */
  public WindowLoader(
      FiringStore firings,
      Clock clock,
      Supplier<Optional<LeaseFence>> leadership,
      TickLoop loop,
      int rescanEvery,
      Consumer<Collection<String>> prefetch) {
    this.firings = firings;
    this.clock = clock;
    this.leadership = leadership;
    this.loop = loop;
    this.horizonMs = loop.limits().horizonMs();
    this.maxPerLoad = loop.limits().maxPending();
    this.rescanEvery = rescanEvery;
    this.prefetch = prefetch;
    this.loadTime =
        Timer.builder("ax.ticker.window.load")
            .description("one window load of the leader: its pages and their spec prefetch")
            .publishPercentileHistogram()
            .register(loop.meters());
  }

  public void load() {
    Optional<LeaseFence> fence = leadership.get();
    if (fence.isEmpty() || loop.ledEpoch() != fence.get().epoch()) {
      // Not leading, or the loop has not taken up this epoch yet: when it does, it clears what
      // was handed over before, so entries offered now could be dropped while later ones of the
      // same load fire, and overdue instances would not fire oldest first. The next load runs
      // once the loop leads at this epoch.
      return;
    }
    long startNs = System.nanoTime();
    try {
      loadWindow();
    } finally {
      loadTime.record(System.nanoTime() - startNs, TimeUnit.NANOSECONDS);
    }
  }

  private void loadWindow() {
    try {
      if (loop.needsFullReload() || ++loadsSinceFull >= rescanEvery) {
        loop.fullReloadStarted();
        afterDueMs = Long.MIN_VALUE;
        afterInstanceId = "";
        loadsSinceFull = 0;
      }
      long untilMs = SaturatingMillis.add(clock.millis(), horizonMs);
      int loaded = 0;
      while (loaded < maxPerLoad) {
        List<FiringStore.WindowEntry> page =
            firings.findWindowPage(
                afterDueMs, afterInstanceId, untilMs, Math.min(PAGE, maxPerLoad - loaded));
        Set<String> taskIds = new HashSet<>();
        boolean full = false;
        for (FiringStore.WindowEntry entry : page) {
          if (!loop.offer(new WheelEntry(entry.seq(), entry.dueAtMs(), entry.triggerGroup()))) {
            full = true; // the watermark stays here, the next load goes on from it
            break;
          }
          taskIds.add(entry.taskId());
          afterDueMs = entry.dueAtMs();
          afterInstanceId = entry.instanceId();
          loaded++;
        }
        prefetch.accept(taskIds);
        if (full) {
          return;
        }
        if (page.size() < PAGE) {
          break;
        }
      }
    } catch (StoreException e) {
      log.warn("Ticker could not load its window, next load retries: {}", e.getMessage());
    } catch (RuntimeException e) {
      log.error("Ticker window load failed unexpectedly", e);
    }
  }
}
