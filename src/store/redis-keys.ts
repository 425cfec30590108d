// The names of the keys beside the records, all under the prefix.
// Everything that is not a record lives under the prefix too, behind a `!` no workspace name can
// start with: admin sign-ins, leases and their queues, MCP sessions, marks, timelines
// (src/timeline/redis-log.ts).
export const SESSION_MARK = "!admin-session:";
export const LEASE = "!lease:";
export const LEASE_QUEUE = "!lease-queue:";
export const LEASE_SEQ = "!lease-seq";
export const MCP_SESSION = "!mcp-session:";
export const MCP_SESSIONS = "!mcp-sessions";
/** The sessions by when they were last used (the least recently used idle one makes room). */
export const MCP_USED = "!mcp-used";
/** A session a long call keeps from eviction while it lasts (the key keeps its older name). */
export const MCP_KEPT = "!mcp-held:";
export const MARK = "!mark:";
export const LEASE_FREE = "!lease-free";
export const NUDGE = "!nudge";
