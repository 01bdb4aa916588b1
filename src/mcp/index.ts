export { createMcpServer, type McpServerOptions } from './create-mcp-server.js';
export { MEMORY_TOOL_NAMES } from './memory-tools.js';
export {
  runMcpStdio,
  serveMcpStdio,
  type McpStdioOptions,
  type McpStdioServer,
  type RunMcpStdioOptions,
} from './serve-stdio.js';
