// The table's words in two languages: English, or the game's own Vietnamese terms with the
// English beside them ("Chặt (chop)", "Bỏ lượt (pass)"). English is the default; `?lang=vi` or
// the page's language picker switches (the choice is kept in localStorage, a preference, not
// part of the match). The table talk's sentences stay English, with the Vietnamese terms they
// already carry (chặt, thối, cóng, tới trắng).

import { CombinationType, type Combination } from "../gen/tienlen/v1/moves_pb.js";
import { TransferReason } from "../gen/tienlen/v1/settlement_pb.js";

export type Lang = "en" | "vi";

/** Every label the page draws: [English, Vietnamese]. */
const WORDS = {
  play: ["Play", "Đánh"],
  pass: ["Pass", "Bỏ lượt"],
  hint: ["Hint", "Gợi ý"],
  clear: ["Clear", "Bỏ chọn"],
  newMatch: ["New match", "Ván mới"],
  nextGame: ["Next game", "Ván tiếp"],
  toPlay: ["to play", "tới lượt"],
  passed: ["passed", "đã bỏ lượt"],
  frozen: ["frozen", "cóng"],
  empty: ["empty seat", "ghế trống"],
  auto: ["auto", "tự động đánh"],
  left: ["left", "đã rời bàn"],
  place: ["place", "hạng"],
  matchTotal: ["match total", "tổng"],
  you: ["You", "Bạn"],
  yourHand: ["Your hand", "Bài của bạn"],
  yourPlays: ["Your legal plays", "Các nước được đi"],
  tableTalk: ["Table talk", "Diễn biến"],
  settlement: ["Settlement", "Tính tiền"],
  seat: ["Seat", "Ghế"],
  thisGame: ["This game", "Ván này"],
  refused: ["Refused", "Không hợp lệ"],
  chop: ["chop", "chặt"],
  newRound: ["New round", "Vòng mới"],
  toBeat: ["To beat", "Phải chặn"],
  lead: ["to lead", "đi trước"],
  over: ["The game is over: the settlement is below.", "Hết ván: tính tiền bên dưới."],
  rules: ["Rules", "Luật"],
  players: ["Players", "Số người"],
  bots: ["Bots", "Máy"],
  seed: ["Seed", "Hạt giống"],
  downloadRecord: ["Download record", "Tải biên bản"],
  downloadMatch: ["Download match record", "Tải biên bản trận"],
  noBeat: ["No play beats the table: pass.", "Không có bài chặn được: bỏ lượt."],
  noPlay: ["No legal play.", "Không có nước đi."],
} as const satisfies Record<string, readonly [string, string]>;

export type Word = keyof typeof WORDS;

/** A label: English, or Vietnamese with the English beside it. */
export function label(word: Word, lang: Lang): string {
  const [en, vi] = WORDS[word];
  return lang === "vi" ? `${vi} (${en})` : en;
}

const TYPE_WORDS: Readonly<Record<number, readonly [string, string]>> = {
  [CombinationType.SINGLE]: ["single", "lẻ"],
  [CombinationType.PAIR]: ["pair", "đôi"],
  [CombinationType.TRIPLE]: ["triple", "sám"],
  [CombinationType.STRAIGHT]: ["straight", "sảnh"],
  [CombinationType.CONSECUTIVE_PAIRS]: ["consecutive pairs", "đôi thông"],
  [CombinationType.FOUR_OF_A_KIND]: ["four of a kind", "tứ quý"],
  [CombinationType.CONSECUTIVE_TRIPLES]: ["consecutive triples", "sám thông"],
};

/** A combination's name: "pair", "straight of 5", "3 consecutive pairs"; in Vietnamese
 * "đôi (pair)", "sảnh 5 (straight of 5)", "3 đôi thông (3 consecutive pairs)". */
export function combinationName(combination: Pick<Combination, "type" | "length">, lang: Lang = "en"): string {
  const [en, vi] = TYPE_WORDS[combination.type] ?? ["play", "bài"];
  let english = en;
  let vietnamese = vi;
  switch (combination.type) {
    case CombinationType.STRAIGHT:
      english = `straight of ${combination.length}`;
      vietnamese = `sảnh ${combination.length}`;
      break;
    case CombinationType.CONSECUTIVE_PAIRS:
    case CombinationType.CONSECUTIVE_TRIPLES:
      english = `${combination.length} ${en}`;
      vietnamese = `${combination.length} ${vi}`;
      break;
  }
  return lang === "vi" ? `${vietnamese} (${english})` : english;
}

const REASON_WORDS: Readonly<Record<number, readonly [string, string]>> = {
  [TransferReason.PLACE]: ["place", "hạng"],
  [TransferReason.CHOP]: ["chop", "chặt"],
  [TransferReason.ROTTEN]: ["rotten cards", "thối"],
  [TransferReason.FROZEN]: ["frozen", "cóng"],
  [TransferReason.INSTANT_WIN]: ["instant win", "tới trắng"],
  [TransferReason.BLIND_THREE]: ["blind three", "ba mù"],
  [TransferReason.ROTTEN_THREE]: ["rotten three", "thối 3 bích"],
  [TransferReason.COMPENSATION]: ["compensation", "đền bài"],
  [TransferReason.CARD_COUNT]: ["cards left", "đếm lá"],
};

/** Why chips moved: "chop (chặt)" in English, "chặt (chop)" in Vietnamese; every
 * TransferReason of the contract has its words (an unknown one, from a newer service, is named
 * by its number). */
export function reasonWords(reason: TransferReason, lang: Lang = "en"): string {
  const words = REASON_WORDS[reason];
  if (!words) return `reason ${reason}`;
  const [en, vi] = words;
  if (reason === TransferReason.PLACE) return lang === "vi" ? `${vi} (${en})` : en;
  return lang === "vi" ? `${vi} (${en})` : `${en} (${vi})`;
}
