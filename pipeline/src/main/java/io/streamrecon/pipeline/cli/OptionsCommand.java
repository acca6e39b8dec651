package io.streamrecon.pipeline.cli;

import io.streamrecon.pipeline.ReconcileOptions;
import java.beans.Introspector;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code options}: lists the options of {@code run}, those {@link ReconcileOptions} declares, each
 * with its type, default and description. {@code --markdown} prints the table that is checked in as
 * {@code docs/options.md}: {@code bin/streamrecon options --markdown > docs/options.md}.
 */
@Command(
    name = "options",
    description = "List the options of run (--markdown: the table of docs/options.md).")
final class OptionsCommand implements Callable<Integer> {
  /** The command that regenerates {@code docs/options.md}. */
  static final String REGENERATE = "bin/streamrecon options --markdown > docs/options.md";

  @Option(names = "--markdown", description = "Print docs/options.md")
  boolean markdown;

  /** One option of {@code run}. */
  record Doc(String name, String type, String defaultValue, String description) {}

  @Override
  public Integer call() {
    if (markdown) {
      System.out.print(markdown());
    } else {
      for (Doc d : docs()) {
        System.out.printf(
            "--%s=<%s> (default: %s)%n    %s%n",
            d.name(), d.type(), d.defaultValue().replace("`", ""), d.description());
      }
    }
    System.out.flush();
    return 0;
  }

  /** The options {@link ReconcileOptions} declares, by name. */
  static List<Doc> docs() {
    List<Doc> docs = new ArrayList<>();
    for (Method m : ReconcileOptions.class.getDeclaredMethods()) {
      String property = property(m);
      if (property == null) {
        continue;
      }
      Description d = m.getAnnotation(Description.class);
      docs.add(
          new Doc(
              property,
              m.getReturnType().getSimpleName(),
              defaultOf(m),
              d == null ? "" : d.value()));
    }
    docs.sort(Comparator.comparing(Doc::name));
    return docs;
  }

  /** The contents of {@code docs/options.md}. */
  static String markdown() {
    StringBuilder b = new StringBuilder();
    b.append("# Options of `streamrecon run`\n\n")
        .append("<!-- Generated from ReconcileOptions; do not edit. Regenerate with: ")
        .append(REGENERATE)
        .append(" -->\n\n")
        .append("Every option is given as `--name=value`. Durations take ISO-8601 (`PT10M`) or")
        .append(" short (`10m`, `30s`) forms, at most `")
        .append(io.streamrecon.pipeline.DurationParser.MAX_TEXT)
        .append("` (10,000 years).\n")
        .append("Beam's own pipeline options (`--runner`, `--streaming`, the runners' options)")
        .append(" are accepted as well: `run --help=<OptionsInterface>` lists them.\n\n")
        .append("| Option | Type | Default | Description |\n")
        .append("|---|---|---|---|\n");
    for (Doc d : docs()) {
      b.append("| `--")
          .append(d.name())
          .append("` | ")
          .append(d.type())
          .append(" | ")
          .append(d.defaultValue())
          .append(" | ")
          .append(cell(d.description()))
          .append(" |\n");
    }
    return b.toString();
  }

  private static String property(Method m) {
    if (m.getParameterCount() != 0 || m.isDefault() || Modifier.isStatic(m.getModifiers())) {
      return null;
    }
    String n = m.getName();
    if (n.startsWith("get") && n.length() > 3) {
      return Introspector.decapitalize(n.substring(3));
    }
    if (n.startsWith("is") && n.length() > 2 && m.getReturnType() == boolean.class) {
      return Introspector.decapitalize(n.substring(2));
    }
    return null;
  }

  /** The default as shown: a value in backticks, "(empty)", "generated" or "none". */
  private static String defaultOf(Method m) {
    for (Annotation a : m.getAnnotations()) {
      if (a instanceof Default.String s) {
        return literal(s.value());
      } else if (a instanceof Default.Integer i) {
        return literal(String.valueOf(i.value()));
      } else if (a instanceof Default.Long l) {
        return literal(String.valueOf(l.value()));
      } else if (a instanceof Default.Boolean bo) {
        return literal(String.valueOf(bo.value()));
      } else if (a instanceof Default.Double d) {
        return literal(String.valueOf(d.value()));
      } else if (a instanceof Default.Enum e) {
        return literal(e.value());
      } else if (a instanceof Default.InstanceFactory) {
        return "generated";
      }
    }
    return "none";
  }

  private static String literal(String value) {
    return value.isEmpty() ? "(empty)" : "`" + value + "`";
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ");
  }
}
