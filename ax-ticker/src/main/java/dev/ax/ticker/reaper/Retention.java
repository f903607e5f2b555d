package dev.ax.ticker.reaper;

import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.StoreException;
import dev.ax.common.time.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@code ax_instance}, {@code ax_instance_log} and {@code ax_dead_letter} from growing
 * forever: on the ticker leader, each pass deletes one batch of finished instances older than
 * {@code AX_RETENTION} with their audit rows and dead letters ({@link RetentionStore} says which
 * count as finished), then one batch of the rows of DELETED tasks deleted before then whose
 * instances are all gone, and the switch records of stages long gone. One node deletes, so two
 * passes never fight over rows; a pass that fails is tried at the next. Off when the retention is
 * zero.
 *
 * <p>Threading: {@link #pass} from the ticker's scheduler thread only.
 */
public final class Retention {

  private static final Logger log = LoggerFactory.getLogger(Retention.class);

  private final RetentionStore store;
  private final Clock clock;
  private final Supplier<Optional<LeaseFence>> leadership;
  private final Duration retention;
  private final int batch;
  private final Counter instances;
  private final Counter auditRows;
  private final Counter deadLetters;
  private final Counter tasks;

  /**
   * @param retention finished rows older than this are deleted; zero: none ever
   * @param batch most instances one pass deletes
   */
  public Retention(
      DataSource dataSource,
      Clock clock,
      Supplier<Optional<LeaseFence>> leadership,
      Duration retention,
      int batch,
      MeterRegistry meters) {
    this.store = new RetentionStore(dataSource);
    this.clock = clock;
    this.leadership = leadership;
    this.retention = retention;
    this.batch = batch;
    this.instances = deleted(meters, "instances");
    this.auditRows = deleted(meters, "audit");
    this.deadLetters = deleted(meters, "deadletters");
    this.tasks = deleted(meters, "tasks");
  }

  private static Counter deleted(MeterRegistry meters, String kind) {
    return Counter.builder("ax.retention.deleted")
        .description("rows deleted by retention, older than AX_RETENTION")
        .tag("kind", kind)
        .register(meters);
  }

  public boolean enabled() {
    return !retention.isZero();
  }

  /** One batch, on the leader only. */
  public void pass() {
    if (!enabled() || leadership.get().isEmpty()) {
      return;
    }
    try {
      long cutoffMs = clock.millis() - retention.toMillis();
      RetentionStore.Deleted deleted = store.deleteFinishedBefore(cutoffMs, batch);
      store.deleteSupersededSwitchRecords(cutoffMs);
      instances.increment(deleted.instances());
      auditRows.increment(deleted.auditRows());
      deadLetters.increment(deleted.deadLetters());
      int removedTasks = store.deleteRemovedTasksBefore(cutoffMs, batch);
      tasks.increment(removedTasks);
      if (deleted.instances() > 0 || removedTasks > 0) {
        log.debug(
            "Retention deleted {} instance(s), {} audit row(s), {} dead letter(s) and {} deleted"
                + " task(s) older than {}",
            deleted.instances(),
            deleted.auditRows(),
            deleted.deadLetters(),
            removedTasks,
            retention);
      }
    } catch (StoreException e) {
      log.warn("Retention pass failed, the next one retries: {}", e.getMessage());
    } catch (RuntimeException e) {
      log.error("Retention pass failed unexpectedly, the next one retries", e);
    }
  }
}
