package dev.ax.dispatcher.executor;

import java.util.List;
import java.util.Locale;

/**
 * The hosts the HTTP executor may call: exact names, or {@code *.example.com} for any subdomain of
 * example.com. Empty allows nothing. Immutable.
 */
public final class HostAllowList {

  private final List<String> entries;

  public HostAllowList(List<String> entries) {
    this.entries =
        entries.stream()
            .map(e -> e.trim().toLowerCase(Locale.ROOT))
            .filter(e -> !e.isEmpty())
            .toList();
    for (String entry : this.entries) {
      if (entry.contains("*") && !(entry.startsWith("*.") && entry.indexOf('*', 1) < 0)) {
        throw new IllegalArgumentException("allow-list entry must be a host or *.domain: " + entry);
      }
    }
  }

  public boolean allows(String host) {
    if (host == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    for (String entry : entries) {
      if (entry.startsWith("*.") ? h.endsWith(entry.substring(1)) : h.equals(entry)) {
        return true;
      }
    }
    return false;
  }

  /** True when {@code host} is written on the list exactly (not through a {@code *.} entry). */
  public boolean names(String host) {
    return host != null && entries.contains(host.toLowerCase(Locale.ROOT));
  }

  @Override
  public String toString() {
    return entries.toString();
  }
}
