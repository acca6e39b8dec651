package io.streamrecon.files;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Bounded reads of option files and atomic writes that follow no planted link. */
public class LocalFilesTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void aFileUpToTheLimitIsReadWholeAndALargerOneIsRefusedInOneLine() throws Exception {
    File f = tmp.newFile("p.properties");
    Files.write(f.toPath(), new byte[100_000]);
    assertEquals(100_000, LocalFiles.readAtMost("--x", f.getPath(), 100_000).length);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LocalFiles.readAtMost("--x", f.getPath(), 99_999));
    assertEquals("--x=" + f + ": the file is larger than the limit of 99999 bytes", e.getMessage());
  }

  @Test
  public void aDeviceWithoutEndIsReadOnlyUpToTheLimit() {
    Assume.assumeTrue(Files.exists(Path.of("/dev/zero")));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LocalFiles.readAtMost("--rules", "/dev/zero", LocalFiles.SETTINGS_FILE_LIMIT));
    assertEquals("--rules=/dev/zero: the file is larger than the limit of 1 MiB", e.getMessage());
  }

  @Test
  public void missingFilesAndFoldersAreNamed() throws Exception {
    String missing = tmp.getRoot() + "/missing";
    assertEquals(
        "--x=" + missing + ": no such file",
        assertThrows(
                IllegalArgumentException.class, () -> LocalFiles.readAtMost("--x", missing, 10))
            .getMessage());
    String folder = tmp.newFolder("d").getPath();
    assertEquals(
        "--x=" + folder + " is a folder, not a file",
        assertThrows(IllegalArgumentException.class, () -> LocalFiles.readAtMost("--x", folder, 10))
            .getMessage());
  }

  @Test
  public void aWriteReplacesALinkAtTheTargetWithoutFollowingItAndLeavesNoTemporaryFile()
      throws Exception {
    Path dir = tmp.newFolder("out").toPath();
    Path victim = tmp.newFile("victim").toPath();
    Files.writeString(victim, "keep");
    Path target = dir.resolve("r.html");
    Files.createSymbolicLink(target, victim);
    LocalFiles.writeAtomically(target, "page".getBytes(StandardCharsets.UTF_8));
    assertEquals("keep", Files.readString(victim));
    assertFalse(Files.isSymbolicLink(target));
    assertArrayEquals("page".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(target));
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of(target), files.toList());
    }
    assertTrue(Files.isReadable(target));
  }
}
