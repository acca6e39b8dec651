package io.streamrecon.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A recursive delete reaches only below the folder it was meant for: a child that normalises to the
 * folder, its parent or a sibling is refused with both paths named, and nothing is deleted.
 */
public class ContainedPathsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void aDotDotChildIsRefusedAndNothingIsDeleted() throws Exception {
    java.nio.file.Path table = tmp.newFolder("wh", "deltas").toPath();
    Files.writeString(table.resolve("part-0.parquet"), "rows");
    Path sidecars = new Path(table.toUri().toString(), RowKeys.SIDECAR_DIRECTORY);
    FileSystem fs = sidecars.getFileSystem(new Configuration());
    for (String child : new String[] {"..", ".", "x/../..", "../../deltas"}) {
      IllegalStateException e =
          assertThrows(
              child,
              IllegalStateException.class,
              () -> ContainedPaths.deleteRecursively(fs, sidecars, new Path(sidecars, child)));
      assertThat(e.getMessage(), containsString("is not inside"));
      assertThat(e.getMessage(), containsString(RowKeys.SIDECAR_DIRECTORY));
    }
    assertTrue(Files.exists(table.resolve("part-0.parquet")));
  }

  @Test
  public void aStrictChildIsDeletedWithItsContent() throws Exception {
    java.nio.file.Path run = tmp.newFolder("t", RowKeys.SIDECAR_DIRECTORY, "run-1").toPath();
    Files.writeString(run.resolve("a.keys"), "keys");
    Path sidecars = new Path(run.getParent().toUri().toString());
    FileSystem fs = sidecars.getFileSystem(new Configuration());
    assertTrue(ContainedPaths.deleteRecursively(fs, sidecars, new Path(sidecars, "run-1")));
    assertFalse(Files.exists(run));
    assertTrue(Files.isDirectory(run.getParent()));
    assertFalse(
        "already gone",
        ContainedPaths.deleteRecursively(fs, sidecars, new Path(sidecars, "run-1")));
  }

  @Test
  public void aSiblingWhoseNameStartsLikeTheFolderOrAnotherFileSystemIsRefused() {
    assertThrows(
        IllegalStateException.class,
        () -> ContainedPaths.requireStrictChild(new Path("/wh/t"), new Path("/wh/tables/x")));
    assertThrows(
        IllegalStateException.class,
        () ->
            ContainedPaths.requireStrictChild(
                new Path("hdfs://a:8020/wh"), new Path("hdfs://b:8020/wh/x")));
    ContainedPaths.requireStrictChild(new Path("/wh/t"), new Path("/wh/t/x/y"));
  }

  @Test
  public void localPathsAreNormalisedBeforeTheCheck() {
    java.nio.file.Path work = java.nio.file.Path.of("bench-work");
    assertThrows(
        IllegalStateException.class,
        () -> ContainedPaths.requireStrictChild(work, work.resolve("runs/../..")));
    assertThrows(
        IllegalStateException.class,
        () -> ContainedPaths.requireStrictChild(work, work.resolve(".")));
    ContainedPaths.requireStrictChild(work, work.resolve("runs/u1-spark"));
  }
}
