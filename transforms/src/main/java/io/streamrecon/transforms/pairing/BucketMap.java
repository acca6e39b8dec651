package io.streamrecon.transforms.pairing;

import io.streamrecon.transforms.pairing.sparkstreaming.LoadedMap;
import io.streamrecon.transforms.pairing.sparkstreaming.WholeMapCoder;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.ValueState;

/**
 * One map of a pairing bucket's state (its entries, or its expiry index), as {@link PairEventsFn}
 * uses it: read, write and remove single keys, clear all.
 *
 * <p>Two ways to hold it, chosen by what the runner's state costs:
 *
 * <ul>
 *   <li>{@link #of(MapState)}: each key is its own piece of runner state (Flink, the DirectRunner),
 *       so a call touches only the keys it needs.
 *   <li>{@link #loaded(ValueState)}: the whole map is one coded value, loaded on the call's first
 *       access and written back once by {@link #flush}. For runners whose {@code MapState} is
 *       itself one coded value that every {@code get}, {@code put} and {@code remove} decodes whole
 *       and every {@code put} and {@code remove} re-encodes (Beam's classic SparkRunner in
 *       streaming mode): there a call that reads an entry, replaces it and moves its index entry
 *       would code its bucket's map five to seven times. {@link #loadedSpec} codes the map with a
 *       {@link WholeMapCoder}, so that a call codes only the entries it changed.
 * </ul>
 */
interface BucketMap<K, V> {

  /** The value under {@code key}, or {@code null}. */
  V get(K key);

  void put(K key, V value);

  void remove(K key);

  void clear();

  /** Writes the call's changes to the runner's state; nothing to do for a {@link MapState}. */
  void flush();

  /** The map over a runner {@link MapState}. */
  static <K, V> BucketMap<K, V> of(MapState<K, V> state) {
    return new OverMapState<>(state);
  }

  /**
   * The map held whole in {@code state} ({@link LoadedMap}); call {@link #flush} before the call
   * ends.
   */
  static <K, V> BucketMap<K, V> loaded(ValueState<Map<K, V>> state) {
    return new OverLoadedMap<>(LoadedMap.of(state));
  }

  /** The spec of a {@link #loaded} map. */
  static <K, V> StateSpec<ValueState<Map<K, V>>> loadedSpec(
      Coder<K> keyCoder, Coder<V> valueCoder) {
    return LoadedMap.spec(keyCoder, valueCoder);
  }

  /** Per-key runner state: every method goes straight to it. */
  final class OverMapState<K, V> implements BucketMap<K, V> {
    private final MapState<K, V> state;

    private OverMapState(MapState<K, V> state) {
      this.state = state;
    }

    @Override
    public V get(K key) {
      return state.get(key).read();
    }

    @Override
    public void put(K key, V value) {
      state.put(key, value);
    }

    @Override
    public void remove(K key) {
      state.remove(key);
    }

    @Override
    public void clear() {
      state.clear();
    }

    @Override
    public void flush() {}
  }

  /** A map held whole: every method goes to the {@link LoadedMap}. */
  final class OverLoadedMap<K, V> implements BucketMap<K, V> {
    private final LoadedMap<K, V> map;

    private OverLoadedMap(LoadedMap<K, V> map) {
      this.map = map;
    }

    @Override
    public V get(K key) {
      return map.get(key);
    }

    @Override
    public void put(K key, V value) {
      map.put(key, value);
    }

    @Override
    public void remove(K key) {
      map.remove(key);
    }

    @Override
    public void clear() {
      map.clear();
    }

    @Override
    public void flush() {
      map.flush();
    }
  }
}
