package io.streamrecon.deltalake;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Which ids may name a file or folder in a warehouse, and the one line that refuses the others. */
public class WarehouseIdsTest {
  @Test
  public void idsTheCommandsGenerateAndPlainNamesAreValid() {
    for (String id :
        new String[] {
          "run-20261204T210000Z-1a2b3c",
          "replay-20261204T210000Z-00ff00",
          "erasure-20261203T062100Z-cab94d",
          "streamrecon-0123456789ab",
          "forget-1b4e28ba-2fa1-11d2-883f-0016d3cca427",
          "nightly_1.v2",
          "7",
          "a".repeat(WarehouseIds.MAX_LENGTH)
        }) {
      assertTrue(id, WarehouseIds.isValid(id));
    }
  }

  @Test
  public void idsThatAreNotOnePathSegmentAreRefused() {
    for (String id :
        new String[] {
          ".", "..", "a..b", "a/b", "../x", "a:b", "-x", ".hidden", "a b", "", "a".repeat(129)
        }) {
      assertFalse(id, WarehouseIds.isValid(id));
    }
    assertFalse(WarehouseIds.isValid(null));
  }

  @Test
  public void theErrorNamesTheOptionAndTheAllowedForm() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> WarehouseIds.check("runId", ".."));
    assertEquals(
        "--runId=.. is not valid: 1 to 128 letters, digits, '_', '-' or '.', starting with a letter"
            + " or digit, without '..'",
        e.getMessage());
  }
}
