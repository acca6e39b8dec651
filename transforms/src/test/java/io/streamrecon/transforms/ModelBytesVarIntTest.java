package io.streamrecon.transforms;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.streamrecon.model.ModelBytes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.apache.beam.sdk.util.VarInt;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * The core module writes varints without Beam ({@code ModelBytes}); the coders' bytes and the row
 * keys already stored depend on them being Beam's {@code VarInt} byte for byte, and on reading back
 * what Beam wrote, so they are compared with Beam's here, where Beam is on the class path.
 */
@RunWith(JUnit4.class)
public class ModelBytesVarIntTest {
  private static List<Long> longs() {
    List<Long> values =
        new ArrayList<>(
            List.of(
                0L,
                1L,
                127L,
                128L,
                255L,
                16_383L,
                16_384L,
                Integer.MAX_VALUE + 1L,
                (1L << 32) - 1,
                1L << 32,
                Long.MAX_VALUE,
                Long.MIN_VALUE,
                -1L,
                -128L));
    Random random = new Random(7);
    for (int i = 0; i < 2_000; i++) {
      values.add(random.nextLong() >> random.nextInt(64));
    }
    return values;
  }

  @Test
  public void longsAreWrittenAndReadAsBeamDoes() throws IOException {
    for (long v : longs()) {
      ByteArrayOutputStream ours = new ByteArrayOutputStream();
      ModelBytes.writeVarLong(v, ours);
      ByteArrayOutputStream beams = new ByteArrayOutputStream();
      VarInt.encode(v, beams);
      assertArrayEquals("value " + v, beams.toByteArray(), ours.toByteArray());
      assertEquals(v, ModelBytes.readVarLong(new ByteArrayInputStream(beams.toByteArray())));
    }
  }

  @Test
  public void intsAreWrittenAndReadAsBeamDoes() throws IOException {
    for (long l : longs()) {
      int v = (int) l;
      ByteArrayOutputStream ours = new ByteArrayOutputStream();
      ModelBytes.writeVarInt(v, ours);
      ByteArrayOutputStream beams = new ByteArrayOutputStream();
      VarInt.encode(v, beams);
      assertArrayEquals("value " + v, beams.toByteArray(), ours.toByteArray());
      assertEquals(v, ModelBytes.readVarInt(new ByteArrayInputStream(beams.toByteArray())));
    }
  }

  /**
   * Bytes Beam refuses are refused too, and the same way: end of stream, unterminated, too long.
   */
  @Test
  public void badVarintsAreRefusedAsBeamRefusesThem() {
    assertThrows(EOFException.class, () -> ModelBytes.readVarLong(in("")));
    assertThrows(EOFException.class, () -> VarInt.decodeLong(in("")));
    for (String hex : List.of("80", "ffff", "ffffffffffffffffff02", "ffffffffffffffffffff01")) {
      IOException ours = assertThrows(IOException.class, () -> ModelBytes.readVarLong(in(hex)));
      IOException beams = assertThrows(IOException.class, () -> VarInt.decodeLong(in(hex)));
      assertEquals(hex, beams.getMessage(), ours.getMessage());
    }
    IOException ours =
        assertThrows(IOException.class, () -> ModelBytes.readVarInt(in("8080808010")));
    IOException beams = assertThrows(IOException.class, () -> VarInt.decodeInt(in("8080808010")));
    assertEquals(beams.getMessage(), ours.getMessage());
  }

  private static ByteArrayInputStream in(String hex) {
    return new ByteArrayInputStream(HexFormat.of().parseHex(hex));
  }
}
