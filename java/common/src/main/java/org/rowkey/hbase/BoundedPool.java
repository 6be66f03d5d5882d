package org.rowkey.hbase;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The thread pools of the index code: daemon threads, at most a bound, none kept idle for long, and
 * no queue: when every thread is busy the caller runs the task itself, so a task never waits
 * behind another's and nothing piles up.
 */
@RunsIn(RunsIn.Where.SHARED)
final class BoundedPool {
    private BoundedPool() {}

    static ExecutorService create(String threadName, int maxThreads) {
        return new ThreadPoolExecutor(0, maxThreads, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), runnable -> {
            Thread t = new Thread(runnable, threadName);
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.CallerRunsPolicy());
    }
}
