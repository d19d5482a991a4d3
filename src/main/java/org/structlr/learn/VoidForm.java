package org.structlr.learn;

import java.util.Locale;

/**
 * How training treats variables without a label ({@link org.structlr.data.Example#VOID}),
 * {@code --void-form} (docs/design.md §1, "Partial labels"). Without void labels both forms learn
 * the same functions.
 */
public enum VoidForm {
    /**
     * A void variable adds no term of its own: its factors and those of the edges touching it are
     * zero in training and it has no oracle row ({@link VoidRows}).
     */
    SIMPLE,
    /**
     * The loss A(theta) - A(theta | observed labels): a second, clamped problem per example (observed
     * variables fixed to their labels, void ones free) and soft oracle targets, the clamped beliefs
     * ({@link ClampedRows}).
     */
    CLAMPED;

    /** The form models and checkpoints written before the setting existed were trained with. */
    public static final VoidForm RECORDED_BEFORE = SIMPLE;

    /** The name {@code --void-form} and model.json use. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return label();
    }

    /**
     * The form named {@code name} ({@code simple} or {@code clamped}, any case).
     *
     * @throws IllegalArgumentException naming the value and the choices
     */
    public static VoidForm parse(String name) {
        for (VoidForm f : values()) if (f.label().equalsIgnoreCase(name == null ? "" : name.trim())) return f;
        throw new IllegalArgumentException("unknown void form '" + name + "' (choose simple or clamped)");
    }
}
