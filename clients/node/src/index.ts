// @tienlen/engine-client: the Node.js client of the Tiến Lên engine service. One export line
// per module, so a new module is one more line.

// The client: plain Game records, card text, typed errors (client.ts, models.ts).
export { TienLenClient, MoveStream, type DealOptions, type NewGameOptions, type NextGameOptions, type LegalMovesOptions } from "./client.js";
// A table of people (RULES §9): seat changes between games, the host's reports (table.ts).
export { seatTokensAfter, stayingSeats, type Newcomer } from "./table.js";
export type { Combination, Game, GameEvent, LegalMove, RottenPart, Rules, SeatInfo, Settlement, Transfer, Validation, View } from "./models.js";
export { plain } from "./models.js";
export { card, cards, cardText, cardTexts, RANKS, SUITS, type CardsLike } from "./cards.js";
export {
  CardTextError,
  DOMAIN,
  InvalidRequest,
  InvalidToken,
  MoveRejected,
  PermissionDenied,
  TienLenError,
  Unavailable,
  type ErrorStatus,
} from "./errors.js";
// The protobuf-level client and stream under it (wire.ts, stream.ts) and their options.
export {
  DEFAULT_ATTEMPTS,
  DEFAULT_DEADLINE_MS,
  SERVICE_NAME,
  WireClient,
  type ClientOptions,
  type MoveOptions,
  type PlayStreamOptions,
  type RpcName,
} from "./wire.js";
export { CLOSE_TIMEOUT_MS, WireMoveStream, type StreamMoveOptions } from "./stream.js";
export type { ReplicaHealth } from "./replicas.js";
// Following a table from the events (answers without the view).
export { CannotFollow, type UpdateView } from "./follow.js";
export * as follow from "./follow.js";
// Game records: their text (docs/RECORDS.md), a followed game's record, ReplayGame (record.ts).
export { formatMatch, formatRecord, GameRecorder, parseMatch, parseRecord, RecordMoveRejected, RecordParseError, replayRecord } from "./record.js";
// The runner of the golden contract conversations (tests/contract).
export * as conversation from "./conversation.js";
// The contract's messages and enums (also "@tienlen/engine-client/v1").
export * as v1 from "./v1.js";
