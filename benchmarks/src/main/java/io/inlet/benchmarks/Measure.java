package io.inlet.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one trial costs in its own JVM: wall time, peak heap (sampled every 20 ms, so a job's short
 * spikes between samples can be missed), GC time and CPU time.
 */
final class Measure implements AutoCloseable {

    private final List<MemoryPoolMXBean> heapPools;
    private final long gcStartMs;
    private final long cpuStartNs;
    private final long wallStartMs;
    private final AtomicLong peakHeap = new AtomicLong();
    private final Thread sampler;
    private volatile boolean running = true;

    private Measure() {
        heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP)
                .collect(java.util.stream.Collectors.toList());
        gcStartMs = gcMillis();
        cpuStartNs = cpuNanos();
        wallStartMs = System.currentTimeMillis();
        sampler = new Thread(
                () -> {
                    while (running) {
                        long used = 0;
                        for (MemoryPoolMXBean p : heapPools) {
                            used += p.getUsage().getUsed();
                        }
                        peakHeap.accumulateAndGet(used, Math::max);
                        try {
                            Thread.sleep(20); // sampling interval of the heap
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "heap-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    static Measure start() {
        return new Measure();
    }

    /** Wall clock when the measurement started, epoch ms. */
    long wallStartMs() {
        return wallStartMs;
    }

    long peakHeapBytes() {
        return peakHeap.get();
    }

    long gcMs() {
        return gcMillis() - gcStartMs;
    }

    long cpuMs() {
        return (cpuNanos() - cpuStartNs) / 1_000_000;
    }

    private static long gcMillis() {
        long t = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            t += Math.max(0, gc.getCollectionTime());
        }
        return t;
    }

    private static long cpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return 0;
    }

    @Override
    public void close() {
        running = false;
        sampler.interrupt();
    }
}
