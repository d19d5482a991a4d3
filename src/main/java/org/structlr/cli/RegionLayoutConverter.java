package org.structlr.cli;

import org.structlr.model.RegionLayout;
import picocli.CommandLine;

/** {@code --regions NAME}: a {@link RegionLayout} by its label; an unknown name is a usage error listing the names. */
final class RegionLayoutConverter implements CommandLine.ITypeConverter<RegionLayout> {
    @Override
    public RegionLayout convert(String value) {
        try {
            return RegionLayout.of(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
