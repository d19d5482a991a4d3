/**
 * The convex function classes, each fitted to its exact optimum: {@code zero} (g = 0),
 * {@code const} (g = w_y, Newton), {@code linear} (g = phi W + b: damped Newton or L-BFGS over a
 * row-block parallel loss). Registered through META-INF/services like any user class.
 */
package org.structlr.oracle.linear;
