// MCP over stdio: the SDK's server, one per connection (the connection is the session), bound to
// the workspace the command line named. It answers every method through the same table as MCP over
// HTTP (src/surfaces/mcp-exchange.ts `dispatch`), so both say the same things the same way.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Services } from "../services.ts";
import { CAPABILITIES, INSTRUCTIONS, SERVER_INFO } from "./mcp-answers.ts";
import { elicitRequest, replyText } from "./mcp-elicit.ts";
import { dispatch, MCP_METHODS } from "./mcp-exchange.ts";
import { logRelay } from "./mcp-log.ts";
import type { SessionNeeds } from "./mcp-methods.ts";
import { localSubscriptions, ResourceWatch } from "./mcp-subscribe.ts";
import type { McpLevel, McpNotice } from "./mcp-wire.ts";

/** The longest an ask_human waits (its timeout's most): the client's reply is waited for that long. */
const ASK_MS = 3600 * 1000;

export function mcpServer(services: Services, workspace: string): Server {
  const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  const watch = new ResourceWatch(services, workspace, (n) => server.notification(n));
  const closed = server.onclose;
  server.onclose = () => {
    watch.stop();
    closed?.();
  };
  // The connection is the session: its log level is kept here.
  let level: McpLevel | null = null;
  const session: SessionNeeds = {
    setLevel: async (l) => {
      level = l;
    },
    subscriptions: localSubscriptions(watch),
  };
  for (const method of Object.keys(MCP_METHODS)) {
    if (method === "ping") continue; // the SDK answers it
    // The params as sent: the table's own schema checks them, so a bad one names its field.
    const schema = z.looseObject({ method: z.literal(method), params: z.unknown().optional() });
    server.setRequestHandler(schema, async (request, extra) => {
      const notify = (n: McpNotice) => extra.sendNotification(n as never);
      const logs = logRelay(method, services.log, level, workspace, notify);
      try {
        return await dispatch(
          {
            services,
            workspace,
            requestId: extra.requestId,
            signal: extra.signal,
            notify,
            logLine: logs.line,
            session,
            client: { capabilities: { ...server.getClientCapabilities() } },
            // The client's user is asked on the pipe; their reply (or its failing) answers the question.
            ask: (id, question) => {
              const { method: m, params } = elicitRequest(id, question);
              const reply = (text: string | null) =>
                services.questions.reply(workspace, id, text).catch(() => undefined);
              extra.sendRequest({ method: m, params } as never, ElicitResultSchema, { timeout: ASK_MS }).then(
                (result) => reply(replyText(result)),
                () => reply(null),
              );
            },
          },
          method,
          request.params,
        );
      } finally {
        logs.stop();
      }
    });
  }
  return server;
}
