/**
 * Native memory of the process: giving back what ND4J, oneDNN and XGBoost freed (or left to the
 * garbage collector) during long fits ({@link org.structlr.memory.NativeMemory}).
 */
package org.structlr.memory;
