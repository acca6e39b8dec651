package io.streamrecon.pipeline;

/** Which clock expires a pairing entry (SPEC §4, "Timers and runners"). */
public enum ExpiryClock {
  /** An event-time timer at the entry's first event time plus the timeout. */
  EVENT,
  /** A processing-time timer: a wall-clock grace after the key's last event. */
  PROCESSING
}
