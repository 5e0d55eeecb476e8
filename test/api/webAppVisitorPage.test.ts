import { beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a JavaScript module without types
import { build, isBuilt } from "../../scripts/build.mjs";
import { seedChannels } from "../support/seed.js";
import { rawGet } from "../support/rawHttp.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

// `/` without a session: the login page while the organization keeps visitors out, the web app
// in visitor mode (Zulip's spectators) with the visitor's /register answer embedded when it lets
// them read its web-public channels (Rome in the development organization).
beforeAll(async () => {
  if (!isBuilt()) await build();
}, 120_000);
const t = useTestServer({ dev: true });

const setSpectatorAccess = async (on: boolean) => expectSuccess(await t.patch("desdemona", "/api/v1/realm", { enable_spectator_access: on }));

/** The state element's JSON in the page. */
function embeddedState(html: string): Record<string, any> {
  const match = /<script type="application\/json" id="parley-state">(.*?)<\/script>/s.exec(html);
  expect(match, "the embedded state").not.toBeNull();
  return JSON.parse(match![1]!);
}

describe("GET / without a session", () => {
  it("redirects to /login/ while spectator access is off", async () => {
    const res = await rawGet(`${t.baseUrl}/`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/login/");
  });

  it("serves the app in visitor mode, with the visitor's state, when spectators are allowed", async () => {
    await setSpectatorAccess(true);
    const res = await rawGet(`${t.baseUrl}/`, { Cookie: "django_language=de" });
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const html = res.body.toString();
    expect(html).toContain(`<meta name="parley-visitor" content="1">`);
    expect(html).toContain(`<meta name="parley-csrf-token" content="">`);
    expect(html).toContain(`<meta name="parley-user-id" content="0">`);
    const state = embeddedState(html);
    // A visitor's event queue (src/events/visitorQueues.ts), which the app polls.
    expect(state).toMatchObject({ result: "success", queue_id: expect.any(String), user_id: 0, is_guest: true, unread_msgs: { count: 0 } });
    expect(state.user_settings.web_home_view).toBe("recent_topics");
    expect(state.user_settings.default_language).toBe("de");
    expect(state.subscriptions.map((s: { stream_id: number }) => s.stream_id)).toEqual([seedChannels.rome.id]);
    expect(state.realm_users.every((u: { delivery_email: unknown }) => u.delivery_email === null)).toBe(true);
  });

  it("takes a cookie of no live session for no session (as the API does)", async () => {
    const stale = await rawGet(`${t.baseUrl}/`, { Cookie: "sessionid=no-such-session" });
    expect(stale.status).toBe(200);
    const state = embeddedState(stale.body.toString());
    expect(state).toMatchObject({ user_id: 0, queue_id: expect.any(String) });
  });

  it("redirects to /login/ again when spectator access is turned off", async () => {
    await setSpectatorAccess(false);
    const res = await rawGet(`${t.baseUrl}/`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/login/");
  });
});
