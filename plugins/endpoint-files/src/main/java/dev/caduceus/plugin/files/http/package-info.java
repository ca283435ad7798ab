/**
 * The {@code files} family's routes: {@code POST /v1/files} (a streamed multipart upload), list, retrieve,
 * content and delete, in OpenAI's shapes and errors.
 */
package dev.caduceus.plugin.files.http;
