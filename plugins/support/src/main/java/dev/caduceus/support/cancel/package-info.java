/** A cancellation signal a plugin fires itself ({@link dev.caduceus.support.cancel.OneShotCancellation}). */
package dev.caduceus.support.cancel;
