package org.structlr.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Files and folders on a file system other than the local one, named by URI ({@code hdfs://},
 * {@code s3a://} with the user's connector, ...): copied in before use and out after, by an
 * implementation that only builds with a cluster framework on the classpath (the {@code -Pspark}
 * build's {@code org.structlr.spark.HadoopFiles}, through Hadoop's FileSystem API), found through
 * {@link ServiceLoader}. The default build has none and refuses such URIs by name.
 */
public interface RemoteFiles {

    /** Whether there is a file or folder at {@code uri}. */
    boolean exists(String uri) throws IOException;

    /** Copies the file or folder at {@code uri} to {@code local} (which must not exist). */
    void fetch(String uri, Path local) throws IOException;

    /**
     * Copies the local file or folder to {@code uri}, replacing what is there only once the copy is
     * complete (a sibling with a temporary name, then renamed; no half-written output).
     */
    void publish(Path local, String uri) throws IOException;

    /** Whether there is a folder at {@code uri}. */
    boolean isFolder(String uri) throws IOException;

    /** The entries directly in the folder {@code uri}, sorted by name (none when there is no such folder). */
    java.util.List<Entry> list(String uri) throws IOException;

    /** Deletes the file or folder at {@code uri} (nothing when there is none). */
    void delete(String uri) throws IOException;

    /** An entry of a folder: its name (not the whole URI), whether it is a folder, its size in bytes. */
    record Entry(String name, boolean folder, long size) {}

    /** The implementation in this build, if any. */
    static Optional<RemoteFiles> find() {
        return ServiceLoader.load(RemoteFiles.class).findFirst();
    }
}
