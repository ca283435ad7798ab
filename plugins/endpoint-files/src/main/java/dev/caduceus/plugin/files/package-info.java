/**
 * Files uploaded to the server ({@code /v1/files}): their rows ({@link dev.caduceus.plugin.files.FileStore}), their
 * bytes in a content-addressed directory ({@link dev.caduceus.plugin.files.BlobStore}), the settings and the sweep
 * that ends expired files and unreferenced blobs.
 */
package dev.caduceus.plugin.files;
