package dev.caduceus.spi.model;

/** Why a model call ended. */
public enum FinishReason { STOP, LENGTH, TOOL_CALLS, CONTENT_FILTER, ERROR }
