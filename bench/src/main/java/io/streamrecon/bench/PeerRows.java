package io.streamrecon.bench;

import java.io.Serializable;
import java.sql.Timestamp;

/**
 * Java beans for the Spark peer's typed Datasets (Spark's bean encoders need public no-arg classes
 * with getters and setters).
 */
public final class PeerRows {
  private PeerRows() {}

  /**
   * A parsed input line. Side {@code FLUSH} marks the sentinel that moves the watermark at the end.
   */
  public static class InEvent implements Serializable {
    private String side;
    private String id;
    private Timestamp eventTime;
    private String hash;
    private String payload;

    public String getSide() {
      return side;
    }

    public void setSide(String v) {
      side = v;
    }

    public String getId() {
      return id;
    }

    public void setId(String v) {
      id = v;
    }

    public Timestamp getEventTime() {
      return eventTime;
    }

    public void setEventTime(Timestamp v) {
      eventTime = v;
    }

    public String getHash() {
      return hash;
    }

    public void setHash(String v) {
      hash = v;
    }

    public String getPayload() {
      return payload;
    }

    public void setPayload(String v) {
      payload = v;
    }
  }

  /**
   * Pairing state per natural id: metadata only. The pointer to a payload is its side, id and hash
   * (plus the event date its time gives, the raw table's partition).
   */
  public static class State implements Serializable {
    private long t0;
    private Long sourceTime;
    private String sourceHash;
    private Long targetTime;
    private String targetHash;
    private String lastVerdictId;
    private String lastStatus;

    public long getT0() {
      return t0;
    }

    public void setT0(long v) {
      t0 = v;
    }

    public Long getSourceTime() {
      return sourceTime;
    }

    public void setSourceTime(Long v) {
      sourceTime = v;
    }

    public String getSourceHash() {
      return sourceHash;
    }

    public void setSourceHash(String v) {
      sourceHash = v;
    }

    public Long getTargetTime() {
      return targetTime;
    }

    public void setTargetTime(Long v) {
      targetTime = v;
    }

    public String getTargetHash() {
      return targetHash;
    }

    public void setTargetHash(String v) {
      targetHash = v;
    }

    public String getLastVerdictId() {
      return lastVerdictId;
    }

    public void setLastVerdictId(String v) {
      lastVerdictId = v;
    }

    public String getLastStatus() {
      return lastStatus;
    }

    public void setLastStatus(String v) {
      lastStatus = v;
    }
  }

  /**
   * What the stateful step emits: {@code RAW} (an event to store, payload included: the state never
   * holds it), {@code VERDICT} (MATCH or MISMATCH as emitted) or {@code FINAL} (an entry finished
   * with this status).
   */
  public static class Out implements Serializable {
    private String kind;
    private String side;
    private String id;
    private Timestamp eventTime;
    private String hash;
    private String payload;
    private String status;
    private String verdictId;
    private String supersedes;
    private String sourceHash;
    private String targetHash;
    private Timestamp sourceTime;
    private Timestamp targetTime;

    public String getKind() {
      return kind;
    }

    public void setKind(String v) {
      kind = v;
    }

    public String getSide() {
      return side;
    }

    public void setSide(String v) {
      side = v;
    }

    public String getId() {
      return id;
    }

    public void setId(String v) {
      id = v;
    }

    public Timestamp getEventTime() {
      return eventTime;
    }

    public void setEventTime(Timestamp v) {
      eventTime = v;
    }

    public String getHash() {
      return hash;
    }

    public void setHash(String v) {
      hash = v;
    }

    public String getPayload() {
      return payload;
    }

    public void setPayload(String v) {
      payload = v;
    }

    public String getStatus() {
      return status;
    }

    public void setStatus(String v) {
      status = v;
    }

    public String getVerdictId() {
      return verdictId;
    }

    public void setVerdictId(String v) {
      verdictId = v;
    }

    public String getSupersedes() {
      return supersedes;
    }

    public void setSupersedes(String v) {
      supersedes = v;
    }

    public String getSourceHash() {
      return sourceHash;
    }

    public void setSourceHash(String v) {
      sourceHash = v;
    }

    public String getTargetHash() {
      return targetHash;
    }

    public void setTargetHash(String v) {
      targetHash = v;
    }

    public Timestamp getSourceTime() {
      return sourceTime;
    }

    public void setSourceTime(Timestamp v) {
      sourceTime = v;
    }

    public Timestamp getTargetTime() {
      return targetTime;
    }

    public void setTargetTime(Timestamp v) {
      targetTime = v;
    }
  }
}
