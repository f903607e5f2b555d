package dev.ax.ingest;

/**
 * The stores a lifecycle command is applied through: {@code tasks} for a command naming one task,
 * {@code updates} for an UPDATE, {@code groups} for a group's PAUSE or RESUME. Each is stateless
 * over the stage's pool, so this is thread-safe.
 */
record LifecycleStores(
    TaskLifecycleStore tasks, TaskUpdateStore updates, GroupLifecycleStore groups) {}
