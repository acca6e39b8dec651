package io.streamrecon.pipeline.io;

import io.streamrecon.files.LocalFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Kafka consumer properties from {@code --kafkaPropertiesFile} (a Java properties file) and
 * {@code --kafkaProperties} (comma-separated {@code key=value}; a value containing commas goes in
 * double quotes). Inline properties win over the file. Values are passed to the consumer as given,
 * so every security setting ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}) works.
 */
public final class KafkaProperties {
  private KafkaProperties() {}

  /** Parses the inline list. */
  public static Map<String, String> parseInline(String text) {
    Map<String, String> result = new LinkedHashMap<>();
    if (text == null || text.isBlank()) {
      return result;
    }
    for (String item : splitOutsideQuotes(text)) {
      if (item.isBlank()) {
        continue;
      }
      int eq = item.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "--kafkaProperties: '"
                + keyOnly(item)
                + "' is not key=value; use a comma-separated list like"
                + " security.protocol=SASL_SSL,sasl.mechanism=PLAIN");
      }
      String key = item.substring(0, eq).trim();
      String value = item.substring(eq + 1).trim();
      if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
        value = value.substring(1, value.length() - 1);
      }
      result.put(key, value);
    }
    return result;
  }

  /**
   * Reads a properties file of at most {@link LocalFiles#SETTINGS_FILE_LIMIT} bytes; {@code path}
   * empty gives no properties.
   */
  public static Map<String, String> readFile(String path) {
    Map<String, String> result = new LinkedHashMap<>();
    if (path == null || path.isBlank()) {
      return result;
    }
    Properties props = new Properties();
    byte[] bytes =
        LocalFiles.readAtMost("--kafkaPropertiesFile", path, LocalFiles.SETTINGS_FILE_LIMIT);
    try (Reader r =
        new InputStreamReader(
            new ByteArrayInputStream(bytes), StandardCharsets.UTF_8.newDecoder())) {
      props.load(r);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--kafkaPropertiesFile=" + path + ": cannot read (" + e.getMessage() + ")");
    }
    for (String name : props.stringPropertyNames()) {
      result.put(name, props.getProperty(name));
    }
    return result;
  }

  /** The file's properties overridden by the inline ones. */
  public static Map<String, String> merge(String file, String inline) {
    Map<String, String> result = new LinkedHashMap<>(readFile(file));
    result.putAll(parseInline(inline));
    return result;
  }

  // Never echo a value: the list may hold a password.
  private static String keyOnly(String item) {
    int eq = item.indexOf('=');
    return eq < 0 ? item.trim() : item.substring(0, eq).trim();
  }

  private static List<String> splitOutsideQuotes(String text) {
    List<String> parts = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      }
      if (c == ',' && !quoted) {
        parts.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    parts.add(current.toString());
    return parts;
  }
}
