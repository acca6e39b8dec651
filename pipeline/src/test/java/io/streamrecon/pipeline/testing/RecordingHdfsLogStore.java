package io.streamrecon.pipeline.testing;

import io.delta.storage.HDFSLogStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Kernel's log store for HDFS, which a test installs for {@code hdfs:} with the key {@value
 * #CONF_KEY} in a {@code core-site.xml} on a child JVM's class path ({@link #coreSiteXml}). It
 * appends a line per log file it publishes ({@code written <name>}) or loses to another writer
 * ({@code taken <name>}) to the file named by {@value #RECORD}, so a test sees that the Hadoop
 * configuration reached Kernel's log store and how often writers raced. With {@link
 * CommitPausingFs#AT} it pauses inside the chosen commit after the log entry's lines went to HDFS
 * under a temporary name and before the rename that publishes it.
 */
public final class RecordingHdfsLogStore extends HDFSLogStore {
  /** The Hadoop configuration key Delta Kernel reads the {@code hdfs:} log store from. */
  public static final String CONF_KEY = "io.delta.kernel.logStore.hdfs.impl";

  /** The system property naming the record file. */
  public static final String RECORD = "streamrecon.test.logStoreRecord";

  public RecordingHdfsLogStore(Configuration conf) {
    super(conf);
  }

  /** The core-site.xml that installs this log store for {@code hdfs:} in a child JVM. */
  public static String coreSiteXml() {
    return "<?xml version=\"1.0\"?>\n<configuration>\n  <property>\n"
        + "    <name>"
        + CONF_KEY
        + "</name>\n"
        + "    <value>"
        + RecordingHdfsLogStore.class.getName()
        + "</value>\n"
        + "  </property>\n</configuration>\n";
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    Iterator<String> pausing =
        new Iterator<>() {
          @Override
          public boolean hasNext() {
            boolean more = actions.hasNext();
            if (!more) {
              // Every line is written to the temporary file; the rename comes next.
              try {
                CommitPausingFs.pauseIfChosen(
                    path.getParent() == null ? "" : path.getParent().getName(),
                    path.getName(),
                    path.toString());
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            }
            return more;
          }

          @Override
          public String next() {
            return actions.next();
          }
        };
    try {
      super.write(path, pausing, overwrite, conf);
      record("written " + path.getName());
    } catch (FileAlreadyExistsException e) {
      record("taken " + path.getName());
      throw e;
    }
  }

  private static void record(String line) throws IOException {
    String file = System.getProperty(RECORD);
    if (file != null) {
      Files.writeString(
          java.nio.file.Path.of(file),
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
  }
}
