/**
 * The operator console: a single-page app (plain JavaScript modules and CSS, no build step) served
 * at {@code /console/} from this jar's resources ({@code app/}). The files are public routes
 * ({@code Routes.publicGet}) because they hold no data and the sign-in page loads before its user
 * has a key; everything the page shows comes from the public API, called with the key the user
 * pastes. Start at {@link dev.caduceus.plugin.console.ConsolePlugin}. Threading: the handlers are
 * stateless apart from {@link dev.caduceus.plugin.console.ConsoleFiles}' thread-safe cache.
 */
package dev.caduceus.plugin.console;
