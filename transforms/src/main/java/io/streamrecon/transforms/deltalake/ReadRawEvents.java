package io.streamrecon.transforms.deltalake;

import io.streamrecon.deltalake.ColumnSpec;
import io.streamrecon.deltalake.DataFileFormat;
import io.streamrecon.deltalake.DeletedRows;
import io.streamrecon.deltalake.DeltaLakeCommitter;
import io.streamrecon.deltalake.DeltaLakeSnapshot;
import io.streamrecon.deltalake.DeltaLakeSnapshot.DeletionVector;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.PayloadReader;
import io.streamrecon.deltalake.ProjectingReadSupport;
import io.streamrecon.deltalake.RawEventsSelection;
import io.streamrecon.deltalake.TableLayouts;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelBytes;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.StoredEvent;
import io.streamrecon.transforms.ModelCoders;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.range.OffsetRange;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Impulse;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.beam.sdk.transforms.splittabledofn.RestrictionTracker;
import org.apache.beam.sdk.util.VarInt;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;
import org.joda.time.Instant;

/**
 * Reads stored events from {@code raw_events} (bounded): the rows of the selected runs, event-time
 * window and natural ids of the table's latest version, as {@link StoredEvent}s timestamped with
 * their event time, each with the {@link Pointer} of its stored row. See {@link
 * DeltaLakeIO#readRawEvents()}.
 *
 * <p>The table's files are listed once, through {@link DeltaLakeSnapshot}, when the pipeline runs;
 * a file is read only if its {@code event_date} partition and its statistics (min/max of {@code
 * run_id}, {@code natural_id}, {@code event_time}) admit a selected row. Each file is one element,
 * spread over the workers, and read by row groups (a splittable read, so a large file spreads too,
 * and a runner that buffers a DoFn's outputs per element holds one row group's rows at most). Only
 * the needed columns are decoded; row groups are skipped by Parquet's statistics, dictionaries and
 * the natural id bloom filters.
 *
 * <p>Rows a deletion vector deletes (another engine's {@code DELETE}) are not read: a file's vector
 * is listed with it and loaded where the file is read.
 *
 * <p>A pointer's table version is the version the listing read, at which its file is live (the log
 * does not say which commit added a file without reading every commit).
 *
 * <p>Metrics (namespace {@value DeltaLakeIO#NAMESPACE}): {@code read_raw_events_files}, {@code
 * read_raw_events_files_skipped}, {@code read_raw_events_rows}.
 */
public final class ReadRawEvents extends PTransform<PBegin, PCollection<StoredEvent>> {
  private static final long serialVersionUID = 1L;

  private final String warehouse;
  private final RawEventsSelection selection;

  ReadRawEvents(String warehouse, RawEventsSelection selection) {
    this.warehouse = warehouse;
    this.selection = selection;
  }

  /** Where the tables live: a local path or a Hadoop FileSystem URI. Required. */
  public ReadRawEvents withWarehouse(String warehouse) {
    return new ReadRawEvents(WarehouseTables.checkWarehouse(warehouse), selection);
  }

  /** Only rows stored by these runs; empty (the default) for every run. */
  public ReadRawEvents withRunIds(Collection<String> runIds) {
    return new ReadRawEvents(warehouse, selection.withRunIds(runIds));
  }

  /** Only rows of these natural ids; empty (the default) for every id. */
  public ReadRawEvents withNaturalIds(Collection<String> naturalIds) {
    return new ReadRawEvents(warehouse, selection.withNaturalIds(naturalIds));
  }

  /**
   * Only rows whose event time is at or after {@code since} and before {@code until}; either may be
   * null for an open end, and {@code since} must be before {@code until}. Default: all time.
   */
  public ReadRawEvents withEventTimeRange(Instant since, Instant until) {
    return new ReadRawEvents(warehouse, selection.withEventTimeRange(since, until));
  }

  @Override
  public PCollection<StoredEvent> expand(PBegin input) {
    if (warehouse == null) {
      throw new IllegalStateException(
          "DeltaLakeIO.readRawEvents(): withWarehouse(...) is required");
    }
    return input
        .apply("Impulse", Impulse.create())
        .apply("ListDataFiles", ParDo.of(new ListFilesFn(warehouse, selection)))
        .setCoder(RawEventsFile.Coder.INSTANCE)
        .apply("SpreadDataFiles", Reshuffle.viaRandomKey())
        .apply("ReadDataFiles", ParDo.of(new ReadFileFn(warehouse, selection)))
        .setCoder(ModelCoders.StoredEventCoder.of());
  }

  /**
   * One live data file of the listed version, with its deletion vector ({@code null} if none). Only
   * a bounded replay passes these between steps, so no stored state holds the coder's form.
   */
  record RawEventsFile(String path, long tableVersion, Side side, DeletionVector deletionVector) {
    static final class Coder extends AtomicCoder<RawEventsFile> {
      static final Coder INSTANCE = new Coder();

      @Override
      public void encode(RawEventsFile f, OutputStream out) throws IOException {
        ModelBytes.writeString(f.path(), out);
        VarInt.encode(f.tableVersion(), out);
        out.write(f.side().ordinal());
        DeletionVector dv = f.deletionVector();
        out.write(dv == null ? 0 : dv.offset() == null ? 1 : 2);
        if (dv != null) {
          ModelBytes.writeString(dv.storageType(), out);
          ModelBytes.writeString(dv.pathOrInlineDv(), out);
          if (dv.offset() != null) {
            VarInt.encode(dv.offset(), out);
          }
          VarInt.encode(dv.sizeInBytes(), out);
          VarInt.encode(dv.cardinality(), out);
        }
      }

      @Override
      public RawEventsFile decode(InputStream in) throws IOException {
        String path = ModelBytes.readString(in);
        long version = VarInt.decodeLong(in);
        int side = in.read();
        if (side < 0 || side >= Side.values().length) {
          throw new IOException("bad side " + side);
        }
        int dvForm = in.read();
        if (dvForm < 0 || dvForm > 2) {
          throw new IOException("bad deletion vector marker " + dvForm);
        }
        DeletionVector dv = null;
        if (dvForm > 0) {
          String storageType = ModelBytes.readString(in);
          String pathOrInline = ModelBytes.readString(in);
          Integer offset = dvForm == 2 ? VarInt.decodeInt(in) : null;
          dv =
              new DeletionVector(
                  storageType, pathOrInline, offset, VarInt.decodeInt(in), VarInt.decodeLong(in));
        }
        return new RawEventsFile(path, version, Side.values()[side], dv);
      }

      @Override
      public void verifyDeterministic() {}
    }
  }

  /** Lists the table's live files once and keeps those that may hold a selected row. */
  static final class ListFilesFn extends DoFn<byte[], RawEventsFile> {
    private final String warehouse;
    private final RawEventsSelection selection;
    private final Counter files = Metrics.counter(DeltaLakeIO.NAMESPACE, "read_raw_events_files");
    private final Counter skipped =
        Metrics.counter(DeltaLakeIO.NAMESPACE, "read_raw_events_files_skipped");

    ListFilesFn(String warehouse, RawEventsSelection selection) {
      this.warehouse = warehouse;
      this.selection = selection;
    }

    @ProcessElement
    public void process(OutputReceiver<RawEventsFile> out) {
      for (RawEventsFile f : admitted(warehouse, selection, files, skipped)) {
        out.output(f);
      }
    }

    static List<RawEventsFile> admitted(
        String warehouse, RawEventsSelection selection, Counter files, Counter skipped) {
      DeltaLakeSnapshot snapshot = DeltaLakeSnapshot.latest(warehouse, WarehouseTables.RAW_EVENTS);
      List<RawEventsFile> result = new ArrayList<>();
      if (snapshot == null) {
        return result;
      }
      for (DeltaLakeSnapshot.TableFile f : snapshot.files()) {
        String side = f.partitionValues().get("side");
        if (side == null) {
          throw new IllegalStateException(
              "raw_events file " + f.path() + " has no side partition value");
        }
        if (selection.admitsFile(f)) {
          files.inc();
          result.add(
              new RawEventsFile(
                  f.path(), snapshot.version(), Side.valueOf(side), f.deletionVector()));
        } else {
          skipped.inc();
        }
      }
      return result;
    }
  }

  /** Reads one data file's selected rows, row group by row group. */
  static final class ReadFileFn extends DoFn<RawEventsFile, StoredEvent> {
    static final List<String> COLUMNS =
        List.of(
            PayloadReader.NATURAL_ID,
            RawEventsSelection.EVENT_TIME,
            PayloadReader.SHA256,
            PayloadReader.PAYLOAD,
            "origin_stream",
            "origin_partition",
            "origin_offset",
            RawEventsSelection.RUN_ID);

    private final String warehouse;
    private final RawEventsSelection selection;
    private final Counter rows = Metrics.counter(DeltaLakeIO.NAMESPACE, "read_raw_events_rows");
    private transient Configuration conf;
    private transient Path tableRoot;
    private transient List<ColumnSpec> columns;

    ReadFileFn(String warehouse, RawEventsSelection selection) {
      this.warehouse = warehouse;
      this.selection = selection;
    }

    @Setup
    public void setup() {
      conf = new Configuration();
      tableRoot = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
      columns = new ArrayList<>();
      for (String name : COLUMNS) {
        columns.add(
            TableLayouts.RAW_EVENTS.columns.stream()
                .filter(c -> c.name.equals(name))
                .findFirst()
                .orElseThrow());
      }
    }

    private InputFile input(RawEventsFile file) throws IOException {
      return HadoopInputFile.fromPath(new Path(tableRoot, file.path()), conf);
    }

    /** One position per row group. */
    @GetInitialRestriction
    public OffsetRange rowGroups(@Element RawEventsFile file) throws IOException {
      try (ParquetFileReader reader = ParquetFileReader.open(input(file))) {
        return new OffsetRange(0, reader.getFooter().getBlocks().size());
      }
    }

    @SplitRestriction
    public void split(@Restriction OffsetRange range, OutputReceiver<OffsetRange> out) {
      for (long g = range.getFrom(); g < range.getTo(); g++) {
        out.output(new OffsetRange(g, g + 1));
      }
    }

    @GetRestrictionCoder
    public Coder<OffsetRange> restrictionCoder() {
      return OffsetRange.Coder.of();
    }

    @ProcessElement
    public void process(
        @Element RawEventsFile file,
        RestrictionTracker<OffsetRange, Long> tracker,
        OutputReceiver<StoredEvent> out)
        throws IOException {
      InputFile input = input(file);
      List<BlockMetaData> blocks;
      try (ParquetFileReader reader = ParquetFileReader.open(input)) {
        blocks = reader.getFooter().getBlocks();
      }
      // Loaded once per element: a split file loads it once per row group read.
      DeletedRows deleted = DeletedRows.load(conf, tableRoot, file.deletionVector());
      for (long g = tracker.currentRestriction().getFrom(); tracker.tryClaim(g); g++) {
        BlockMetaData block = blocks.get((int) g);
        long start = block.getStartingPos();
        // A row group is read where its midpoint lies: this range holds this group only.
        try (ParquetReader<Group> reader =
            DataFileFormat.reader(new ProjectingReadSupport(COLUMNS), input)
                .withFileRange(start, start + Math.max(1, block.getCompressedSize()))
                .withFilter(selection.parquetFilter())
                .build()) {
          for (Group g2 = reader.read(); g2 != null; g2 = reader.read()) {
            long row = reader.getCurrentRowIndex();
            if (!deleted.contains(row)) {
              emit(file, g2, row, out);
            }
          }
        }
      }
    }

    private void emit(RawEventsFile file, Group g, long rowIndex, OutputReceiver<StoredEvent> out) {
      String naturalId = (String) DeltaLakeTables.value(g, columns.get(0));
      Instant eventTime = (Instant) DeltaLakeTables.value(g, columns.get(1));
      String runId = (String) DeltaLakeTables.value(g, columns.get(7));
      if (naturalId == null
          || eventTime == null
          || !selection.admitsRow(runId, naturalId, eventTime.getMillis())) {
        return;
      }
      if (rowIndex < 0) {
        throw new IllegalStateException(
            "raw_events file " + file.path() + ": the Parquet reader gave no row index");
      }
      String sha256 = (String) DeltaLakeTables.value(g, columns.get(2));
      // The payload's bytes as stored, not decoded to text and back.
      byte[] payload = g.getBinary(PayloadReader.PAYLOAD, 0).getBytes();
      String stream = (String) DeltaLakeTables.value(g, columns.get(4));
      Integer partition = (Integer) DeltaLakeTables.value(g, columns.get(5));
      Long offset = (Long) DeltaLakeTables.value(g, columns.get(6));
      Side side = file.side();
      Pointer pointer =
          new Pointer(file.tableVersion(), file.path(), rowIndex, side, naturalId, sha256);
      EventRef ref = new EventRef(side, naturalId, eventTime, sha256, pointer);
      Origin origin =
          new Origin(
              stream == null ? "" : stream,
              partition == null ? Origin.FILE_PARTITION : partition,
              offset == null ? -1 : offset);
      rows.inc();
      out.outputWithTimestamp(
          new StoredEvent(ref, payload, origin, runId == null ? "" : runId), eventTime);
    }
  }
}
