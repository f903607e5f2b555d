package dev.ax.common.model;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The ids of a sharded firing's shards: {@code <firing>#<index>of<total>}, e.g. {@code
 * report@1700000000000#2of5}. Deterministic, so a firing fanned out twice (its dispatcher died
 * after the fan-out and the firing was taken back and claimed again) makes each shard once. When
 * that would not fit the schema's {@link InstanceIds#MAX_LENGTH}, the firing's id is replaced by
 * {@code <taskId>@h<hash of the firing's id>}. A shard id is never a slot id ({@link
 * InstanceIds#isSlotId}): no chain or misfire rule takes a shard for a firing of its own.
 *
 * <p>Stateless.
 */
public final class ShardIds {

  private ShardIds() {}

  /** Shard {@code index} (from 0) of {@code total} of firing {@code firingId} of {@code taskId}. */
  public static String of(String firingId, String taskId, int index, int total) {
    if (index < 0 || index >= total || total > TaskSpec.MAX_SHARDS) {
      throw new IllegalArgumentException("shard " + index + " of " + total);
    }
    String suffix = "#" + index + "of" + total;
    if (firingId.length() + suffix.length() <= InstanceIds.MAX_LENGTH) {
      return firingId + suffix;
    }
    return taskId + "@h" + hash(firingId) + suffix;
  }

  private static String hash(String firingId) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(firingId.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
