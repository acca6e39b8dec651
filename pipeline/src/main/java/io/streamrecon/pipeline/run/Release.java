package io.streamrecon.pipeline.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The streamrecon release this code belongs to, as the build wrote it into {@code
 * release.properties}. A streaming checkpoint holds the job's serialized code, so a job's manifest
 * records the release that wrote it ({@link JobManifest}) and another release refuses to restore
 * it.
 */
public final class Release {
  private Release() {}

  /** The version of this build, for example {@code 0.1.0}. */
  public static final String VERSION = read();

  private static String read() {
    try (InputStream in =
        Release.class.getResourceAsStream("/io/streamrecon/pipeline/release.properties")) {
      if (in == null) {
        throw new IllegalStateException("release.properties is missing from the build");
      }
      Properties p = new Properties();
      p.load(in);
      String v = p.getProperty("version", "");
      if (v.isEmpty() || v.startsWith("${")) {
        throw new IllegalStateException("release.properties was not filled in by the build: " + v);
      }
      return v;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
