package io.streamrecon.deltalake;

import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.deletionvectors.DeletionVectorUtils;
import io.delta.kernel.internal.deletionvectors.RoaringBitmapArray;
import io.streamrecon.deltalake.DeltaLakeSnapshot.DeletionVector;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The rows of one data file that a deletion vector marks deleted, by their position in the file
 * (the row index pointers carry). Another engine (Spark's {@code DELETE}, {@code UPDATE} or {@code
 * MERGE} with deletion vectors on) deletes rows this way without rewriting the file, so every
 * reader of stored rows asks this before it hands a row out.
 *
 * <p>The vector is loaded by Delta Kernel (inline, or from its file beside the table), once per
 * data file read; a file without a vector costs nothing ({@link #NONE}).
 */
public final class DeletedRows {
  /** No row deleted: the file has no deletion vector. */
  public static final DeletedRows NONE = new DeletedRows(null, 0);

  private final RoaringBitmapArray bitmap;
  private final long count;

  private DeletedRows(RoaringBitmapArray bitmap, long count) {
    this.bitmap = bitmap;
    this.count = count;
  }

  /** The rows {@code vector} (of a file of the table at {@code root}) deletes. */
  static DeletedRows load(Engine engine, Path root, DeletionVector vector) {
    if (vector == null) {
      return NONE;
    }
    DeletionVectorDescriptor descriptor =
        new DeletionVectorDescriptor(
            vector.storageType(),
            vector.pathOrInlineDv(),
            Optional.ofNullable(vector.offset()),
            vector.sizeInBytes(),
            vector.cardinality());
    RoaringBitmapArray bitmap =
        DeletionVectorUtils.loadNewDvAndBitmap(engine, root.toString(), descriptor)._2;
    return new DeletedRows(bitmap, vector.cardinality());
  }

  /** {@link #load(Engine, Path, DeletionVector)} with an engine over {@code conf}. */
  public static DeletedRows load(Configuration conf, Path root, DeletionVector vector) {
    return vector == null ? NONE : load(DeltaLakeEngine.create(conf), root, vector);
  }

  /** Whether the row at {@code rowIndex} (0-based position in the file) is deleted. */
  public boolean contains(long rowIndex) {
    return bitmap != null && bitmap.contains(rowIndex);
  }

  /** How many rows of the file are deleted. */
  public long count() {
    return count;
  }
}
