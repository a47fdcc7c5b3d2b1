/** Public surface of `actors/mcp/`: an episode served as MCP tools, for any MCP-capable agent. */
export { McpBridgeAgent, type Turn } from './bridge-agent.js';
export { createMcpServer, instructions, type EpisodeServerOptions } from './server.js';
export { endText, verdictTable, type ScreenshotSource } from './content.js';
export { BoundedStdioServerTransport, type BoundedStdioOptions } from './stdio.js';
export { MAX_MESSAGE_BYTES } from './limits.js';
