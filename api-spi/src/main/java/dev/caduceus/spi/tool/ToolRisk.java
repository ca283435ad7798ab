package dev.caduceus.spi.tool;

/** How much harm a tool can do, used for approval policy and capability listings. */
public enum ToolRisk { READ_ONLY, WRITES_WORKSPACE, EXECUTES, NETWORK }
