package io.streamrecon.bench;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.Test;

public class SoakCommandTest {
  @Test
  public void profileFlagsStartANamedProfileRecordingThenPassTheCallersFlags() {
    List<String> flags =
        SoakCommand.profileFlags(
            Path.of("/tmp/t/pipeline.jfr"), List.of("-Dspark.ui.retainedJobs=5000"));

    assertEquals(
        List.of(
            "-XX:StartFlightRecording=name=soak,filename=/tmp/t/pipeline.jfr,settings=profile,"
                + "dumponexit=true",
            "-Dspark.ui.retainedJobs=5000"),
        flags);
  }

  @Test
  public void noRecordingWithoutAFile() {
    assertEquals(List.of(), SoakCommand.profileFlags(null, List.of()));
  }

  @Test
  public void theRunLineIsTheRunnersFirstProgressLine() {
    assertTrue(
        SoakCommand.RUN_LINE
            .matcher("26/12/03 06:58:59 INFO ReconcileRun: progress: input 0," + " dead letters 0")
            .find());
    assertTrue(SoakCommand.RUN_LINE.matcher("INFO PeerStream started").find());
    assertFalse(
        SoakCommand.RUN_LINE.matcher("INFO KafkaUnboundedReader: Reader-0 is reading").find());
  }
}
