package io.streamrecon.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Peak heap of this JVM: heap use sampled every 20 ms on a daemon thread, and heap use right after
 * each collection (the live set, which the sampled peak overstates by uncollected garbage).
 */
final class HeapMonitor implements AutoCloseable {
  private final AtomicLong peak = new AtomicLong();
  private final AtomicLong peakLive = new AtomicLong();
  private final Thread sampler;
  private volatile boolean running = true;

  HeapMonitor() {
    java.util.Set<String> heapPools = new java.util.HashSet<>();
    for (java.lang.management.MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == java.lang.management.MemoryType.HEAP) {
        heapPools.add(pool.getName());
      }
    }
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(
            (notification, handback) -> {
              if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                  notification.getType())) {
                GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from(
                        (CompositeData) notification.getUserData());
                long used = 0;
                for (java.util.Map.Entry<String, MemoryUsage> u :
                    info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                  if (heapPools.contains(u.getKey())) {
                    used += u.getValue().getUsed();
                  }
                }
                peakLive.accumulateAndGet(used, Math::max);
              }
            },
            null,
            null);
      }
    }
    sampler =
        new Thread(
            () -> {
              while (running) {
                peak.accumulateAndGet(
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "heap-monitor");
    sampler.setDaemon(true);
    sampler.start();
  }

  long peak() {
    return peak.get();
  }

  long peakLive() {
    return peakLive.get();
  }

  @Override
  public void close() {
    running = false;
    sampler.interrupt();
  }
}
