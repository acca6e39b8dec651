package io.streamrecon.pipeline.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.files.LocalFiles;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.FailOnRules;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The file of {@code --summaryJson}: what the printed summary says, as one JSON object a CI step
 * can read (field names in docs/operations.md#gating-a-pipeline). Only counts, the run id, the
 * release and the outcome: never another option's value, a path, a payload or a natural id.
 *
 * @param release the streamrecon release that ran
 * @param state Beam's final state of the pipeline, such as {@code DONE}
 * @param exitCode the code the command ends with
 * @param counts every count the printed summary shows, by {@link Summary#printedCounts()}
 * @param verdicts the verdicts per status
 * @param failOnBreached the {@code --failOn} rules the run breached, empty when none
 */
public record SummaryJson(
    String runId,
    String release,
    String state,
    int exitCode,
    boolean countsAddUp,
    Map<String, Long> counts,
    Map<String, Long> verdicts,
    List<BreachJson> failOnBreached) {

  /**
   * One breached rule.
   *
   * @param whole for a percentage rule, the count the percentage is a share of; absent otherwise
   * @param observedPercent for a percentage rule, the observed share in percent; absent otherwise
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record BreachJson(
      String rule, String metric, long observed, Long whole, BigDecimal observedPercent) {
    static BreachJson of(FailOnRules.Breach b) {
      return new BreachJson(
          b.rule().toString(),
          b.rule().metric().optionName(),
          b.observed(),
          b.whole(),
          b.observedPercent());
    }
  }

  public static SummaryJson of(
      String runId,
      String state,
      int exitCode,
      Summary summary,
      List<FailOnRules.Breach> breached) {
    Map<String, Long> verdicts = new LinkedHashMap<>();
    for (Map.Entry<Status, Long> e : summary.verdictsByStatus().entrySet()) {
      verdicts.put(e.getKey().name(), e.getValue());
    }
    return new SummaryJson(
        runId,
        Release.VERSION,
        state,
        exitCode,
        summary.addsUp(),
        summary.printedCounts(),
        verdicts,
        breached.stream().map(BreachJson::of).toList());
  }

  /** Writes this object to {@code file} all at once, creating its folder when missing. */
  public void writeTo(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    LocalFiles.writeAtomically(
        file, new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(this));
  }
}
