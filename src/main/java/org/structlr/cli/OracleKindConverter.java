package org.structlr.cli;

import org.structlr.learn.OracleKind;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

final class OracleKindConverter implements ITypeConverter<OracleKind> {
    @Override
    public OracleKind convert(String value) {
        try {
            return OracleKind.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
