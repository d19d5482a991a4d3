/**
 * The plain-Java message-passing engine for any factor graph ({@link org.structlr.inference.loop.LoopMessagePassing}):
 * time per sweep in proportion to the graph, no fixed op-dispatch cost, so it serves small and
 * dense graphs (UAI models) and is the baseline the other engines are checked against.
 */
package org.structlr.inference.loop;
