// Replays every golden conversation (tests/contract/conversations/*.json) against the real
// server, started once for the file. A mismatch names the file, the step and the field.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { WireClient } from "../src/wire.js";
import { conversationFiles, load, replay } from "../src/conversation.js";
import { CONVERSATIONS_DIR, startServer, type RunningServer } from "../src/server.js";

const files = conversationFiles(CONVERSATIONS_DIR);

describe("golden conversations", () => {
  let server: RunningServer;
  let client: WireClient;

  before(async () => {
    server = await startServer();
    client = new WireClient(server.address);
  });
  after(async () => {
    client?.close();
    await server?.stop();
  });

  test("there are conversations to replay", () => {
    assert.ok(files.length > 0, `no conversation files in ${CONVERSATIONS_DIR}`);
  });

  for (const file of files) {
    const conversation = load(file);
    test(conversation.name, { timeout: 120_000 }, async () => {
      assert.equal(await replay(conversation, client), conversation.steps.length);
    });
  }
});
