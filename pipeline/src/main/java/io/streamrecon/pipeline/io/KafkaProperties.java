package io.streamrecon.pipeline.io;

import io.streamrecon.files.LocalFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.provider.EnvVarConfigProvider;
import org.apache.kafka.common.config.provider.FileConfigProvider;

/**
 * Kafka consumer properties from {@code --kafkaPropertiesFile} (a Java properties file) and {@code
 * --kafkaProperties} (comma-separated {@code key=value}; a value containing commas goes in double
 * quotes). Inline properties win over the file. Values are passed to the consumer as given, so
 * every security setting ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}) works, except
 * secrets.
 *
 * <p>A secret never enters the consumer configuration: the runners serialise that configuration
 * (and the pipeline options) into their checkpoints and job graphs, which live in the warehouse.
 * The configuration carries a reference instead, which the Kafka client resolves with its config
 * providers when it creates the consumer, wherever that runs: a secret from the file becomes {@code
 * ${file:<absolute path>:<key>}}, so the client reads the file again. Inline, a secret must already
 * be a reference ({@code ${env:NAME}}, {@code ${file:path:key}}); a literal one is refused. {@link
 * #isSecret} says which keys hold secrets.
 */
public final class KafkaProperties {
  private KafkaProperties() {}

  /** Kafka's config key naming the enabled config providers. */
  private static final String CONFIG_PROVIDERS = "config.providers";

  /** The providers a reference may use without the user configuring them, by name. */
  private static final Map<String, String> BUILT_IN_PROVIDERS =
      Map.of(
          "env", EnvVarConfigProvider.class.getName(),
          "file", FileConfigProvider.class.getName());

  /** Kafka's consumer settings of type PASSWORD (sasl.jaas.config, ssl.*.password, ...). */
  private static final Set<String> PASSWORD_KEYS =
      ConsumerConfig.configDef().configKeys().values().stream()
          .filter(k -> k.type == ConfigDef.Type.PASSWORD)
          .map(k -> k.name)
          .collect(Collectors.toUnmodifiableSet());

  /**
   * Secrets Kafka's consumer does not declare (other clients' settings, such as a schema registry's
   * {@code basic.auth.user.info}, or an OAuth client secret), by the end of their name.
   */
  private static final Pattern SECRET_NAME =
      Pattern.compile("(?i).*(password|secret|jaas\\.config|user\\.info)");

  /** A config-provider reference, {@code ${provider:[path:]key}}. */
  private static final Pattern REFERENCE = Pattern.compile("\\$\\{([^}:]+):[^}]*}");

  /**
   * The consumer properties of a run: the file's, overridden by the inline ones, with every secret
   * as a reference and the config providers the references use enabled.
   *
   * @throws IllegalArgumentException naming the option (and key, never a value) when the file
   *     cannot be read, the inline list is malformed, or it holds a literal secret
   */
  public static Map<String, String> fromOptions(String file, String inline) {
    Map<String, String> result = new LinkedHashMap<>();
    Map<String, String> fromFile = readFile(file);
    fromFile.forEach(
        (key, value) ->
            result.put(
                key, isSecret(key) && !isReference(value) ? fileReference(file, key) : value));
    parseInline(inline)
        .forEach(
            (key, value) -> {
              if (isSecret(key) && !isReference(value)) {
                throw new IllegalArgumentException(
                    "--kafkaProperties: "
                        + key
                        + " is a secret and must not be given inline (it would be stored with"
                        + " the job's options); put it in --kafkaPropertiesFile or give a"
                        + " reference, "
                        + key
                        + "=${env:NAME}");
              }
              result.put(key, value);
            });
    enableProviders(result);
    return result;
  }

  /**
   * Whether the value of {@code key} is a secret: a setting Kafka's consumer declares as a
   * password, or a key ending in {@code password}, {@code secret}, {@code jaas.config} or {@code
   * user.info}.
   */
  public static boolean isSecret(String key) {
    return PASSWORD_KEYS.contains(key) || SECRET_NAME.matcher(key).matches();
  }

  /** Whether {@code value} is wholly a config-provider reference such as {@code ${env:NAME}}. */
  static boolean isReference(String value) {
    return value != null && REFERENCE.matcher(value.trim()).matches();
  }

  /** {@code ${file:<absolute path>:<key>}}; Kafka's pattern allows no ':' or braces in the path. */
  private static String fileReference(String file, String key) {
    String path = Path.of(file).toAbsolutePath().normalize().toString();
    if (path.contains(":") || path.contains("{") || path.contains("}")) {
      throw new IllegalArgumentException(
          "--kafkaPropertiesFile="
              + file
              + ": a file with secrets ("
              + key
              + ") must have a path without ':', '{' or '}', as Kafka reads the secrets from it"
              + " again through ${file:path:key}");
    }
    return "${file:" + path + ":" + key + "}";
  }

  /**
   * Adds the built-in providers the references use to {@code config.providers}, with their classes
   * unless the properties name a class for them already.
   */
  private static void enableProviders(Map<String, String> props) {
    Set<String> used = new TreeSet<>();
    for (String value : props.values()) {
      // Kafka resolves references inside longer values too.
      Matcher m = REFERENCE.matcher(value);
      while (m.find()) {
        used.add(m.group(1));
      }
    }
    used.retainAll(BUILT_IN_PROVIDERS.keySet());
    if (used.isEmpty()) {
      return;
    }
    Set<String> enabled = new LinkedHashSet<>();
    for (String name : props.getOrDefault(CONFIG_PROVIDERS, "").split(",")) {
      if (!name.isBlank()) {
        enabled.add(name.trim());
      }
    }
    for (String name : used) {
      enabled.add(name);
      props.putIfAbsent(CONFIG_PROVIDERS + "." + name + ".class", BUILT_IN_PROVIDERS.get(name));
    }
    props.put(CONFIG_PROVIDERS, String.join(",", enabled));
  }

  /** Parses the inline list. */
  public static Map<String, String> parseInline(String text) {
    Map<String, String> result = new LinkedHashMap<>();
    if (text == null || text.isBlank()) {
      return result;
    }
    List<String> items = splitOutsideQuotes(text);
    for (int i = 0; i < items.size(); i++) {
      String item = items.get(i);
      if (item.isBlank()) {
        continue;
      }
      int eq = item.indexOf('=');
      if (eq <= 0) {
        // Not echoed: an unquoted value with a comma leaves a piece of it here, maybe a password.
        throw new IllegalArgumentException(
            "--kafkaProperties: item "
                + (i + 1)
                + " is not key=value; use a comma-separated list like"
                + " security.protocol=SASL_SSL,sasl.mechanism=PLAIN (a value with commas goes in"
                + " double quotes)");
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
