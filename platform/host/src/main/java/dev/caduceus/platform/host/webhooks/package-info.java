/**
 * Webhooks: a message signed the Standard Webhooks way ({@link WebhookSigner}), sent once to one endpoint
 * under the egress policy ({@link WebhookSender}), and when to try again ({@link Backoff}).
 */
package dev.caduceus.platform.host.webhooks;
