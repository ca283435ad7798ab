/**
 * The caller's own functions in an agent turn, shared by the endpoint families that take them (chat, Responses,
 * runs): the request's tools checked as OpenAI checks them ({@link dev.caduceus.support.clienttools.ClientToolsField}),
 * a history's calls and answers paired ({@link dev.caduceus.support.clienttools.ToolTranscript}), and the server's
 * side of a turn kept for its continuation ({@link dev.caduceus.support.clienttools.PendingToolCalls}).
 */
package dev.caduceus.support.clienttools;
