package dev.ax.common.model;

/** How an instance is run. */
public enum ExecutorType {
  /** An HTTP call through the JDK client, to a host on the allow-list. */
  HTTP,
  /** A script from the configured directory, run as an argument vector. */
  SHELL,
  /** A Java {@code TaskExecutor} found through ServiceLoader, named by {@code handler}. */
  IN_PROCESS
}
