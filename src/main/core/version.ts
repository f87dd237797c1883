/** Sightline's version (package.json's), reported to MCP clients and the dashboard. */
export const VERSION = '0.1.0';
