/** The runs' webhooks: the events of durable runs, written to the webhook outbox in the journal's commit. */
package dev.caduceus.platform.runtime.webhooks;
