package io.streamrecon.pipeline.io;

import java.util.regex.Pattern;

/**
 * Where one side is read from: a Kafka topic ({@code kafka://host:port[,host:port]/topic}) or a
 * JSON Lines file path or glob.
 *
 * @param bootstrapServers Kafka bootstrap servers, {@code null} for files
 * @param topic Kafka topic, {@code null} for files
 * @param filePattern file path or glob, {@code null} for Kafka
 */
public record InputSpec(String bootstrapServers, String topic, String filePattern) {
  public static final String KAFKA_SCHEME = "kafka://";
  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  private static final Pattern HOST_PORT = Pattern.compile("[^\\s:,/]+:\\d{1,5}");

  /**
   * Parses the value of {@code --source} or {@code --target}.
   *
   * @throws IllegalArgumentException naming the option and the accepted forms
   */
  public static InputSpec parse(String option, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          "--"
              + option
              + " is required: a JSON Lines file path or glob, or kafka://host:port/topic");
    }
    String v = value.trim();
    if (!v.startsWith(KAFKA_SCHEME)) {
      return new InputSpec(null, null, v);
    }
    String rest = v.substring(KAFKA_SCHEME.length());
    int slash = rest.indexOf('/');
    String servers = slash < 0 ? rest : rest.substring(0, slash);
    String topic = slash < 0 ? "" : rest.substring(slash + 1);
    boolean serversOk = !servers.isEmpty();
    for (String hp : servers.split(",", -1)) {
      serversOk &= HOST_PORT.matcher(hp).matches();
    }
    if (!serversOk || !TOPIC.matcher(topic).matches()) {
      throw new IllegalArgumentException(
          "--"
              + option
              + "="
              + value
              + " is not a Kafka address: use kafka://host:port[,host:port]/topic (topic of"
              + " letters, digits, '.', '_', '-')");
    }
    return new InputSpec(servers, topic, null);
  }

  /** True for a Kafka topic, false for files. */
  public boolean isKafka() {
    return topic != null;
  }

  @Override
  public String toString() {
    return isKafka() ? KAFKA_SCHEME + bootstrapServers + "/" + topic : filePattern;
  }
}
