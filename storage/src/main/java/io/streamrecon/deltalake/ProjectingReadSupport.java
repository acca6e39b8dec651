package io.streamrecon.deltalake;

import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/** Reads the named columns the file has, typed as the file declares them. */
public final class ProjectingReadSupport extends GroupReadSupport {
  private final List<String> names;

  public ProjectingReadSupport(List<String> names) {
    this.names = names;
  }

  @Override
  public ReadContext init(InitContext context) {
    MessageType file = context.getFileSchema();
    List<Type> fields = new ArrayList<>();
    for (String n : names) {
      if (file.containsField(n)) {
        fields.add(file.getType(n));
      }
    }
    return new ReadContext(new MessageType(file.getName(), fields));
  }
}
