/**
 * Native memory of the process: giving back what ND4J, oneDNN and XGBoost freed (or left to the
 * garbage collector) during long fits ({@link org.structlr.memory.NativeMemory}), and gathers of rows
 * at fixed indices whose index array is kept on the device on CUDA ({@link org.structlr.memory.RowGather});
 * which backend ND4J runs on ({@link org.structlr.memory.Device}).
 */
package org.structlr.memory;
