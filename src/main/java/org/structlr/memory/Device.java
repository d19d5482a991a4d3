package org.structlr.memory;

import org.nd4j.linalg.api.ops.executioner.OpExecutioner;
import org.nd4j.linalg.factory.Nd4j;

/** Where ND4J keeps its arrays: on the host (the CPU backend) or on a GPU (CUDA). */
public final class Device {
    private Device() {}

    /** True when ND4J runs on CUDA: engines, gathers and losses then take the device's way. */
    public static boolean cuda() {
        return Nd4j.getExecutioner().type() == OpExecutioner.ExecutionerType.CUDA;
    }
}
