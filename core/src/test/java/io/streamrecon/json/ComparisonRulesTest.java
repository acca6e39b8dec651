package io.streamrecon.json;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

@RunWith(JUnit4.class)
public class ComparisonRulesTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();

  static final String SPEC_EXAMPLE =
      "{\"ignore\":[\"/meta/ingestedAt\",\"/items/*/updatedAt\"],"
          + "\"rename\":{\"/customer/fullName\":\"/customer/name\"},"
          + "\"unordered\":{\"/tags\":null,\"/items\":\"/sku\"},"
          + "\"tolerance\":{\"/amount\":{\"abs\":0.01},\"/items/*/price\":{\"rel\":0.001}},"
          + "\"lenientTypes\":[\"/id\",\"/items/*/qty\"],"
          + "\"normalize\":{\"/customer/email\":[\"trim\",\"lowercase\"]},"
          + "\"instants\":[\"/createdAt\"]}";

  static ComparisonRules rules(String json) {
    return ComparisonRules.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String error(String json) {
    return assertThrows(IllegalArgumentException.class, () -> rules(json)).getMessage();
  }

  @Test
  public void parsesEveryMemberOfTheSpecExample() {
    ComparisonRules r = rules(SPEC_EXAMPLE);
    assertEquals(
        List.of("/meta/ingestedAt", "/items/*/updatedAt"),
        r.ignore().stream().map(PathPattern::text).toList());
    assertEquals("/customer/fullName", r.rename().get(0).from().text());
    assertEquals("/customer/name", r.rename().get(0).to().text());
    assertEquals(2, r.unordered().size());
    assertEquals(new BigDecimal("0.01"), r.toleranceAt(new String[] {"amount"}).abs());
    assertEquals(
        new BigDecimal("0.001"), r.toleranceAt(new String[] {"items", "7", "price"}).rel());
    assertNull(r.toleranceAt(new String[] {"items", "7", "qty"}));
    assertEquals(2, r.lenientTypes().size());
    assertEquals(
        List.of(ComparisonRules.Normaliser.TRIM, ComparisonRules.Normaliser.LOWERCASE),
        r.normalize().get(0).steps());
    assertEquals("/createdAt", r.instants().get(0).text());
    assertEquals(11, r.describe().size()); // one line per rule
  }

  @Test
  public void idIsTheHashOfTheCanonicalFormSoFormattingDoesNotChangeIt() {
    ComparisonRules a = rules("{\"ignore\":[\"/a\"],\"instants\":[\"/t\"]}");
    ComparisonRules b = rules("{ \"instants\" : [ \"/t\" ],\n \"ignore\" : [\"/a\"] }");
    ComparisonRules c = rules("{\"ignore\":[\"/b\"],\"instants\":[\"/t\"]}");
    assertEquals(64, a.id().length());
    assertEquals(a.id(), b.id());
    assertNotEquals(a.id(), c.id());
    assertNull(ComparisonRules.none().id());
    assertEquals(a.id(), a.withIgnoreFields(List.of("/x")).id());
  }

  @Test
  public void ignoreFieldsAreAddedToIgnore() {
    ComparisonRules r = rules("{\"ignore\":[\"/a\"]}").withIgnoreFields(List.of("/a", "/b"));
    assertEquals(List.of("/a", "/b"), r.ignore().stream().map(PathPattern::text).toList());
    assertFalse(ComparisonRules.none().withIgnoreFields(List.of("/b")).isEmpty());
    assertTrue(ComparisonRules.none().isEmpty());
  }

  @Test
  public void everyBadMemberIsNamedOnOneLine() {
    assertTrue(error("{\"ignor\":[\"/a\"]}").startsWith("unknown member \"ignor\""));
    assertTrue(error("{\"ignore\":[\"a\"]}").contains("\"ignore\": 'a' is not a JSON Pointer"));
    assertTrue(error("{\"ignore\":[\"\"]}").contains("\"ignore\""));
    assertTrue(error("{\"ignore\":[\"/a~2\"]}").contains("'~' must be followed by 0 or 1"));
    assertTrue(error("{\"rename\":{\"/a\":\"b\"}}").contains("\"rename\" /a"));
    assertTrue(error("{\"rename\":{\"/a/*\":\"/b\"}}").contains("same number of '*'"));
    assertTrue(error("{\"unordered\":{\"/a\":3}}").contains("\"unordered\" /a"));
    assertTrue(error("{\"unordered\":{\"/a\":\"sku\"}}").contains("\"unordered\" /a"));
    assertEquals(
        "\"tolerance\" /amount: abs must not be negative, got -0.01",
        error("{\"tolerance\":{\"/amount\":{\"abs\":-0.01}}}"));
    assertTrue(error("{\"tolerance\":{\"/a\":{\"abss\":1}}}").contains("unknown member \"abss\""));
    assertTrue(error("{\"tolerance\":{\"/a\":{}}}").contains("\"tolerance\" /a"));
    assertTrue(error("{\"tolerance\":{\"/a\":{\"rel\":\"1\"}}}").contains("rel must be a number"));
    assertEquals(
        "\"normalize\" /e: unknown normaliser \"upper\"; expected trim, lowercase or"
            + " collapseSpaces",
        error("{\"normalize\":{\"/e\":[\"trim\",\"upper\"]}}"));
    assertTrue(error("{\"lenientTypes\":\"/a\"}").contains("\"lenientTypes\" must be an array"));
    assertTrue(error("[1]").contains("one JSON object"));
    assertTrue(error("{\"ignore\":").startsWith("not valid JSON"));
    for (String message :
        List.of(error("{\"x\":1}"), error("{\"tolerance\":{\"/a\":{\"abs\":-1}}}"))) {
      assertFalse(message, message.contains("\n"));
    }
  }

  @Test
  public void fileErrorsNameTheFile() throws Exception {
    Path file = tmp.newFile("rules.json").toPath();
    Files.writeString(file, "{\"instants\":[\"createdAt\"]}");
    String message =
        assertThrows(
                IllegalArgumentException.class, () -> ComparisonRules.fromFile(file.toString()))
            .getMessage();
    assertTrue(message, message.startsWith("--rules=" + file + ": \"instants\""));
    String missing =
        assertThrows(
                IllegalArgumentException.class, () -> ComparisonRules.fromFile(file + ".missing"))
            .getMessage();
    assertEquals("--rules=" + file + ".missing: no such file", missing);
    Files.writeString(file, SPEC_EXAMPLE);
    assertEquals(rules(SPEC_EXAMPLE).id(), ComparisonRules.fromFile(file.toString()).id());
  }

  @Test
  public void toleranceBoundsAreInclusiveAndEitherSuffices() {
    ComparisonRules.Tolerance abs =
        new ComparisonRules.Tolerance(null, new BigDecimal("0.01"), null);
    assertTrue(abs.within(new BigDecimal("1.00"), new BigDecimal("1.01")));
    assertFalse(abs.within(new BigDecimal("1.00"), new BigDecimal("1.0101")));
    ComparisonRules.Tolerance rel =
        new ComparisonRules.Tolerance(null, null, new BigDecimal("0.001"));
    assertTrue(rel.within(new BigDecimal("1000"), new BigDecimal("1001")));
    assertFalse(rel.within(new BigDecimal("10"), new BigDecimal("10.02")));
    ComparisonRules.Tolerance both =
        new ComparisonRules.Tolerance(null, new BigDecimal("0.5"), new BigDecimal("0.001"));
    assertTrue(both.within(new BigDecimal("10"), new BigDecimal("10.4")));
    assertTrue(both.within(new BigDecimal("10000"), new BigDecimal("10009")));
    assertFalse(both.within(new BigDecimal("10"), new BigDecimal("11")));
    // Huge exponents do not build huge numbers.
    assertFalse(abs.within(new BigDecimal("1e999999999"), BigDecimal.ONE));
  }

  @Test
  public void rulesSerializeForDoFns() throws Exception {
    ComparisonRules r = rules(SPEC_EXAMPLE);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(r);
    }
    try (java.io.ObjectInputStream in =
        new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      ComparisonRules back = (ComparisonRules) in.readObject();
      assertEquals(r.id(), back.id());
      assertEquals(r.describe(), back.describe());
    }
  }
}
