package io.streamrecon.transforms.pairing.sparkstreaming;

import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.ValueState;

/**
 * A pairing bucket's map held whole in one state value, for a runner whose map state codes the
 * whole map on every access (Beam's classic SparkRunner in streaming mode); the pairing uses it
 * through {@code BucketMap.loaded}. The whole map is read on first access and written back once if
 * changed; an emptied map clears its state rather than storing an empty map. After {@link #flush}
 * the next access reads the state again, as the map written may be kept by its coder and must not
 * change.
 */
public final class LoadedMap<K, V> {
  private final ValueState<Map<K, V>> state;
  private Map<K, V> map;
  private boolean changed;

  private LoadedMap(ValueState<Map<K, V>> state) {
    this.state = state;
  }

  /** The map held whole in {@code state}; call {@link #flush} before the call ends. */
  public static <K, V> LoadedMap<K, V> of(ValueState<Map<K, V>> state) {
    return new LoadedMap<>(state);
  }

  /** The spec of a state holding such a map, coded with a {@link WholeMapCoder}. */
  public static <K, V> StateSpec<ValueState<Map<K, V>>> spec(
      Coder<K> keyCoder, Coder<V> valueCoder) {
    return StateSpecs.value(WholeMapCoder.of(keyCoder, valueCoder));
  }

  private Map<K, V> map() {
    if (map == null) {
      Map<K, V> stored = state.read();
      // Always a copy: a runner may hand out the object it stores (and snapshot it), and a
      // decoded WholeMapCoder map is frozen; the copy keeps its entries' coded bytes.
      map =
          stored == null
              ? WholeMapCoder.CodedMap.<K, V>empty()
              : WholeMapCoder.CodedMap.copyOf(stored);
    }
    return map;
  }

  /** The value under {@code key}, or {@code null}. */
  public V get(K key) {
    return map().get(key);
  }

  /** Sets {@code key} to {@code value}. */
  public void put(K key, V value) {
    map().put(key, value);
    changed = true;
  }

  /** Removes {@code key}. */
  public void remove(K key) {
    if (map().remove(key) != null) {
      changed = true;
    }
  }

  /** Removes every key. */
  public void clear() {
    map = WholeMapCoder.CodedMap.empty();
    changed = true;
  }

  /** Writes the call's changes to the state, once. */
  public void flush() {
    if (!changed) {
      return;
    }
    if (map.isEmpty()) {
      state.clear();
    } else {
      state.write(map);
    }
    map = null;
    changed = false;
  }
}
