package io.streamrecon.pipeline.run;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcileSettings;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Test;

public class JobManifestTest {
  private static ReconcileSettings settings(String... args) {
    return ReconcileSettings.from(PipelineOptionsFactory.fromArgs(args).as(ReconcileOptions.class));
  }

  private static final String[] BASE = {"--source=kafka://h:1/a", "--target=kafka://h:1/b"};

  private static String[] with(String... more) {
    String[] all = new String[BASE.length + more.length];
    System.arraycopy(BASE, 0, all, 0, BASE.length);
    System.arraycopy(more, 0, all, BASE.length, more.length);
    return all;
  }

  @Test
  public void roundTripsThroughJson() {
    JobManifest m =
        new JobManifest(
            2,
            "job-a",
            "run-1",
            "2026-11-30T00:00:00Z",
            Release.VERSION,
            JobManifest.stateOptions(settings(BASE)));
    JobManifest back = JobManifest.fromJson(m.toJson(), "x");
    assertEquals(m, back);
  }

  @Test
  public void sameValuesSpelledDifferentlyAreNoChange() {
    JobManifest m =
        new JobManifest(
            2,
            "j",
            "r",
            "",
            Release.VERSION,
            JobManifest.stateOptions(settings(with("--timeout=10m"))));
    assertEquals(List.of(), m.changes(JobManifest.stateOptions(settings(with("--timeout=PT10M")))));
    assertEquals(
        "allowed lateness defaults to the timeout, so spelling it out is no change",
        List.of(),
        m.changes(JobManifest.stateOptions(settings(with("--allowedLateness=600s")))));
  }

  @Test
  public void everyStateShapingOptionIsCompared() {
    JobManifest m =
        new JobManifest(2, "j", "r", "", Release.VERSION, JobManifest.stateOptions(settings(BASE)));
    Map<String, String> changed =
        Map.of(
            "--timeout=5m", "timeout",
            "--keyField=/orderId", "keyField",
            "--timeField=/ts", "timeField",
            "--ignoreFields=/meta", "ignoreFields",
            "--allowedLateness=1m", "allowedLateness",
            "--expiry=processing", "expiry",
            "--pairingBuckets=256", "pairingBuckets");
    changed.forEach(
        (arg, name) -> {
          List<String> changes = m.changes(JobManifest.stateOptions(settings(with(arg))));
          // A changed timeout also changes the allowed lateness that defaults to it.
          assertTrue(
              arg + " gives " + changes,
              changes.stream()
                  .anyMatch(c -> c.startsWith("--" + name + "=") && c.contains("(the job has ")));
        });
  }

  @Test
  public void changedRulesAreAChange() throws Exception {
    java.nio.file.Path rules = java.nio.file.Files.createTempFile("rules", ".json");
    try {
      java.nio.file.Files.writeString(rules, "{\"ignore\": [\"/meta\"]}");
      JobManifest m =
          new JobManifest(
              2, "j", "r", "", Release.VERSION, JobManifest.stateOptions(settings(BASE)));
      List<String> changes =
          m.changes(JobManifest.stateOptions(settings(with("--rules=" + rules))));
      assertEquals(1, changes.size());
      assertThat(changes.get(0), containsString("--rules="));
      assertThat(changes.get(0), containsString("(the job has none)"));
    } finally {
      java.nio.file.Files.deleteIfExists(rules);
    }
  }

  @Test
  public void optionsThatDoNotShapeStateMayChange() {
    JobManifest m =
        new JobManifest(2, "j", "r", "", Release.VERSION, JobManifest.stateOptions(settings(BASE)));
    assertEquals(
        List.of(),
        m.changes(
            JobManifest.stateOptions(
                settings(
                    with("--commitInterval=1s", "--emitMatches=true", "--progressInterval=5s")))));
  }

  @Test
  public void anOptionUnknownToAnOlderManifestIsNotCompared() {
    JobManifest m = new JobManifest(2, "j", "r", "", Release.VERSION, Map.of("timeout", "10m"));
    assertEquals(List.of(), m.changes(Map.of("timeout", "10m", "pairingBuckets", "1000")));
  }

  @Test
  public void checkpointsOfAnotherReleaseDoNotResume() {
    JobManifest same = new JobManifest(2, "j", "r", "", Release.VERSION, Map.of());
    assertEquals(java.util.Optional.empty(), same.releaseMismatch(Release.VERSION));
    JobManifest other = new JobManifest(2, "j", "r", "", "0.0.9", Map.of());
    assertThat(
        other.releaseMismatch(Release.VERSION).orElseThrow(),
        containsString("written by streamrecon 0.0.9"));
    // What the releases before the field wrote: format 1, no release.
    JobManifest older =
        JobManifest.fromJson(
            "{\"format\":1,\"jobName\":\"j\",\"runId\":\"r\",\"stateOptions\":{}}", "f");
    assertThat(
        older.releaseMismatch(Release.VERSION).orElseThrow(),
        containsString("an earlier streamrecon release"));
  }

  @Test
  public void rejectsWhatIsNotAManifest() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> JobManifest.fromJson("{\"a\":1}", "f"));
    assertThat(e.getMessage(), containsString("f is not a job manifest"));
    assertThrows(IllegalArgumentException.class, () -> JobManifest.fromJson("{", "f"));
    IllegalArgumentException newer =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                JobManifest.fromJson(
                    "{\"format\":9,\"jobName\":\"j\",\"runId\":\"r\",\"stateOptions\":{}}", "f"));
    assertTrue(newer.getMessage().contains("newer"));
  }
}
