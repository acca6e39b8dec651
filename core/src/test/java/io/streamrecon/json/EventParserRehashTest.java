package io.streamrecon.json;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;

import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.joda.time.Instant;
import org.junit.Test;

/** {@link EventParser#sha256} gives the hash {@link EventParser#parse} gives, on either path. */
public class EventParserRehashTest {
  private static final List<String> DOCS =
      List.of(
          "{\"id\":\"a\",\"eventTime\":\"2026-01-01T00:00:00Z\",\"x\":1.0,\"meta\":{\"at\":5}}",
          "{\"eventTime\":1767225600000,\"id\":42,\"x\":1e0,\"tags\":[\"b\",\"a\"],\"meta\":{}}",
          "{\"id\":\"c\",\"eventTime\":\"2026-01-01T00:00:00Z\",\"customerName\":\"Ann\","
              + "\"email\":\" ANN@x.org\",\"items\":[{\"sku\":\"B\",\"qty\":\"2\"},"
              + "{\"sku\":\"A\",\"qty\":1}],\"total\":10.001}");

  private static final String RULES =
      "{\"rename\":{\"/customerName\":\"/customer/name\"},"
          + "\"normalize\":{\"/email\":[\"trim\",\"lowercase\"]},"
          + "\"unordered\":{\"/items\":\"/sku\",\"/tags\":null},"
          + "\"lenientTypes\":[\"/items/*/qty\"],\"ignore\":[\"/meta/at\"]}";

  private static void assertSameHash(EventParser parser) throws Exception {
    for (String doc : DOCS) {
      byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
      for (Side side : Side.values()) {
        String parsed =
            parser
                .parse(new RawInput(side, bytes, Origin.fileLine("f", 1), new Instant(0)))
                .sha256();
        assertEquals(doc, parsed, parser.sha256(side, bytes, new EventParser.Scratch()));
      }
    }
  }

  @Test
  public void sameHashAsParsing() throws Exception {
    assertSameHash(new EventParser(ParseConfig.defaults()));
    assertSameHash(new EventParser(ParseConfig.defaults().withIgnoreFields(List.of("/meta"))));
    assertSameHash(
        new EventParser(
            ParseConfig.defaults().withIgnoreFields(List.of("/meta/at")),
            ComparisonRules.parse(RULES.getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  public void rulesChangeTheHashOfARenamedSource() throws Exception {
    byte[] doc = DOCS.get(2).getBytes(StandardCharsets.UTF_8);
    EventParser plain = new EventParser(ParseConfig.defaults());
    EventParser ruled =
        new EventParser(
            ParseConfig.defaults(), ComparisonRules.parse(RULES.getBytes(StandardCharsets.UTF_8)));
    assertNotEquals(
        plain.sha256(Side.SOURCE, doc, new EventParser.Scratch()),
        ruled.sha256(Side.SOURCE, doc, new EventParser.Scratch()));
  }
}
