package org.structlr.cli;

import java.net.URI;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A file or folder given as a plain path or as a {@code file:} URI (the form Hadoop and Spark users
 * write, e.g. {@code file:///shared/data}). Other schemes (hdfs://, s3a://): in the {@code -Pspark}
 * build staged through a local folder by Hadoop's FileSystem API ({@link Staging}); in the default
 * build refused by name.
 */
final class PathConverter implements ITypeConverter<Path> {
    @Override
    public Path convert(String value) {
        int colon = value.indexOf(':');
        // a scheme is letters before "://" or "file:"; "C:\..." style and plain names have none
        if (colon > 1 && value.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")
                && (value.startsWith("file:") || value.startsWith("://", colon))) {
            if (!value.startsWith("file:")) {
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
