import { describe, expect, it } from "vitest";
import { WEB_APP_REGISTER_PARAMS } from "../../src/http/webAppState.js";
import { REGISTER_PARAMS } from "../../web/src/registerParams.js";

// `/` embeds the answer to the web app's POST /json/register: the server must ask what the app asks.
describe("the web app's register parameters", () => {
  it("are the same in the page's embedded state and in the app's own request", () => {
    expect(WEB_APP_REGISTER_PARAMS).toEqual(REGISTER_PARAMS);
  });
});
