package io.streamrecon.pipeline.output;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.Test;

/** Stored JSON reads back as JSON under the limits events are accepted with. */
public class RowJsonTest {
  @Test
  public void aStringLongerThanJacksonsDefaultLimitStaysJson() {
    // Jackson's default limit is 20 million characters; an event may hold up to 64 MiB.
    int length = 21_000_000;
    JsonNode node = RowJson.json("{\"a\":\"" + "x".repeat(length) + "\"}");
    assertTrue("read as JSON, not as text: " + node.getNodeType(), node.isObject());
    assertEquals(length, node.get("a").textValue().length());
  }
}
