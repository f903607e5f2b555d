package dev.ax.common.kafka;

import dev.ax.common.contract.Echo;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ConsumerLoop}'s standing with the broker's authorizer: refused (an authorization or
 * authentication error, as during an ACL or credential change) or not. A refusal is not the end of
 * the loop: the operator fixes the ACL and the loop reads again. While refused, the loop waits
 * {@code firstWait}, then twice as long each time in a row, at most {@link #MAX_WAIT}, and its
 * {@link LoopWatcher} hears of it (the process is not ready, with the reason) and of the recovery.
 *
 * <p>Not thread-safe: the loop thread only.
 */
final class BrokerRefusals {

  /** The longest wait between two tries of a refused loop. */
  static final Duration MAX_WAIT = Duration.ofSeconds(30);

  // The loop's logger: these lines are the loop's, and read as such where its level is set.
  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

  private final String loopName;
  private final LoopWatcher watcher;
  private final Duration firstWait;
  private int inARow;

  BrokerRefusals(String loopName, LoopWatcher watcher, Duration firstWait) {
    this.loopName = loopName;
    this.watcher = watcher;
    this.firstWait = firstWait.compareTo(Duration.ZERO) > 0 ? firstWait : Duration.ofMillis(1);
  }

  /** The authorization or authentication error in {@code failure}'s cause chain, if any. */
  static Optional<KafkaException> refusalIn(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      if (t instanceof AuthorizationException || t instanceof AuthenticationException) {
        return Optional.of((KafkaException) t);
      }
    }
    return Optional.empty();
  }

  /**
   * Records one more refusal in a row, logs it (ERROR on the first, WARN after) and tells the
   * watcher.
   *
   * @return how long to wait before the next try
   */
  Duration refused(KafkaException refusal) {
    inARow++;
    Duration wait = waitAfter(inARow);
    String reason = "refused by the broker: " + Echo.cut(refusal.toString());
    if (inARow == 1) {
      log.error("{} {}; not ready, trying again with back-off", loopName, reason);
    } else {
      log.warn(
          "{} {} ({} times in a row); trying again in {} ms",
          loopName,
          reason,
          inARow,
          wait.toMillis());
    }
    watcher.refused(loopName, reason);
    return wait;
  }

  /** The loop read (or handled a batch): a refusal before is over. */
  void worked() {
    if (inARow == 0) {
      return;
    }
    log.info("{} is authorized again after {} refusal(s)", loopName, inARow);
    inARow = 0;
    watcher.recovered(loopName);
  }

  /** {@code firstWait * 2^(n-1)}, at most {@link #MAX_WAIT}. */
  Duration waitAfter(int refusalsInARow) {
    Duration wait = firstWait;
    for (int i = 1; i < refusalsInARow && wait.compareTo(MAX_WAIT) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : wait;
  }
}
