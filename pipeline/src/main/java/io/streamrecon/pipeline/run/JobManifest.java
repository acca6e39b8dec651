package io.streamrecon.pipeline.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamrecon.pipeline.DurationParser;
import io.streamrecon.pipeline.ReconcileSettings;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The small file ({@code job.json}) at a streaming job's checkpoint root that ties its restarts
 * together: the job name, the run id every restart reuses, the streamrecon release that wrote the
 * checkpoints, and the options that shape the state in them. Restoring state built under other
 * values would silently give wrong verdicts (entries expired by another timeout, keys computed from
 * another field), and a checkpoint holds the job's serialized code, which another release cannot
 * read back; so a restart compares both and refuses on any change.
 *
 * @param release the {@link Release#VERSION} that wrote the checkpoints; null in a manifest of
 *     format 1, which the releases before this field wrote
 * @param stateOptions option name (as on the command line) to its normalised value
 */
public record JobManifest(
    int format,
    String jobName,
    String runId,
    String createdAt,
    String release,
    Map<String, String> stateOptions) {

  /**
   * Version of the file layout, written so that a later layout can read older files: 2 added {@code
   * release}. A release that reads only format 1 refuses a format 2 manifest, so an older release
   * does not restore a newer one's checkpoints either.
   */
  public static final int FORMAT = 2;

  private static final ObjectMapper JSON = new ObjectMapper();

  public JobManifest {
    Objects.requireNonNull(jobName, "jobName");
    Objects.requireNonNull(runId, "runId");
    stateOptions = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(stateOptions));
  }

  /**
   * The options whose change would corrupt restored state, with values normalised so that spelling
   * differences ({@code 10m} vs {@code PT10M}) do not count as changes.
   */
  public static Map<String, String> stateOptions(ReconcileSettings s) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("keyField", String.join(",", s.keyFields()));
    m.put("timeField", s.timeField());
    m.put("ignoreFields", String.join(",", s.ignoreFields()));
    m.put("timeout", DurationParser.format(s.timeout()));
    m.put("allowedLateness", DurationParser.format(s.allowedLateness()));
    m.put("expiry", s.expiry().name().toLowerCase(java.util.Locale.ROOT));
    // Both change what the restored state means: hashes are computed under the rules, and
    // entries live in the bucket their natural id hashes to.
    m.put("rules", s.rules().isEmpty() ? "none" : s.rules().id());
    m.put("pairingBuckets", String.valueOf(s.pairingBuckets()));
    return m;
  }

  /**
   * The changed state options, one readable phrase each ({@code --timeout=5m (the job has 10m)});
   * empty when the restart may restore. An option missing from an older manifest is not compared.
   */
  public List<String> changes(Map<String, String> current) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> e : current.entrySet()) {
      if (!stateOptions.containsKey(e.getKey())) {
        continue;
      }
      String before = stateOptions.get(e.getKey());
      if (!Objects.equals(before, e.getValue())) {
        out.add("--" + e.getKey() + "=" + e.getValue() + " (the job has " + show(before) + ")");
      }
    }
    return out;
  }

  private static String show(String v) {
    return v == null || v.isEmpty() ? "it empty" : v;
  }

  /** Why this release cannot restore the job's checkpoints, or empty when it wrote them itself. */
  public java.util.Optional<String> releaseMismatch(String running) {
    if (running.equals(release)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        "its checkpoints were written by "
            + (release == null ? "an earlier streamrecon release" : "streamrecon " + release)
            + " and hold that release's code, which streamrecon "
            + running
            + " cannot restore");
  }

  /** The file's text: pretty JSON, so that an operator can read it. */
  public String toJson() {
    ObjectNode o = JSON.createObjectNode();
    o.put("format", format);
    o.put("jobName", jobName);
    o.put("runId", runId);
    o.put("createdAt", createdAt);
    if (release != null) {
      o.put("release", release);
    }
    ObjectNode st = o.putObject("stateOptions");
    stateOptions.forEach(st::put);
    return o.toPrettyString() + "\n";
  }

  /**
   * Reads a manifest.
   *
   * @throws IllegalArgumentException when the text is not a manifest this version understands
   */
  public static JobManifest fromJson(String text, String where) {
    JsonNode o;
    try {
      o = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          where + " is not a readable job manifest (" + e.getOriginalMessage() + ")", e);
    }
    if (o == null
        || !o.isObject()
        || !o.path("jobName").isTextual()
        || !o.path("runId").isTextual()
        || !o.path("stateOptions").isObject()) {
      throw new IllegalArgumentException(
          where + " is not a job manifest: jobName, runId and stateOptions are required");
    }
    int format = o.path("format").asInt(FORMAT);
    if (format > FORMAT) {
      throw new IllegalArgumentException(
          where + " has format " + format + ", newer than this streamrecon reads (" + FORMAT + ")");
    }
    Map<String, String> st = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = o.get("stateOptions").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      st.put(e.getKey(), e.getValue().asText());
    }
    return new JobManifest(
        format,
        o.get("jobName").asText(),
        o.get("runId").asText(),
        o.path("createdAt").asText(""),
        o.path("release").isTextual() ? o.get("release").asText() : null,
        st);
  }
}
