package org.structlr.serve;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.structlr.data.Example;
import org.structlr.memory.NativeMemory;
import org.structlr.model.Predictor;

/**
 * Micro-batching: requests wait in a bounded queue; one worker thread takes the first, gathers
 * whatever else arrives until {@code maxBatch} examples or {@code maxWaitMs} after the first, and
 * predicts them in one {@link Predictor#predictEach} call (one engine over the batch, each example
 * stopped by its own gap, so every answer equals predicting it alone bit for bit). While a batch
 * runs, new requests queue, so under load batches fill without waiting.
 *
 * <p>One worker, because score functions are not all safe for concurrent use and the engines use
 * the cores themselves ({@code --threads}). A batch holds requests of one model generation only:
 * after a reload, requests that arrived before it finish on the old model. A request whose
 * deadline passed before its batch started is not computed. A batch that fails is retried one
 * request at a time, so one bad request fails alone. After a batch, {@link NativeMemory#release}
 * (a collection and a C-heap trim, at most every 30 s) keeps resident memory flat.
 */
final class Batcher implements AutoCloseable {
    /** One request's example, the model it was prepared for, and where its answer goes. */
    record Job(ServedModel model, Example example, long deadlineNanos, CompletableFuture<Predictor.Prediction> answer) {}

    /** Why a request was not queued. */
    enum Refusal { NONE, FULL, STOPPING }

    static final class DeadlinePassed extends RuntimeException {
        DeadlinePassed(String message) { super(message); }
    }

    private final ServeSettings settings;
    private final ServeMetrics metrics;
    private final LinkedBlockingQueue<Job> queue;
    private final Thread worker;
    private volatile boolean accepting = true;
    private Job carried;
    /** Tests only: called on the worker with each batch before it runs (to hold the worker at a known point). */
    volatile java.util.function.Consumer<List<Job>> beforeBatch = b -> {};   // the first job of another generation, held for the next batch (worker thread only)

    Batcher(ServeSettings settings, ServeMetrics metrics) {
        this.settings = settings;
        this.metrics = metrics;
        this.queue = new LinkedBlockingQueue<>(settings.maxQueue());
        this.worker = new Thread(this::work, "structlr-batcher");
        this.worker.setDaemon(true);
        this.worker.start();
    }

    /** Queues a job, or says why not (the queue is full, or the server is stopping). */
    synchronized Refusal offer(Job job) {
        if (!accepting) return Refusal.STOPPING;
        if (!queue.offer(job)) return Refusal.FULL;
        metrics.queueLength(queue.size());
        return Refusal.NONE;
    }

    int queued() {
        return queue.size();
    }

    private void work() {
        while (true) {
            Job first = carried;
            carried = null;
            if (first == null) {
                try {
                    first = queue.poll(50, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    first = null;
                }
                if (first == null) {
                    synchronized (this) {                       // no offer slips in between this check and the exit
                        if (!accepting && queue.isEmpty()) return;
                    }
                    continue;
                }
            }
            List<Job> batch = gather(first);
            metrics.queueLength(queue.size());
            run(batch);
            // ND4J frees a batch's native buffers only when the collector finds their arrays, and glibc
            // keeps freed memory: without this, resident memory climbs in steps for thousands of requests
            NativeMemory.release();                                  // at most every 30 s, cheap otherwise
        }
    }

    /** The first job and those that join it within the wait, up to the batch size, all of the first's model. */
    private List<Job> gather(Job first) {
        List<Job> batch = new ArrayList<>();
        batch.add(first);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.maxWaitMs());
        while (batch.size() < settings.maxBatch()) {
            long left = until - System.nanoTime();
            Job next;
            try {
                next = left <= 0 ? queue.poll() : queue.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                next = queue.poll();
            }
            if (next == null) break;
            if (next.model() != first.model()) {
                carried = next;
                break;
            }
            batch.add(next);
        }
        return batch;
    }

    private void run(List<Job> jobs) {
        List<Job> live = new ArrayList<>();
        long now = System.nanoTime();
        for (Job j : jobs) {
            if (j.answer().isDone()) continue;                     // the client's request already ended
            if (now - j.deadlineNanos() > 0) {
                j.answer().completeExceptionally(new DeadlinePassed("the request waited longer than the timeout of "
                        + settings.timeoutMs() + " ms before its batch started"));
            } else {
                live.add(j);
            }
        }
        if (live.isEmpty()) return;
        beforeBatch.accept(live);
        metrics.batch(live.size());
        try {
            answer(live);
        } catch (Throwable t) {
            if (live.size() == 1) {
                live.get(0).answer().completeExceptionally(t);
                return;
            }
            for (Job j : live) {                                      // find the one that fails: each alone
                try {
                    answer(List.of(j));
                } catch (Throwable u) {
                    j.answer().completeExceptionally(u);
                }
            }
        }
    }

    private void answer(List<Job> jobs) {
        List<Example> xs = new ArrayList<>();
        for (Job j : jobs) xs.add(j.example());
        List<Predictor.Prediction> p = Predictor.predictEach(jobs.get(0).model().model(), xs, settings.iterations(), settings.tolerance());
        for (int k = 0; k < jobs.size(); k++) jobs.get(k).answer().complete(p.get(k));
    }

    /** Stops taking requests; those queued are still answered. Returns when the worker has finished them (or after {@code waitMs}). */
    @Override
    public void close() {
        close(Long.MAX_VALUE);
    }

    void close(long waitMs) {
        accepting = false;
        try {
            worker.join(Math.max(1, Math.min(waitMs, Long.MAX_VALUE / 2)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
