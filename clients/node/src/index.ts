// The Tiến Lên engine client for Node.js: the thin client and the golden-conversation runner.
export * from "./client.js";
export { CannotFollow, type UpdateView } from "./follow.js";
export * as follow from "./follow.js";
export * as conversation from "./conversation.js";
export { startServer, type RunningServer } from "./server.js";
export * from "./record.js";
// The contract's messages and enums (protobuf-es), e.g. GameUpdate, TransferReason,
// CombinationType. The wire enum UpdateView is WireUpdateView here: UpdateView is the client's
// "full" | "basic".
export { UpdateView as WireUpdateView, UpdateViewSchema as WireUpdateViewSchema } from "../gen/tienlen/v1/game_pb.js";
export * from "../gen/tienlen/v1/cards_pb.js";
export * from "../gen/tienlen/v1/events_pb.js";
export * from "../gen/tienlen/v1/game_pb.js";
export * from "../gen/tienlen/v1/moves_pb.js";
export * from "../gen/tienlen/v1/rules_pb.js";
export * from "../gen/tienlen/v1/service_pb.js";
export * from "../gen/tienlen/v1/settlement_pb.js";
