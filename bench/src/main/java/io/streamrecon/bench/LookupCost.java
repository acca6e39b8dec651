package io.streamrecon.bench;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Status;
import io.streamrecon.model.StoredPayload;
import io.streamrecon.transforms.ModelCoders;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.PCollection;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Cost of fetching payloads by pointer from the raw_events table a streamrecon run wrote: the
 * pointers of its MISMATCH records, read (1) with one open per data file (the pointers grouped by
 * file, rows read in order), (2) with one open per pointer, both with the same plain parquet-hadoop
 * reader projected to the payload column (it decodes every row up to the wanted one: no page
 * skipping), and (3) through {@code DeltaLakeIO.lookup()} in a DirectRunner pipeline (which skips
 * to the wanted pages by the offset index), whose metrics give its file opens.
 *
 * @param pointers pointers read
 * @param files distinct data files they point into
 * @param batchedMillis (1) one open per file
 * @param perPointerMillis (2) one open per pointer
 * @param perPointerMeasured pointers timed in (2) (capped; the time is scaled to all pointers)
 * @param lookupMillis (3) DeltaLakeIO.lookup(), pipeline start included
 * @param lookupFileOpens (3) files opened, from its metric
 * @param lookupPayloads (3) payloads returned
 */
record LookupCost(
    long pointers,
    long files,
    double batchedMillis,
    double perPointerMillis,
    long perPointerMeasured,
    double lookupMillis,
    long lookupFileOpens,
    long lookupPayloads) {

  static LookupCost measure(java.nio.file.Path warehouse, int maxPointers, int perPointerCap)
      throws IOException {
    List<Pointer> pointers = new ArrayList<>();
    for (DeltaRecord r : DeltaLakeTables.readDeltas(warehouse.toString())) {
      if (r.status() == Status.MISMATCH) {
        pointers.add(r.sourcePointer());
        pointers.add(r.targetPointer());
      }
    }
    // A fixed sample: the pointers of the first mismatches in natural-id order.
    pointers.sort(java.util.Comparator.comparing(Pointer::naturalId).thenComparing(Pointer::side));
    pointers = new ArrayList<>(pointers.subList(0, Math.min(maxPointers, pointers.size())));
    Configuration conf = new Configuration();
    String table = warehouse.resolve(WarehouseTables.RAW_EVENTS).toString();
    Map<String, TreeSet<Long>> byFile = new TreeMap<>();
    for (Pointer p : pointers) {
      byFile.computeIfAbsent(p.dataFile(), f -> new TreeSet<>()).add(p.rowIndex());
    }
    MessageType projection = projection(conf, new Path(table, byFile.keySet().iterator().next()));

    long t0 = System.nanoTime();
    long read = 0;
    for (Map.Entry<String, TreeSet<Long>> e : byFile.entrySet()) {
      read += readRows(conf, projection, new Path(table, e.getKey()), e.getValue());
    }
    double batched = (System.nanoTime() - t0) / 1e6;
    check(read, byFile);

    int measured = Math.min(perPointerCap, pointers.size());
    t0 = System.nanoTime();
    for (Pointer p : pointers.subList(0, measured)) {
      TreeSet<Long> one = new TreeSet<>();
      one.add(p.rowIndex());
      readRows(conf, projection, new Path(table, p.dataFile()), one);
    }
    double perPointer = (System.nanoTime() - t0) / 1e6 * pointers.size() / Math.max(1, measured);

    t0 = System.nanoTime();
    Pipeline pipeline =
        Pipeline.create(PipelineOptionsFactory.fromArgs("--runner=DirectRunner").create());
    PCollection<StoredPayload> payloads =
        pipeline
            .apply("Pointers", Create.of(pointers).withCoder(ModelCoders.PointerCoder.of()))
            .apply("Lookup", DeltaLakeIO.lookup().withWarehouse(warehouse.toString()));
    payloads.apply("Count", Count.globally());
    PipelineResult result = pipeline.run();
    result.waitUntilFinish();
    double lookup = (System.nanoTime() - t0) / 1e6;
    Map<String, Long> m = counters(result);
    return new LookupCost(
        pointers.size(),
        byFile.size(),
        batched,
        perPointer,
        measured,
        lookup,
        m.getOrDefault("lookup_file_opens", -1L),
        m.getOrDefault("lookup_rows_read", -1L));
  }

  private static void check(long read, Map<String, TreeSet<Long>> byFile) {
    long wanted = byFile.values().stream().mapToLong(TreeSet::size).sum();
    if (read != wanted) {
      throw new IllegalStateException("read " + read + " payloads, wanted " + wanted);
    }
  }

  private static MessageType projection(Configuration conf, Path file) throws IOException {
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      return new MessageType(schema.getName(), schema.getType("payload"));
    }
  }

  /** Opens the file once and reads the wanted rows' payloads (rows in between are decoded too). */
  private static long readRows(
      Configuration conf, MessageType projection, Path file, TreeSet<Long> rows)
      throws IOException {
    Configuration c = new Configuration(conf);
    c.set(ReadSupport.PARQUET_READ_SCHEMA, projection.toString());
    long found = 0;
    long last = rows.last();
    try (ParquetReader<Group> reader =
        ParquetReader.builder(new GroupReadSupport(), file).withConf(c).build()) {
      long index = 0;
      for (Group g = reader.read(); g != null && index <= last; g = reader.read(), index++) {
        if (rows.contains(index)) {
          if (g.getBinary("payload", 0).length() == 0) {
            throw new IllegalStateException("empty payload at " + file + "#" + index);
          }
          found++;
        }
      }
    }
    return found;
  }

  private static Map<String, Long> counters(PipelineResult result) {
    Map<String, Long> m = new HashMap<>();
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.inNamespace(MetricNames.NAMESPACE))
                    .build())
            .getCounters()) {
      Long v = c.getAttempted();
      m.merge(c.getName().getName(), v == null ? 0 : v, Long::sum);
    }
    return m;
  }
}
