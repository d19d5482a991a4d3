package org.structlr.spark;

import java.net.URI;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * A stand-in for a remote Hadoop file system in tests: scheme {@code testfs://}, files on the local
 * disk (registered with {@code spark.hadoop.fs.testfs.impl}). Through it the CLI's remote-path code
 * (staging, Hadoop copies, executors reading and writing their own files) runs as it would for
 * hdfs://, which cannot run here.
 */
public class LoopbackFileSystem extends RawLocalFileSystem {
    static final String SCHEME = "testfs";

    @Override
    public URI getUri() {
        return URI.create(SCHEME + ":///");
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }
}
