package io.streamrecon.transforms;

import static io.streamrecon.model.ModelBytes.readByte;
import static io.streamrecon.model.ModelBytes.readBytes;
import static io.streamrecon.model.ModelBytes.readDataFile;
import static io.streamrecon.model.ModelBytes.readEnum;
import static io.streamrecon.model.ModelBytes.readHash;
import static io.streamrecon.model.ModelBytes.readInstant;
import static io.streamrecon.model.ModelBytes.readPayload;
import static io.streamrecon.model.ModelBytes.readString;
import static io.streamrecon.model.ModelBytes.writeBytes;
import static io.streamrecon.model.ModelBytes.writeDataFile;
import static io.streamrecon.model.ModelBytes.writeEnum;
import static io.streamrecon.model.ModelBytes.writeHash;
import static io.streamrecon.model.ModelBytes.writeInstant;
import static io.streamrecon.model.ModelBytes.writePayload;
import static io.streamrecon.model.ModelBytes.writeString;

import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Origin;
import io.streamrecon.model.ParsedInput;
import io.streamrecon.model.PayloadPair;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.StoredEvent;
import io.streamrecon.model.StoredPayload;
import io.streamrecon.model.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.util.VarInt;
import org.joda.time.Instant;

/**
 * Explicit, deterministic coders for every model record. Each encodes its fields in declaration
 * order in the byte forms of {@link io.streamrecon.model.ModelBytes}: a presence byte for nullable
 * fields; hashes that are 64 lower-case hex digits are packed into 32 bytes and data file paths
 * written by {@code DeltaLakeIO} into 16 bytes plus the partition date, so that pairing state stays
 * small (docs/design.md#pairing: metadata only).
 */
public final class ModelCoders {
  private ModelCoders() {}

  /** Coder for {@link Origin}. */
  public static final class OriginCoder extends AtomicCoder<Origin> {
    private static final OriginCoder INSTANCE = new OriginCoder();

    public static OriginCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(Origin value, OutputStream out) throws IOException {
      writeString(value.stream(), out);
      VarInt.encode(value.partition() + 1, out);
      VarInt.encode(value.offset(), out);
    }

    @Override
    public Origin decode(InputStream in) throws IOException {
      return new Origin(readString(in), VarInt.decodeInt(in) - 1, VarInt.decodeLong(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link RawInput}. */
  public static final class RawInputCoder extends AtomicCoder<RawInput> {
    private static final RawInputCoder INSTANCE = new RawInputCoder();

    public static RawInputCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(RawInput value, OutputStream out) throws IOException {
      writeEnum(value.side(), out);
      writeBytes(value.bytes(), out);
      OriginCoder.of().encode(value.origin(), out);
      writeInstant(value.recordTime(), out);
    }

    @Override
    public RawInput decode(InputStream in) throws IOException {
      return new RawInput(
          readEnum(Side.class, in), readBytes(in), OriginCoder.of().decode(in), readInstant(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link Event}. */
  public static final class EventCoder extends AtomicCoder<Event> {
    private static final EventCoder INSTANCE = new EventCoder();

    public static EventCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(Event value, OutputStream out) throws IOException {
      writeEnum(value.side(), out);
      writeString(value.naturalId(), out);
      writeInstant(value.eventTime(), out);
      writeHash(value.sha256(), out);
      writeBytes(value.payload(), out);
      OriginCoder.of().encode(value.origin(), out);
    }

    @Override
    public Event decode(InputStream in) throws IOException {
      return new Event(
          readEnum(Side.class, in),
          readString(in),
          readInstant(in),
          readHash(in),
          readBytes(in),
          OriginCoder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link Pointer}. */
  public static final class PointerCoder extends AtomicCoder<Pointer> {
    private static final PointerCoder INSTANCE = new PointerCoder();

    public static PointerCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(Pointer value, OutputStream out) throws IOException {
      VarInt.encode(value.tableVersion(), out);
      writeDataFile(value.dataFile(), out);
      VarInt.encode(value.rowIndex(), out);
      writeEnum(value.side(), out);
      writeString(value.naturalId(), out);
      writeHash(value.sha256(), out);
    }

    @Override
    public Pointer decode(InputStream in) throws IOException {
      return new Pointer(
          VarInt.decodeLong(in),
          readDataFile(in),
          VarInt.decodeLong(in),
          readEnum(Side.class, in),
          readString(in),
          readHash(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /**
   * Coder for {@link EventRef}. The pointer's fallback key repeats the side, natural id and hash,
   * so only its location (version, file, row) is written.
   */
  public static final class EventRefCoder extends AtomicCoder<EventRef> {
    private static final EventRefCoder INSTANCE = new EventRefCoder();

    public static EventRefCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(EventRef value, OutputStream out) throws IOException {
      writeString(value.naturalId(), out);
      encodeWithoutKey(value, out);
    }

    @Override
    public EventRef decode(InputStream in) throws IOException {
      String naturalId = readString(in);
      return decodeWithoutKey(in, naturalId);
    }

    /**
     * Writes everything but the natural id: what keyed state keeps, since the key is the natural
     * id. About 60 bytes for a {@code DeltaLakeIO} pointer and a SHA-256 hash.
     */
    public static void encodeWithoutKey(EventRef value, OutputStream out) throws IOException {
      writeEnum(value.side(), out);
      writeInstant(value.eventTime(), out);
      writeHash(value.sha256(), out);
      Pointer p = value.pointer();
      VarInt.encode(p.tableVersion(), out);
      writeDataFile(p.dataFile(), out);
      VarInt.encode(p.rowIndex(), out);
    }

    /** Reads what {@link #encodeWithoutKey} wrote, for the given natural id. */
    public static EventRef decodeWithoutKey(InputStream in, String naturalId) throws IOException {
      Side side = readEnum(Side.class, in);
      Instant eventTime = readInstant(in);
      String hash = readHash(in);
      long version = VarInt.decodeLong(in);
      String file = readDataFile(in);
      long row = VarInt.decodeLong(in);
      return new EventRef(
          side, naturalId, eventTime, hash, new Pointer(version, file, row, side, naturalId, hash));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for a nullable {@link EventRef}. */
  static void writeNullableRef(EventRef ref, OutputStream out) throws IOException {
    out.write(ref == null ? 0 : 1);
    if (ref != null) {
      EventRefCoder.of().encode(ref, out);
    }
  }

  static EventRef readNullableRef(InputStream in) throws IOException {
    return readByte(in) == 0 ? null : EventRefCoder.of().decode(in);
  }

  static void writeNullablePointer(Pointer p, OutputStream out) throws IOException {
    out.write(p == null ? 0 : 1);
    if (p != null) {
      PointerCoder.of().encode(p, out);
    }
  }

  static Pointer readNullablePointer(InputStream in) throws IOException {
    return readByte(in) == 0 ? null : PointerCoder.of().decode(in);
  }

  /** Coder for {@link Verdict}. */
  public static final class VerdictCoder extends AtomicCoder<Verdict> {
    private static final VerdictCoder INSTANCE = new VerdictCoder();

    public static VerdictCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(Verdict value, OutputStream out) throws IOException {
      writeHash(value.verdictId(), out);
      writeHash(value.supersedes(), out);
      writeString(value.naturalId(), out);
      writeEnum(value.status(), out);
      writeNullableRef(value.source(), out);
      writeNullableRef(value.target(), out);
    }

    @Override
    public Verdict decode(InputStream in) throws IOException {
      return new Verdict(
          readHash(in),
          readHash(in),
          readString(in),
          readEnum(Status.class, in),
          readNullableRef(in),
          readNullableRef(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link Difference}. */
  public static final class DifferenceCoder extends AtomicCoder<Difference> {
    private static final DifferenceCoder INSTANCE = new DifferenceCoder();

    public static DifferenceCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(Difference value, OutputStream out) throws IOException {
      writeString(value.path(), out);
      writeEnum(value.kind(), out);
      writeString(value.source(), out);
      writeString(value.target(), out);
    }

    @Override
    public Difference decode(InputStream in) throws IOException {
      return new Difference(
          readString(in), readEnum(DifferenceKind.class, in), readString(in), readString(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link DeltaRecord}. */
  public static final class DeltaRecordCoder extends AtomicCoder<DeltaRecord> {
    private static final DeltaRecordCoder INSTANCE = new DeltaRecordCoder();

    public static DeltaRecordCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(DeltaRecord value, OutputStream out) throws IOException {
      writeHash(value.verdictId(), out);
      writeHash(value.supersedes(), out);
      writeString(value.naturalId(), out);
      writeEnum(value.status(), out);
      VarInt.encode(value.differences().size(), out);
      for (Difference d : value.differences()) {
        DifferenceCoder.of().encode(d, out);
      }
      writeHash(value.sourceHash(), out);
      writeHash(value.targetHash(), out);
      writeInstant(value.sourceEventTime(), out);
      writeInstant(value.targetEventTime(), out);
      writeNullablePointer(value.sourcePointer(), out);
      writeNullablePointer(value.targetPointer(), out);
      writeInstant(value.detectedAt(), out);
      writeString(value.runId(), out);
      writeHash(value.rulesId(), out);
    }

    @Override
    public DeltaRecord decode(InputStream in) throws IOException {
      String verdictId = readHash(in);
      String supersedes = readHash(in);
      String naturalId = readString(in);
      Status status = readEnum(Status.class, in);
      int n = VarInt.decodeInt(in);
      List<Difference> differences = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        differences.add(DifferenceCoder.of().decode(in));
      }
      return new DeltaRecord(
          verdictId,
          supersedes,
          naturalId,
          status,
          differences,
          readHash(in),
          readHash(in),
          readInstant(in),
          readInstant(in),
          readNullablePointer(in),
          readNullablePointer(in),
          readInstant(in),
          readString(in),
          readHash(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link DeadLetter}. */
  public static final class DeadLetterCoder extends AtomicCoder<DeadLetter> {
    private static final DeadLetterCoder INSTANCE = new DeadLetterCoder();

    public static DeadLetterCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(DeadLetter value, OutputStream out) throws IOException {
      writeEnum(value.side(), out);
      writeBytes(value.raw(), out);
      writeString(value.error(), out);
      writeString(value.stage(), out);
      OriginCoder.of().encode(value.origin(), out);
      writeInstant(value.failedAt(), out);
    }

    @Override
    public DeadLetter decode(InputStream in) throws IOException {
      return new DeadLetter(
          readEnum(Side.class, in),
          readBytes(in),
          readString(in),
          readString(in),
          OriginCoder.of().decode(in),
          readInstant(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link ParsedInput}: a tag byte, then the event's or the dead letter's coding. */
  public static final class ParsedInputCoder extends AtomicCoder<ParsedInput> {
    private static final ParsedInputCoder INSTANCE = new ParsedInputCoder();
    private static final int EVENT = 1;
    private static final int DEAD_LETTER = 2;

    public static ParsedInputCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(ParsedInput value, OutputStream out) throws IOException {
      if (value.parsed()) {
        out.write(EVENT);
        EventCoder.of().encode(value.event(), out);
      } else {
        out.write(DEAD_LETTER);
        DeadLetterCoder.of().encode(value.deadLetter(), out);
      }
    }

    @Override
    public ParsedInput decode(InputStream in) throws IOException {
      int tag = readByte(in);
      return switch (tag) {
        case EVENT -> ParsedInput.of(EventCoder.of().decode(in));
        case DEAD_LETTER -> ParsedInput.of(DeadLetterCoder.of().decode(in));
        default -> throw new CoderException("not a ParsedInput: tag " + tag);
      };
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link LateEvent}. */
  public static final class LateEventCoder extends AtomicCoder<LateEvent> {
    private static final LateEventCoder INSTANCE = new LateEventCoder();

    public static LateEventCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(LateEvent value, OutputStream out) throws IOException {
      EventRefCoder.of().encode(value.event(), out);
      writeInstant(value.watermark(), out);
    }

    @Override
    public LateEvent decode(InputStream in) throws IOException {
      return new LateEvent(EventRefCoder.of().decode(in), readInstant(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link PayloadPair}. */
  public static final class PayloadPairCoder extends AtomicCoder<PayloadPair> {
    private static final PayloadPairCoder INSTANCE = new PayloadPairCoder();

    public static PayloadPairCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(PayloadPair value, OutputStream out) throws IOException {
      VerdictCoder.of().encode(value.verdict(), out);
      writePayload(value.sourcePayload(), out);
      writePayload(value.targetPayload(), out);
    }

    @Override
    public PayloadPair decode(InputStream in) throws IOException {
      return new PayloadPair(VerdictCoder.of().decode(in), readPayload(in), readPayload(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link StoredPayload}. */
  public static final class StoredPayloadCoder extends AtomicCoder<StoredPayload> {
    private static final StoredPayloadCoder INSTANCE = new StoredPayloadCoder();

    public static StoredPayloadCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(StoredPayload value, OutputStream out) throws IOException {
      PointerCoder.of().encode(value.pointer(), out);
      writePayload(value.payload(), out);
    }

    @Override
    public StoredPayload decode(InputStream in) throws IOException {
      return new StoredPayload(PointerCoder.of().decode(in), readPayload(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /** Coder for {@link StoredEvent}; the pointer's hash is the stored one, as the ref's. */
  public static final class StoredEventCoder extends AtomicCoder<StoredEvent> {
    private static final StoredEventCoder INSTANCE = new StoredEventCoder();

    public static StoredEventCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(StoredEvent value, OutputStream out) throws IOException {
      EventRefCoder.of().encode(value.ref(), out);
      writeBytes(value.payload(), out);
      OriginCoder.of().encode(value.origin(), out);
      writeString(value.runId(), out);
    }

    @Override
    public StoredEvent decode(InputStream in) throws IOException {
      return new StoredEvent(
          EventRefCoder.of().decode(in),
          readBytes(in),
          OriginCoder.of().decode(in),
          readString(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
