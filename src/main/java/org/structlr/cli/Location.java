package org.structlr.cli;

import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A path option's value kept as given until the command knows what to do with it: a local path
 * (plain, or a {@code file:} URI), or the URI of a remote file system ({@code hdfs://...}, which
 * only the {@code -Pspark} build reaches, through Hadoop). Unlike {@link PathConverter}, nothing is
 * staged while parsing: {@code train --spark} hands a remote data set to the executors, which read
 * it themselves, and checkpoints are written to and read from the URI directly.
 *
 * @param local the local path, or null for a remote URI
 * @param uri   the remote URI, or null for a local path
 */
record Location(Path local, String uri) {

    boolean remote() {
        return uri != null;
    }

    /** What the cluster's machines are given: the URI, or the absolute local path. */
    String forCluster() {
        return remote() ? uri : local.toAbsolutePath().normalize().toString();
    }

    /** A local path for this command: itself, or the remote URI staged through a local folder ({@link Staging}). */
    Path staged(String option) {
        if (!remote()) return local;
        try {
            return Staging.stage(uri);
        } catch (org.structlr.data.BadInputException e) {
            throw new org.structlr.data.BadInputException("Invalid value for option '" + option + "': " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return remote() ? uri : local.toString();
    }

    /** --data: remote URIs where this build reaches them (as {@link PathConverter}), else refused by name. */
    static final class Converter implements ITypeConverter<Location> {
        @Override
        public Location convert(String value) {
            return parse(value, "only local paths and file: URIs are supported (not %s://); use a folder every machine mounts");
        }
    }

    /** --checkpoint, --resume: remote URIs only in the -Pspark build; the default build refuses them as local-only options. */
    static final class CheckpointConverter implements ITypeConverter<Location> {
        @Override
        public Location convert(String value) {
            return parse(value, "this option takes a local path or a file: URI (not %s://); a checkpoint on a Hadoop file system needs the -Pspark build");
        }
    }

    private static Location parse(String value, String refusal) {
        String scheme = PathConverter.remoteScheme(value);
        if (scheme == null) return new Location(PathConverter.parse(value, false), null);
        if (!Staging.available()) throw new TypeConversionException(value + ": " + String.format(refusal, scheme));
        return new Location(null, value);
    }
}
