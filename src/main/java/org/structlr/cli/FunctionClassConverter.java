package org.structlr.cli;

import java.util.Iterator;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionClasses;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --unary NAME}: any registered function class, by its canonical name; an unknown one lists the registered names. */
final class FunctionClassConverter implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
        try {
            return FunctionClasses.canonical(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    /** The registered names, for help texts ({@code ${COMPLETION-CANDIDATES}}). */
    static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return FunctionClasses.all().stream().map(FunctionClass::name).iterator();
        }
    }
}
