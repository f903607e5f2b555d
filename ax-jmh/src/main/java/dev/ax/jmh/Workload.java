package dev.ax.jmh;

import java.util.SplittableRandom;

/**
 * The one workload every structure runs, so their numbers compare: {@link #PENDING} instances due
 * within {@link #HORIZON_MS}, kept at that level by inserting {@link #OPS_PER_STEP} instances and
 * then moving the (fake) clock {@link #STEP_MS} forward, which expires about as many.
 *
 * <p>New instances are due uniformly within the horizon, so in steady state the remaining delays of
 * the pending ones fall off linearly (few are due at the far end). The initial fill draws from that
 * same distribution, so the pending count stays near {@link #PENDING} from the first step. Due
 * times are at millisecond precision and ids spread over 16 trigger groups: batches are mostly of
 * one instance, the least favourable case for the wheel's batching.
 */
final class Workload {

  static final int PENDING = 1_000_000;
  static final long HORIZON_MS = 3_600_000;
  static final int OPS_PER_STEP = 1_000;

  /** Inserts per ms times mean life (horizon / 2) = PENDING. */
  static final long STEP_MS = OPS_PER_STEP * HORIZON_MS / (2L * PENDING);

  static final long START_MS = 1_700_000_000_000L;
  static final int GROUPS = 16;

  private static final int DELAYS = 1 << 20;

  private final long[] insertDelaysMs = new long[DELAYS];
  private int next;

  Workload(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < DELAYS; i++) {
      insertDelaysMs[i] = 1 + random.nextLong(HORIZON_MS);
    }
  }

  /** The delay of the next inserted instance: uniform in [1, horizon]. */
  long nextInsertDelayMs() {
    return insertDelaysMs[next++ & (DELAYS - 1)];
  }

  /** Remaining delays of the initial fill, with the steady-state (triangular) distribution. */
  static long[] initialDelaysMs(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] delays = new long[count];
    for (int i = 0; i < count; i++) {
      delays[i] = 1 + (long) (HORIZON_MS * (1 - Math.sqrt(random.nextDouble())));
    }
    return delays;
  }

  static int groupOf(long instanceId) {
    return (int) (instanceId % GROUPS);
  }
}
