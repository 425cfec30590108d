// MCP over stdio: the SDK's server, one per connection (the connection is the session), bound to
// the workspace the command line named. It answers every method through the same table as MCP over
// HTTP (src/surfaces/mcp-methods.ts), so both say the same things the same way.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import type { Services } from "../services.ts";
import { CAPABILITIES, INSTRUCTIONS, SERVER_INFO } from "./mcp-answers.ts";
import { localLevel } from "./mcp-logging.ts";
import { dispatch, METHODS, type SessionPorts } from "./mcp-methods.ts";
import { localSubscriptions, ResourceWatch } from "./mcp-subscribe.ts";

export function mcpServer(services: Services, workspace: string): Server {
  const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  const watch = new ResourceWatch(services, workspace, (n) => server.notification(n));
  const closed = server.onclose;
  server.onclose = () => {
    watch.stop();
    closed?.();
  };
  const session: SessionPorts = { levels: localLevel(), subscriptions: localSubscriptions(watch) };
  for (const method of Object.keys(METHODS)) {
    if (method === "ping") continue; // the SDK answers it
    // The params as sent: the table's own schema checks them, so a bad one names its field.
    const schema = z.looseObject({ method: z.literal(method), params: z.unknown().optional() });
    server.setRequestHandler(schema, (request, extra) =>
      dispatch(
        {
          services,
          workspace,
          requestId: extra.requestId,
          signal: extra.signal,
          notify: (n) => extra.sendNotification(n as never),
          session,
        },
        method,
        request.params,
      ),
    );
  }
  return server;
}
