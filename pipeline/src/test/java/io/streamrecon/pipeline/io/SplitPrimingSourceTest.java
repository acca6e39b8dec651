package io.streamrecon.pipeline.io;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.ModelCoders;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaRecordCoder;
import org.apache.beam.sdk.io.kafka.KafkaTimestampType;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;

public class SplitPrimingSourceTest {
  private static final Instant RESTORED = Instant.parse("2026-12-01T00:00:00Z");
  private static final long MARKER = -1L;
  private final PipelineOptions options = PipelineOptionsFactory.create();

  @Rule public final transient TestPipeline pipeline = TestPipeline.create();

  @Test
  public void aReaderThatStartsWithoutARecordEmitsTheMarkerAtItsWatermarkThenItsRecords()
      throws Exception {
    UnboundedSource.UnboundedReader<Long> r =
        primed(new ListSource(List.of(7L, 8L), false)).createReader(options, null);
    assertTrue(r.start());
    assertEquals(Long.valueOf(MARKER), r.getCurrent());
    assertEquals(RESTORED, r.getCurrentTimestamp());
    List<Long> rest = new ArrayList<>();
    while (r.advance()) {
      rest.add(r.getCurrent());
    }
    assertEquals(List.of(7L, 8L), rest);
  }

  @Test
  public void aReaderThatStartsWithARecordEmitsNoMarker() throws Exception {
    UnboundedSource.UnboundedReader<Long> r =
        primed(new ListSource(List.of(7L), true)).createReader(options, null);
    assertTrue(r.start());
    assertEquals(Long.valueOf(7L), r.getCurrent());
    assertFalse(r.advance());
  }

  @Test
  public void splitsAndReadersStayPrimedAndKeepTheDelegatesCheckpoints() throws Exception {
    SplitPrimingSource<Long, Mark> source = primed(new ListSource(List.of(), false));
    List<SplitPrimingSource<Long, Mark>> splits = source.split(3, options);
    assertEquals(3, splits.size());
    UnboundedSource.UnboundedReader<Long> r = splits.get(0).createReader(options, null);
    // Beam's Flink reader checkpoints getCurrentSource(): a restored split must prime again.
    assertSame(splits.get(0), r.getCurrentSource());
    assertTrue(r.getCheckpointMark() instanceof Mark);
    assertEquals(VarLongCoder.of(), source.getOutputCoder());
  }

  @Test
  public void theKafkaMarkerSurvivesItsCoderAndIsNoInput() throws Exception {
    KafkaRecord<byte[], byte[]> marker = ReadKafka.splitMarker(RESTORED);
    Coder<KafkaRecord<byte[], byte[]>> coder =
        KafkaRecordCoder.of(ByteArrayCoder.of(), ByteArrayCoder.of());
    KafkaRecord<byte[], byte[]> copy = CoderUtils.clone(coder, marker);
    assertTrue(ReadKafka.isSplitMarker(copy));
    assertEquals(RESTORED.getMillis(), copy.getTimestamp());
    KafkaRecord<byte[], byte[]> real =
        new KafkaRecord<>(
            "orders",
            0,
            0L,
            1L,
            KafkaTimestampType.CREATE_TIME,
            null,
            new byte[0],
            "{}".getBytes(StandardCharsets.UTF_8));
    assertFalse(ReadKafka.isSplitMarker(real));

    PCollection<String> origins =
        pipeline
            .apply(Create.of(List.of(marker, real)).withCoder(coder))
            .apply(ParDo.of(new ReadKafka.ToRawInputFn(Side.SOURCE)))
            .setCoder(ModelCoders.RawInputCoder.of())
            .apply(
                MapElements.into(TypeDescriptors.strings())
                    .via((RawInput in) -> in.origin().toString()));
    PAssert.that(origins)
        .satisfies(
            o -> {
              List<String> all = new ArrayList<>();
              o.forEach(all::add);
              assertEquals(1, all.size());
              assertTrue(all.get(0), all.get(0).contains("orders"));
              return null;
            });
    pipeline.run().waitUntilFinish();
  }

  @Test
  public void theKafkaSourceIsPrimedWithKafkaIOsOwnSourceAndCoders() {
    SplitPrimingSource<KafkaRecord<byte[], byte[]>, ?> source =
        ReadKafka.primedSource(
            ReadKafka.of(Side.SOURCE, InputSpec.parse("--source", "kafka://localhost:9/orders"))
                .kafkaRead());
    Coder<byte[]> nullableBytes = NullableCoder.of(ByteArrayCoder.of());
    assertEquals(KafkaRecordCoder.of(nullableBytes, nullableBytes), source.getOutputCoder());
    // A tombstone (null value) with a null key must pass the coder: it becomes a dead letter.
    KafkaRecord<byte[], byte[]> tombstone =
        new KafkaRecord<>("orders", 0, 5L, 1L, KafkaTimestampType.CREATE_TIME, null, null, null);
    assertEquals(5L, clone(source.getOutputCoder(), tombstone).getOffset());
  }

  private static <T> T clone(Coder<T> coder, T value) {
    try {
      return CoderUtils.clone(coder, value);
    } catch (org.apache.beam.sdk.coders.CoderException e) {
      throw new AssertionError(e);
    }
  }

  private static SplitPrimingSource<Long, Mark> primed(ListSource s) {
    return new SplitPrimingSource<>(s, t -> MARKER);
  }

  static final class Mark implements UnboundedSource.CheckpointMark, Serializable {
    @Override
    public void finalizeCheckpoint() {}
  }

  /** Emits its values; its start finds the first one only if {@code startHasRecord}. */
  static final class ListSource extends UnboundedSource<Long, Mark> {
    private final List<Long> values;
    private final boolean startHasRecord;

    ListSource(List<Long> values, boolean startHasRecord) {
      this.values = List.copyOf(values);
      this.startHasRecord = startHasRecord;
    }

    @Override
    public List<ListSource> split(int n, PipelineOptions options) {
      List<ListSource> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        out.add(new ListSource(values, startHasRecord));
      }
      return out;
    }

    @Override
    public UnboundedReader<Long> createReader(PipelineOptions options, Mark mark) {
      return new UnboundedReader<>() {
        private int next = -1;

        @Override
        public boolean start() {
          if (!startHasRecord) {
            return false;
          }
          return advance();
        }

        @Override
        public boolean advance() {
          next++;
          return next < values.size();
        }

        @Override
        public Long getCurrent() {
          if (next < 0 || next >= values.size()) {
            throw new NoSuchElementException();
          }
          return values.get(next);
        }

        @Override
        public Instant getCurrentTimestamp() {
          return RESTORED.plus(getCurrent());
        }

        @Override
        public Instant getWatermark() {
          return RESTORED;
        }

        @Override
        public CheckpointMark getCheckpointMark() {
          return new Mark();
        }

        @Override
        public UnboundedSource<Long, ?> getCurrentSource() {
          return ListSource.this;
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public Coder<Mark> getCheckpointMarkCoder() {
      return SerializableCoder.of(Mark.class);
    }

    @Override
    public Coder<Long> getOutputCoder() {
      return VarLongCoder.of();
    }
  }
}
