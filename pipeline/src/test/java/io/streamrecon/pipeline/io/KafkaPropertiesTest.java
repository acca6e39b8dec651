package io.streamrecon.pipeline.io;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.provider.EnvVarConfigProvider;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Secrets reach the consumer only as config-provider references, and no message shows one. */
public class KafkaPropertiesTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final String PASSWORD = "pw-7f3a91-do-not-store";
  private static final String JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"app\""
          + " password=\""
          + PASSWORD
          + "\";";

  @Test
  public void secretKeysAreKafkasPasswordsAndNamesThatSayPasswordOrSecret() {
    for (String key :
        List.of(
            "sasl.jaas.config",
            "ssl.truststore.password",
            "ssl.keystore.password",
            "ssl.key.password",
            "ssl.keystore.key",
            "ssl.truststore.certificates",
            "sasl.oauthbearer.client.credentials.client.secret",
            "basic.auth.user.info",
            "some.plugin.Password")) {
      assertTrue(key, KafkaProperties.isSecret(key));
    }
    for (String key :
        List.of(
            "group.id",
            "security.protocol",
            "sasl.mechanism",
            "ssl.truststore.location",
            "ssl.truststore.type",
            "config.providers")) {
      assertFalse(key, KafkaProperties.isSecret(key));
    }
  }

  @Test
  public void aLiteralSecretInlineIsRefusedNamingTheKeyOnly() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                KafkaProperties.fromOptions(
                    "", "security.protocol=SASL_SSL,sasl.jaas.config=\"" + JAAS + "\""));
    assertThat(e.getMessage(), containsString("--kafkaProperties: sasl.jaas.config is a secret"));
    assertThat(e.getMessage(), containsString("--kafkaPropertiesFile"));
    assertThat(e.getMessage(), containsString("${env:NAME}"));
    assertThat(e.getMessage(), not(containsString(PASSWORD)));
    IllegalArgumentException truststore =
        assertThrows(
            IllegalArgumentException.class,
            () -> KafkaProperties.fromOptions("", "ssl.truststore.password=" + PASSWORD));
    assertThat(truststore.getMessage(), containsString("ssl.truststore.password"));
    assertThat(truststore.getMessage(), not(containsString(PASSWORD)));
  }

  @Test
  public void aMalformedItemIsNotEchoed() {
    // An unquoted value with a comma: the piece after the comma is part of the password.
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> KafkaProperties.parseInline("sasl.mechanism=PLAIN,pw-part1,pw-part2"));
    assertThat(e.getMessage(), containsString("--kafkaProperties: item 2 is not key=value"));
    assertThat(e.getMessage(), not(containsString("pw-part")));
  }

  @Test
  public void inlineReferencesAreAllowedAndEnableTheirProviders() {
    Map<String, String> p =
        KafkaProperties.fromOptions(
            "",
            "security.protocol=SASL_SSL,sasl.jaas.config=${env:KAFKA_JAAS},"
                + "ssl.truststore.password=${file:/run/secrets/kafka.properties:truststore}");
    assertEquals("${env:KAFKA_JAAS}", p.get("sasl.jaas.config"));
    assertEquals("env,file", p.get("config.providers"));
    assertEquals(EnvVarConfigProvider.class.getName(), p.get("config.providers.env.class"));
    assertEquals(FileConfigProvider.class.getName(), p.get("config.providers.file.class"));
  }

  @Test
  public void providersTheUserConfiguredAreKept() {
    Map<String, String> p =
        KafkaProperties.fromOptions(
            "",
            "config.providers=vault,config.providers.vault.class=com.example.Vault,"
                + "config.providers.env.class=com.example.Env,"
                + "sasl.jaas.config=${env:KAFKA_JAAS}");
    assertEquals("vault,env", p.get("config.providers"));
    assertEquals("com.example.Env", p.get("config.providers.env.class"));
    assertEquals("com.example.Vault", p.get("config.providers.vault.class"));
  }

  @Test
  public void withoutReferencesNoProviderIsAdded() {
    Map<String, String> p = KafkaProperties.fromOptions("", "group.id=g");
    assertEquals(Map.of("group.id", "g"), p);
  }

  @Test
  public void secretsOfTheFileBecomeReferencesToItThatKafkaResolves() throws Exception {
    Path file = secretsFile();
    Map<String, String> p = KafkaProperties.fromOptions(file.toString(), "group.id=inline");
    String abs = file.toAbsolutePath().toString();
    assertEquals("${file:" + abs + ":sasl.jaas.config}", p.get("sasl.jaas.config"));
    assertEquals("${file:" + abs + ":ssl.truststore.password}", p.get("ssl.truststore.password"));
    assertEquals("SASL_SSL", p.get("security.protocol"));
    assertEquals("/etc/kafka/truststore.p12", p.get("ssl.truststore.location"));
    assertEquals("inline", p.get("group.id"));
    assertEquals("file", p.get("config.providers"));
    assertThat(p.toString(), not(containsString(PASSWORD)));

    // The client resolves the references when it is configured, as a consumer is.
    Map<String, Object> config = new HashMap<>(p);
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    ConsumerConfig resolved = new ConsumerConfig(config);
    assertEquals(JAAS, resolved.getPassword("sasl.jaas.config").value());
    assertEquals(PASSWORD, resolved.getPassword("ssl.truststore.password").value());
  }

  @Test
  public void aFileReferenceInTheFileStaysAsItIs() throws Exception {
    Path file = tmp.getRoot().toPath().resolve("ref.properties");
    Files.writeString(file, "sasl.jaas.config=${env:KAFKA_JAAS}\n", StandardCharsets.UTF_8);
    Map<String, String> p = KafkaProperties.fromOptions(file.toString(), "");
    assertEquals("${env:KAFKA_JAAS}", p.get("sasl.jaas.config"));
    assertEquals("env", p.get("config.providers"));
  }

  @Test
  public void theSerialisedKafkaReadHoldsNoSecret() throws Exception {
    Map<String, String> p = KafkaProperties.fromOptions(secretsFile().toString(), "");
    KafkaIO.Read<byte[], byte[]> read =
        ReadKafka.of(Side.SOURCE, InputSpec.parse("source", "kafka://127.0.0.1:9/t"))
            .withConsumerProperties(p)
            .kafkaRead();
    // What a runner stores in its checkpoints and job graph: KafkaIO's source, Java-serialised.
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(ReadKafka.makeSource(read));
    }
    String source = bytes.toString(StandardCharsets.ISO_8859_1);
    assertThat(source, containsString("${file:"));
    assertThat(source, not(containsString(PASSWORD)));
  }

  private Path secretsFile() throws Exception {
    Path file = tmp.getRoot().toPath().resolve("kafka.properties");
    java.util.Properties props = new java.util.Properties();
    props.setProperty("security.protocol", "SASL_SSL");
    props.setProperty("sasl.mechanism", "PLAIN");
    props.setProperty("sasl.jaas.config", JAAS);
    props.setProperty("ssl.truststore.location", "/etc/kafka/truststore.p12");
    props.setProperty("ssl.truststore.password", PASSWORD);
    try (var w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      props.store(w, null);
    }
    return file;
  }
}
