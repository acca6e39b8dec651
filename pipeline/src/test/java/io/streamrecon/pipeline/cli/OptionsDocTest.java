package io.streamrecon.pipeline.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Test;

/** docs/options.md is what {@code options --markdown} prints from ReconcileOptions. */
public class OptionsDocTest {
  /** The repository's docs directory; tests run in the module directory. */
  private static final Path OPTIONS_MD = Path.of("..", "docs", "options.md");

  @Test
  public void theCheckedInOptionsPageIsUpToDate() throws IOException {
    String checkedIn =
        Files.exists(OPTIONS_MD) ? Files.readString(OPTIONS_MD, StandardCharsets.UTF_8) : "";
    assertEquals(
        "docs/options.md differs from ReconcileOptions; regenerate it with: "
            + OptionsCommand.REGENERATE,
        OptionsCommand.markdown(),
        checkedIn);
  }

  @Test
  public void everyOptionHasItsTypeDefaultAndDescription() {
    String md = OptionsCommand.markdown();
    assertThat(
        md,
        containsString(
            "| `--warehouse` | String | `./warehouse` | Directory or Hadoop URI under which the"
                + " Delta Lake tables are written |"));
    assertThat(md, containsString("| `--pairingBuckets` | int | `1024` |"));
    assertThat(md, containsString("| `--runId` | String | generated |"));
    assertThat(md, containsString("| `--source` | String | none |"));
  }
}
