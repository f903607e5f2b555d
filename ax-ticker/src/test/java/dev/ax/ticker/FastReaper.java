package dev.ax.ticker;

import java.util.Map;

/** Reaper settings for ITs whose reaper cases must come about within a test's deadline. */
final class FastReaper {

  /**
   * A reaper pass every 200 ms that emits again what nobody claimed for 2 s, and a ticker heartbeat
   * of 500 ms.
   */
  static final Map<String, String> SETTINGS =
      Map.of(
          "AX_REAPER_INTERVAL", "200ms",
          "AX_REAPER_UNCLAIMED_AFTER", "2s",
          "AX_TICKER_HEARTBEAT", "500ms");

  private FastReaper() {}
}
