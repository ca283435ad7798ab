/**
 * The web tools: {@code web_search} over a SearXNG- or Tavily-compatible backend and
 * {@code web_extract}, which fetches pages behind an SSRF address guard and turns HTML into Markdown
 * with a shaded jsoup. Start at {@link dev.caduceus.plugin.web.WebPlugin}. Threading: the tools are
 * called concurrently; each call does its blocking HTTP work on virtual threads it can abandon.
 */
package dev.caduceus.plugin.web;
