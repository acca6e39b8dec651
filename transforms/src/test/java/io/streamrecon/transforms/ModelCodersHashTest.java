package io.streamrecon.transforms;

import static org.junit.Assert.assertEquals;

import io.streamrecon.model.ModelBytes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.Test;

/** Hashes travel packed (33 bytes) when they are lower-case SHA-256 hex, and exactly otherwise. */
public class ModelCodersHashTest {
  private static final String SHA =
      "a54ffbf39037d70d33bc973b9b66b658e115528c1ace659a859e34460885aa86";

  @Test
  public void aLowerCaseHexSha256IsPackedIntoThirtyThreeBytes() throws IOException {
    assertEquals(33, encode(SHA).length);
    assertEquals(SHA, roundTrip(SHA));
  }

  @Test
  public void anythingElseRoundTripsUnchanged() throws IOException {
    for (String h :
        Arrays.asList(
            null,
            "",
            SHA.toUpperCase(),
            SHA.substring(1),
            SHA + "0",
            SHA.substring(0, 63) + "g",
            "sha256:" + SHA)) {
      assertEquals(h, roundTrip(h));
      if (h != null && h.length() == 64) {
        assertEquals("not packed: " + h, true, encode(h).length > 33);
      }
    }
  }

  private static byte[] encode(String hash) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ModelBytes.writeHash(hash, out);
    return out.toByteArray();
  }

  private static String roundTrip(String hash) throws IOException {
    return ModelBytes.readHash(new ByteArrayInputStream(encode(hash)));
  }
}
