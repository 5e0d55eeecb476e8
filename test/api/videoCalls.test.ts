import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { expectError, expectSuccess, TestServer, useTestServer } from "../support/testApp.js";
import { postLoginForm } from "../support/webLogin.js";

/** BigBlueButton calls: a signed join link from the API; following it creates the meeting and redirects there. */
const SECRET = "bbb-shared-secret";
const calls: URL[] = [];
let answer = "<response><returncode>SUCCESS</returncode><createTime>1700000000123</createTime></response>";
const bbb = http.createServer((req, res) => {
  calls.push(new URL(req.url ?? "/", "http://bbb"));
  res.writeHead(200, { "Content-Type": "text/xml" });
  res.end(answer);
});
await new Promise<void>((resolve) => bbb.listen(0, "127.0.0.1", resolve));
const bbbUrl = `http://127.0.0.1:${(bbb.address() as AddressInfo).port}/bigbluebutton/`;
afterAll(async () => {
  bbb.closeAllConnections();
  await new Promise((resolve) => bbb.close(resolve));
});

const t = useTestServer({ bigBlueButton: { url: bbbUrl, secret: SECRET }, outgoing: { webhookTimeoutSeconds: 5, allowHosts: ["127.0.0.1"] } });
const unconfigured = new TestServer();
beforeAll(() => unconfigured.start(), 60_000);
afterAll(() => unconfigured.stop(), 60_000);

/** Checks a BigBlueButton API call's checksum as the server would. */
function checksumValid(url: URL, call: string): boolean {
  const [query, checksum] = url.search.slice(1).split("&checksum=");
  return (
    url.pathname.endsWith(`/api/${call}`) &&
    createHash("sha256")
      .update(call + query + SECRET)
      .digest("hex") === checksum
  );
}

async function sessionCookie(email: string): Promise<string> {
  const res = await postLoginForm(t.baseUrl, email, DEV_PASSWORD);
  return `sessionid=${/sessionid=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]}`;
}

describe("BigBlueButton video calls", () => {
  it("gives a join link that creates the meeting and redirects the signed-in user into it as moderator", async () => {
    const { url } = expectSuccess(await t.get("hamlet", "/api/v1/calls/bigbluebutton/create", { meeting_name: "Daily standup", voice_only: "true" }));
    expect(url).toMatch(/^\/calls\/bigbluebutton\/join\?bigbluebutton=[\w.%-]+$/);
    const res = await fetch(t.baseUrl + url, { redirect: "manual", headers: { Cookie: await sessionCookie("hamlet@zulip.com") } });
    expect(res.status).toBe(302);
    const create = calls.at(-1)!;
    expect(checksumValid(create, "create")).toBe(true);
    expect(create.searchParams.get("name")).toBe("Daily standup");
    expect(create.searchParams.get("lockSettingsDisableCam")).toBe("true");
    const join = new URL(res.headers.get("location")!);
    expect(join.href.startsWith(`${bbbUrl}api/join?`)).toBe(true);
    expect(checksumValid(join, "join")).toBe(true);
    expect(join.searchParams.get("meetingID")).toBe(create.searchParams.get("meetingID"));
    expect(join.searchParams.get("password")).toBe(create.searchParams.get("moderatorPW"));
    expect(join.searchParams.get("fullName")).toBe("King Hamlet");
    expect(join.searchParams.get("createTime")).toBe("1700000000123");
  });

  it("refuses tampered links, signed-out visitors, and answers from the server that are not SUCCESS", async () => {
    const { url } = expectSuccess(await t.get("hamlet", "/api/v1/calls/bigbluebutton/create", { meeting_name: "Retro" }));
    const cookie = await sessionCookie("othello@zulip.com");
    const signedOut = await fetch(t.baseUrl + url, { redirect: "manual" });
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toMatch(/^\/login\//);
    const tampered = await fetch(t.baseUrl + url.replace(/bigbluebutton=\w/, "bigbluebutton=A"), { redirect: "manual", headers: { Cookie: cookie } });
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toMatchObject({ msg: "Invalid signature." });
    answer = "<response><returncode>FAILED</returncode><messageKey>checksumError</messageKey></response>";
    const refused = await fetch(t.baseUrl + url, { redirect: "manual", headers: { Cookie: cookie } });
    expect(await refused.json()).toMatchObject({ msg: "Error authenticating to the BigBlueButton server." });
  });

  it("answers Zulip's error where no BigBlueButton server is configured", async () => {
    expectError(await unconfigured.get("hamlet", "/api/v1/calls/bigbluebutton/create", { meeting_name: "x" }), 400, "BigBlueButton is not configured.");
    expectError(await t.get("hamlet", "/api/v1/calls/bigbluebutton/create", {}), 400, "Missing 'meeting_name' argument", "REQUEST_VARIABLE_MISSING");
  });
});
