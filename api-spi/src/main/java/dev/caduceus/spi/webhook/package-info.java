/** Webhooks a caller names on a request: where the events of its run, job or response are sent. */
package dev.caduceus.spi.webhook;
