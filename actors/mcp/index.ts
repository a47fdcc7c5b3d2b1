/** Public surface of `actors/mcp/`: an episode served as MCP tools, for any MCP-capable agent. */
export { McpBridgeAgent } from './bridge-agent.js';
export { createMcpServer } from './server.js';
export { endText, type ScreenshotSource } from './content.js';
export { BoundedStdioServerTransport } from './stdio.js';
export { MAX_MESSAGE_BYTES } from './limits.js';
