package io.streamrecon.model;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A pairing decision before diffing: status, the events on each side ({@code null} for a missing
 * side), its deterministic id and the id of the verdict it supersedes, if any.
 */
public record Verdict(
    String verdictId,
    String supersedes,
    String naturalId,
    Status status,
    EventRef source,
    EventRef target) {
  public Verdict {
    Objects.requireNonNull(verdictId, "verdictId");
    Objects.requireNonNull(naturalId, "naturalId");
    Objects.requireNonNull(status, "status");
  }

  /** Builds a verdict whose id is derived as in docs/design.md#deltarecord. */
  public static Verdict of(
      String naturalId, Status status, EventRef source, EventRef target, String supersedes) {
    return new Verdict(
        idOf(
            naturalId,
            status,
            source == null ? null : source.sha256(),
            target == null ? null : target.sha256()),
        supersedes,
        naturalId,
        status,
        source,
        target);
  }

  /** SHA-256 (hex) of natural id, status and both hashes, each length-prefixed so no two differ. */
  public static String idOf(String naturalId, Status status, String sourceHash, String targetHash) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (String part :
          new String[] {
            naturalId, status.name(), nullToEmpty(sourceHash), nullToEmpty(targetHash)
          }) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        digest.update(
            new byte[] {
              (byte) (bytes.length >>> 24), (byte) (bytes.length >>> 16),
              (byte) (bytes.length >>> 8), (byte) bytes.length
            });
        digest.update(bytes);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
