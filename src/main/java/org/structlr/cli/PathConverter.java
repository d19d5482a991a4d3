package org.structlr.cli;

import java.net.URI;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A file or folder given as a plain path or as a {@code file:} URI (the form Hadoop and Spark users
 * write, e.g. {@code file:///shared/data}). Other schemes (hdfs://, s3a://): in the {@code -Pspark}
 * build staged through a local folder by Hadoop's FileSystem API ({@link Staging}); in the default
 * build refused by name. Options that only take local files ({@code --report}, {@code --csv}, ...)
 * use {@link Local}, which refuses every scheme but {@code file:} by name, so that {@code hdfs://...}
 * is never taken as a relative folder called "hdfs:". {@code train --data}, {@code --checkpoint}
 * and {@code --resume} keep their value as a {@link Location} instead (nothing staged while parsing).
 */
final class PathConverter implements ITypeConverter<Path> {
    @Override
    public Path convert(String value) {
        return parse(value, true);
    }

    /** The converter of every {@code Path} option without its own (registered in {@link Main}). */
    static final class Local implements ITypeConverter<Path> {
        @Override
        public Path convert(String value) {
            return parse(value, false);
        }
    }

    /** The scheme of a remote URI ({@code hdfs} of {@code hdfs://nn/x}), or null for a local path or a {@code file:} URI. */
    static String remoteScheme(String value) {
        int colon = value.indexOf(':');
        if (colon > 1 && value.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*") && !value.startsWith("file:")
                && value.startsWith("://", colon)) {
            return value.substring(0, colon);
        }
        return null;
    }

    static Path parse(String value, boolean remoteAllowed) {
        int colon = value.indexOf(':');
        // a scheme is letters before "://" or "file:"; "C:\..." style and plain names have none
        if (colon > 1 && value.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")
                && (value.startsWith("file:") || value.startsWith("://", colon))) {
            if (!value.startsWith("file:")) {
                if (!remoteAllowed) {
                    throw new TypeConversionException(value + ": this option takes a local path or a file: URI (not "
                            + value.substring(0, colon) + "://)");
                }
                if (Staging.available()) {
                    try {
                        return Staging.stage(value);
                    } catch (org.structlr.data.BadInputException e) {
                        throw new TypeConversionException(e.getMessage());
                    }
                }
                throw new TypeConversionException(value + ": only local paths and file: URIs are supported (not "
                        + value.substring(0, colon) + "://); use a folder every machine mounts");
            }
            try {
                return Path.of(URI.create(value));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(value + ": not a file URI (" + e.getMessage() + ")");
            }
        }
        return Path.of(value);
    }
}
