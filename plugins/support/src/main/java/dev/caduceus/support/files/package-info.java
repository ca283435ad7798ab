/**
 * Files as message content: names made safe ({@link dev.caduceus.support.files.FileNames}), types from the bytes
 * ({@link dev.caduceus.support.files.ContentSniffer}) and a turn's attached files placed in the workspace
 * ({@link dev.caduceus.support.files.FileInputs}).
 */
package dev.caduceus.support.files;
