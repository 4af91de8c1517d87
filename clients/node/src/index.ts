// The Tiến Lên engine client for Node.js: the thin client and the golden-conversation runner.
export * from "./client.js";
export { CannotFollow, type UpdateView } from "./follow.js";
export * as follow from "./follow.js";
export * as conversation from "./conversation.js";
export { startServer, type RunningServer } from "./server.js";
