/**
 * The web tools: {@code web_search} over a SearXNG- or Tavily-compatible backend and
 * {@code web_extract}, which fetches pages through the host's outbound client under a public-only
 * egress policy (an SSRF guard checked on the address each connection uses) and turns HTML into
 * Markdown with a shaded jsoup. Start at {@link dev.caduceus.plugin.web.WebPlugin}. Threading: the
 * tools are called concurrently; a call's HTTP work is bounded by its timeout and aborted by a cancel.
 */
package dev.caduceus.plugin.web;
