import { describe, expect, it } from "vitest";
import { incomingWebhookBot, incomingWebhookBots } from "../../src/integrations/catalog.js";
import { INTEGRATIONS } from "../../src/integrations/registry.js";

// /register lists the integrations from src/integrations/catalog.json, so that it never loads
// their modules; the file must say what the modules say (`npm run integrations-doc` rewrites it).
describe("the integrations' catalog", () => {
  it("lists every integration of the registry as its module describes it", () => {
    expect(incomingWebhookBots()).toEqual(INTEGRATIONS.map(incomingWebhookBot));
  });
});
