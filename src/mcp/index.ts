export { createMcpServer, type McpServerOptions } from './memory-tools.js';
export { runMcpStdio, serveMcpStdio, type McpStdioOptions, type McpStdioServer, type RunMcpStdioOptions } from './serve-stdio.js';
