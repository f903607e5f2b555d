package dev.ax.common.schedule;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a periodic task owes at one moment ({@link MisfirePlanner#plan}): the instances to create
 * now, what was missed and dropped, and where its schedule continues.
 *
 * @param firings the instances to create now, oldest fire time first (missed ones before on-time
 *     ones)
 * @param missed how many slots were missed (older than the misfire threshold); a lower bound when
 *     {@code missedCountExact} is false (a cron counts by walking, up to {@link
 *     MisfirePlanner#MAX_COUNTED_SLOTS})
 * @param missedCountExact whether {@code missed} (and so {@code dropped}) is exact
 * @param dropped missed slots that get no instance: all of them under SKIP, those beyond {@code
 *     maxFireAll} under FIRE_ALL, none under FIRE_ONCE_NOW (its one firing stands for them all)
 * @param handledThrough the latest slot at or before now (the one passed in when there is none):
 *     every slot up to it is now dealt with, so it is the {@code lastHandled} of the next plan
 * @param next the first slot after now, for the timing wheel; empty when the schedule has ended
 */
public record CatchUp(
    List<Firing> firings,
    long missed,
    boolean missedCountExact,
    long dropped,
    Instant handledThrough,
    Optional<Instant> next) {

  public CatchUp {
    firings = List.copyOf(firings);
    Objects.requireNonNull(handledThrough, "handledThrough");
    Objects.requireNonNull(next, "next");
  }

  /** Whether any slot was missed. */
  public boolean misfired() {
    return missed > 0;
  }
}
