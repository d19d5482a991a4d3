package org.structlr.learn;

/** Test access to Checkpointer's package-private naming rule. */
public final class CheckpointerAccess {
    private CheckpointerAccess() {}

    public static boolean isLeftover(String name) {
        return Checkpointer.LEFTOVER.matcher(name).matches();
    }
}
