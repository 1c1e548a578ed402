// A small stdio MCP server on the real `@modelcontextprotocol/sdk` for the e2e tests of what
// the reference servers cannot show: `grow` registers a new tool `grown` (the SDK then sends
// `notifications/tools/list_changed`; the list with `grown` is answered late), and `wait`
// runs until the client cancels it and logs the cancellation to stderr (ansa's
// `<session dir>/mcp/<server>.log`), so a test can see that `notifications/cancelled`
// reached the server.
//
// Usage: node probe.mjs NODE_MODULES [marker]. The modules are found by path because this
// file lives in the repository, outside the node_modules tree.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.argv[2];
const from = (rel) => import(pathToFileURL(join(modules, rel)).href);
const { McpServer } = await from("@modelcontextprotocol/sdk/dist/esm/server/mcp.js");
const { StdioServerTransport } = await from("@modelcontextprotocol/sdk/dist/esm/server/stdio.js");
const { z } = await from("zod/index.js");

const server = new McpServer({ name: "ansa-probe", version: "1.0.0" });

server.registerTool(
  "grow",
  { description: "Adds the tool `grown` to this server's list.", inputSchema: z.object({}) },
  async () => {
    if (!grown) {
      grown = server.registerTool(
        "grown",
        { description: "Exists once `grow` was called.", inputSchema: z.object({}) },
        async () => ({ content: [{ type: "text", text: "the grown tool answered" }] }),
      );
    }
    return { content: [{ type: "text", text: "grew a tool" }] };
  },
);
let grown = null;

server.registerTool(
  "wait",
  {
    description: "Waits until the call is cancelled (at most `seconds`).",
    inputSchema: z.object({ seconds: z.number() }),
  },
  async ({ seconds }, extra) => {
    const cancelled = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), seconds * 1000);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (cancelled) {
      console.error(`probe: request ${extra.requestId} cancelled: ${extra.signal.reason}`);
    }
    return { content: [{ type: "text", text: cancelled ? "cancelled" : "waited" }] };
  },
);

// The list that includes `grown` is answered half a second late: a client that built its
// next request without waiting for the list it was told changed would offer the old one.
class SlowListTransport extends StdioServerTransport {
  async send(message, options) {
    if (grown && Array.isArray(message?.result?.tools)) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return super.send(message, options);
  }
}

await server.connect(new SlowListTransport());
console.error("probe: ready");
