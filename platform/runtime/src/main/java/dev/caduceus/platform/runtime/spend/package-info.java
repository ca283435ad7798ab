/**
 * What model calls cost and who spent it: {@link dev.caduceus.platform.runtime.spend.SpendLedger} sums each call's
 * tokens and price per key, route, deployment and day, writes the sums to {@code model_usage}, and answers whether a
 * key may start another turn (its budget, its tokens per minute); {@link dev.caduceus.platform.runtime.spend.UsageApi}
 * serves them at {@code GET /api/usage}.
 */
package dev.caduceus.platform.runtime.spend;
