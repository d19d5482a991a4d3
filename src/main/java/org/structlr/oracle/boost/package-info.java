/**
 * The {@code boost} function class: XGBoost4J boosted trees fitted with the biased loss's own
 * gradients (one round of one tree per class per fit, optional Newton step), shared feature bins for
 * distributed fits, export as XGBoost JSON.
 */
package org.structlr.oracle.boost;
