package org.structlr.spark;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.fs.FileSystem;
import org.structlr.learn.DataHashes;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.DatasetFiles;
import org.structlr.data.Example;
import org.structlr.data.ExampleFacts;
import org.structlr.data.ExampleIO;
import org.structlr.learn.Training;

/**
 * A data set folder on any Hadoop file system (file://, hdfs://, an object store), seen from both
 * sides: the driver lists it ({@link #list}: names only, the same checks and messages as
 * {@link ExampleIO#readDataset}) and executors read their own files ({@link #read}: the data
 * package's reader, so the same parsing and validation as one machine). Locations are kept as the
 * user spelled them (an absolute path, or a URI) so that messages name what was given; only the
 * Hadoop calls turn them into Hadoop paths (a path without a scheme is a local file, never the
 * cluster's default file system).
 */
final class ExampleFiles {
    private ExampleFiles() {}

    /** A location as a Hadoop path: a URI as it is, a local path as a file: URI. */
    static org.apache.hadoop.fs.Path hadoopPath(String location) {
        if (location.matches("[A-Za-z][A-Za-z0-9+.-]*:.*")) return new org.apache.hadoop.fs.Path(URI.create(location));
        return new org.apache.hadoop.fs.Path(Path.of(location).toAbsolutePath().toUri());
    }

    private static FileSystem fs(org.apache.hadoop.fs.Path p, Map<String, String> settings) throws IOException {
        return p.getFileSystem(HadoopFiles.configuration(settings));
    }

    /** The folders of a Hadoop file system, named by location. */
    static DatasetFiles.Folders folders(Map<String, String> settings) {
        return new DatasetFiles.Folders() {
            @Override
            public boolean isFolder(String location) throws IOException {
                org.apache.hadoop.fs.Path p = hadoopPath(location);
                FileSystem fs = fs(p, settings);
                return fs.exists(p) && fs.getFileStatus(p).isDirectory();
            }

            @Override
            public List<String> files(String folder) throws IOException {
                org.apache.hadoop.fs.Path p = hadoopPath(folder);
                List<String> out = new ArrayList<>();
                for (org.apache.hadoop.fs.FileStatus st : fs(p, settings).listStatus(p)) {
                    if (st.isFile()) out.add(DatasetFiles.child(folder, st.getPath().getName()));
                }
                return out;
            }
        };
    }

    /** Lists the data set at {@code location} (an absolute path or a URI), on the driver, reading no example. */
    static DatasetFiles list(String location, Map<String, String> settings) {
        return DatasetFiles.list(location, folders(settings));
    }

    /** The data set's {@link Dataset#INFO_FILE} (a few bytes of JSON, read on the driver), or nothing. */
    static Map<String, Object> info(String root, Map<String, String> settings) {
        Map<String, Object> info = info(root, Dataset.INFO_FILE, settings);
        return info != null ? info : Objects.requireNonNullElse(info(root, Dataset.LEGACY_INFO_FILE, settings), Map.of());
    }

    /** The info file {@code name} of the data set, or null when it has none. */
    private static Map<String, Object> info(String root, String name, Map<String, String> settings) {
        String where = DatasetFiles.child(root, name);
        try {
            org.apache.hadoop.fs.Path p = hadoopPath(where);
            FileSystem fs = fs(p, settings);
            if (!fs.exists(p) || !fs.getFileStatus(p).isFile()) return null;
            try (InputStream in = fs.open(p)) {
                return Dataset.info(where, in.readAllBytes());
            }
        } catch (IOException e) {
            throw new BadInputException(where + ": cannot be read as JSON: " + e.getMessage());
        }
    }

    /**
     * What reading one file gave an executor: the example as a record, its facts and digest (what
     * the driver checks and hashes), or the one-line error naming the file.
     */
    record FileRead(ExampleRecord record, ExampleFacts facts, byte[] digest, String error) implements Serializable {
        /** This read without the example (what goes back to the driver). */
        FileRead withoutExample() {
            return new FileRead(null, facts, digest, error);
        }
    }

    /**
     * Reads and validates one example file on an executor: copied from the file system into a
     * local temporary file and read by {@link ExampleIO#read} (the one-machine reader: a zip file
     * needs random access, which Hadoop streams do not all give), errors renamed to the location.
     */
    static FileRead read(String location, Map<String, String> settings) {
        Path tmp = null;
        try {
            tmp = Files.createTempFile("structlr-example", ".npz");
            org.apache.hadoop.fs.Path p = hadoopPath(location);
            try (InputStream in = fs(p, settings).open(p)) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            Example e;
            try {
                e = ExampleIO.read(tmp);
            } catch (BadInputException ex) {
                return failed(ex.getMessage().replace(tmp.toString(), location));
            }
            return new FileRead(ExampleRecord.of(e, location), ExampleFacts.of(e, location), DataHashes.exampleDigest(e), null);
        } catch (FileNotFoundException e) {
            return failed(location + ": missing file: no such file");
        } catch (IOException e) {
            return failed(location + ": cannot read: " + e.getMessage());
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a temporary copy left in the executor's temp folder is no reason to fail its task
                }
            }
        }
    }

    private static FileRead failed(String error) {
        return new FileRead(null, null, null, error);
    }
}
